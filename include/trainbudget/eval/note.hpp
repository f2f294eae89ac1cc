// What an estimate had to assume or leave out, as a code and the numbers it carries. The physics
// builds no sentences: report/estimate_words.hpp words a note for every front end.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// Each code says which of Note's fields it fills.
enum class NoteCode : std::uint8_t {
  kMeshCabled,             // id system; n: devices, ports per node, nodes a full mesh reaches
  kPastMesh,               // id system; n: devices, nodes a full mesh reaches, ports per node
  kTpAcrossNodes,          // n: tp, devices per node
  kNoNetworkBetweenNodes,  // id system; n: devices, nodes needed, devices per node
  kOneFabricAssumed,       // id device, name interconnect; n: devices; x: bytes/s per direction
  kNoInterconnect,         // id device; n: devices
  kNoMemoryBandwidth,      // id device
  kNoHostLink,             // offload's transfers untimed
  kHostMemoryShort,        // id system; x: host bytes a node needs, host bytes it has
  kKvQueued,           // x: KV capacity, KV needed (bytes); n: completions, running at once, steps
  kGenerateOverheads,  // generate()'s per-token Python and launch costs left out
  kPastPositions,      // n: sequence length, the model's positions
  kNoKvWithoutArchitecture,
  kDecodeNotTimed,
  kPrefillNotTimed,
  kQloraDequantRange,  // QLoRA's NF4 dequantisation: priced as traffic, published 20-24 % slower
  kQuantizedDecodeOptimistic,  // weight-only quantized decode: an upper bound, 30-70 % optimistic
  kPaddedPasses,  // n: mean completion, the longest it is padded to (log-probs, update), and
                  // the pipeline stages whose packs NeMo RL pads to the longest (0: padded batch)
};

template <>
struct EnumNames<NoteCode> {
  static constexpr std::array<std::pair<NoteCode, std::string_view>, 18> kNames{
      {{NoteCode::kMeshCabled, "mesh_cabled"},
       {NoteCode::kPastMesh, "past_mesh"},
       {NoteCode::kTpAcrossNodes, "tp_across_nodes"},
       {NoteCode::kNoNetworkBetweenNodes, "no_network_between_nodes"},
       {NoteCode::kOneFabricAssumed, "one_fabric_assumed"},
       {NoteCode::kNoInterconnect, "no_interconnect"},
       {NoteCode::kNoMemoryBandwidth, "no_memory_bandwidth"},
       {NoteCode::kNoHostLink, "no_host_link"},
       {NoteCode::kHostMemoryShort, "host_memory_short"},
       {NoteCode::kKvQueued, "kv_queued"},
       {NoteCode::kGenerateOverheads, "generate_overheads"},
       {NoteCode::kPastPositions, "past_positions"},
       {NoteCode::kNoKvWithoutArchitecture, "no_kv_without_architecture"},
       {NoteCode::kDecodeNotTimed, "decode_not_timed"},
       {NoteCode::kPrefillNotTimed, "prefill_not_timed"},
       {NoteCode::kQloraDequantRange, "qlora_dequant_range"},
       {NoteCode::kQuantizedDecodeOptimistic, "quantized_decode_optimistic"},
       {NoteCode::kPaddedPasses, "padded_passes"}}};
};

struct Note {
  NoteCode code{NoteCode::kNoHostLink};
  std::string id;    // the system or device it is about
  std::string name;  // a second name (an interconnect)
  std::array<std::int64_t, 3> n{};
  std::array<double, 2> x{};

  [[nodiscard]] static Note of(NoteCode code, std::string id = {},
                               std::array<std::int64_t, 3> n = {}, std::array<double, 2> x = {},
                               std::string name = {}) {
    Note out;
    out.code = code;
    out.id = std::move(id);
    out.name = std::move(name);
    out.n = n;
    out.x = x;
    return out;
  }
};

}  // namespace tb
