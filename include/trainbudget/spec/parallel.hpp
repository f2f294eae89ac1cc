// How one training job is laid out over its devices besides data parallelism: tensor, pipeline,
// context and expert parallel degrees, the pipeline schedule, sequence parallelism and CPU
// offload. The names are Megatron-LM's (Shoeybi et al. 2019; Narayanan et al. 2021; Korthikanti
// et al. 2022) and DeepSpeed's (ZeRO-Offload, Ren et al. 2021); docs/scale.md defines each.
#pragma once

#include <cstdint>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// What lives in host memory instead of the device's.
enum class Offload : std::uint8_t {
  kNone,
  // ZeRO-Offload (Ren et al. 2021, sec. 4): gradients, optimizer states and master weights on
  // the host, the optimizer step run by the CPU; weights, forward and backward stay on device.
  kOptimizer,
  // ZeRO-Infinity / FSDP CPUOffload(offload_params=True): the weights too, gathered to the
  // device layer by layer (needs ZeRO-3).
  kParams,
};

template <>
struct EnumNames<Offload> {
  static constexpr std::array<std::pair<Offload, std::string_view>, 3> kNames{
      {{Offload::kNone, "none"}, {Offload::kOptimizer, "optimizer"}, {Offload::kParams, "params"}}};
};

// "none" | "optimizer" | "params"; throws InvalidRequest naming the offload field otherwise.
[[nodiscard]] Offload parse_offload(std::string_view text);

// Degrees beyond which a value is a typo: 2^16 of any one kind, 2^6 virtual stages per device.
inline constexpr int kMaxDegree = 1 << 16;
inline constexpr int kMaxVirtualStages = 64;

struct Parallelism {
  int tp{1};  // tensor parallel: every weight matrix split over tp devices (Shoeybi et al. 2019)
  int pp{1};  // pipeline stages, the decoder layers split evenly over them
  int cp{1};  // context parallel: the sequence split over cp devices (ring attention)
  int ep{1};  // expert parallel: the routed experts split over ep of the data-parallel ranks
  // Expert tensor parallel (Megatron-Core's expert_tensor_parallel_size, "MoE parallel
  // folding"): each expert's weights split over etp ranks, the expert grid etp x ep x edp laid
  // over the tp x cp x dp ranks. 0: the same as tp (Megatron-Core's default).
  int etp{0};
  // Model chunks per pipeline device: 1 is 1F1B, > 1 the interleaved schedule (Narayanan et
  // al. 2021, sec. 2.2.2) with that many virtual stages.
  int virtual_stages{1};
  // Megatron-Core's uneven pipeline split (num_layers_in_first_pipeline_stage and
  // num_layers_in_last_pipeline_stage, megatron/core/transformer/transformer_block.py
  // get_num_layers_to_build): the first and the last stage's decoder layers, the rest split
  // evenly over the other stages (stage_bounds). 0: that stage takes the even split's share.
  int first_stage_layers{0};
  int last_stage_layers{0};
  // torchtitan's split (torchtitan/distributed/pipeline_parallel.py at b5bcd76c,
  // _generate_llm_fqn_per_model_part, with pipeline_parallel_first_stage_less_layers and
  // _last_stage_less_layers at their default 1): the embedding and the output each count as a
  // layer, the layers + 2 spread evenly over the stages with the remainder on the first ones,
  // so the edge stages run one decoder layer fewer. With one chunk a device and no edge counts
  // given; the torchtitan profile sets it.
  bool edge_layers{false};
  bool sequence_parallel{false};  // Korthikanti et al. 2022 sec. 4.2.2; needs tp > 1 to matter
  // The 2021 Megatron-LM's scatter-gather of pipeline sends (Narayanan et al. 2021, sec. 4.1;
  // NVIDIA/Megatron-LM de7dc40 megatron/p2p_communication.py, scatter_gather_tensors_in_pipeline):
  // each tensor-parallel rank sends 1/tp of the boundary activation to the next stage and the
  // receivers all-gather it over the node's links. Sequence parallelism splits it already.
  bool pp_scatter_gather{false};
  // FSDP HYBRID_SHARD (PyTorch ShardingStrategy.HYBRID_SHARD; ZeRO++'s hpZ): ZeRO partitions
  // over groups of this many data-parallel ranks, usually a node's, and the groups replicate
  // each other, all-reducing gradients across. 0: one group of every rank.
  int shard_group{0};
  Offload offload{Offload::kNone};
};

// Whether the first or the last stage's layers are given (Megatron-Core's uneven split).
[[nodiscard]] constexpr bool given_edge_stages(const Parallelism& x) noexcept {
  return x.pp > 1 && (x.first_stage_layers > 0 || x.last_stage_layers > 0);
}

// Whether torchtitan's split applies: edge_layers, one chunk a device, no edge counts given, and
// at least two effective layers a stage (the edge stages keep a decoder layer).
[[nodiscard]] constexpr bool edge_weighted_stages(std::int64_t layers,
                                                  const Parallelism& x) noexcept {
  return x.edge_layers && x.pp > 1 && x.virtual_stages == 1 && !given_edge_stages(x) &&
         (layers + 2) / x.pp >= 2;
}

// Whether the stages differ in layers beyond the even split's remainder: given edge counts
// (Megatron-Core) or torchtitan's split.
[[nodiscard]] constexpr bool uneven_stages(const Parallelism& x) noexcept {
  return given_edge_stages(x) || (x.edge_layers && x.pp > 1 && x.virtual_stages == 1);
}

// The decoder layers [begin, end) that pipeline stage `index` of x.pp runs.
// Uneven (uneven_stages): the given edge stages take their layers and the other stages split
// the rest evenly (layout_rules checks that it divides). Even: floor(layers / pp) each, one
// more on the first layers % pp stages, so the first stage is the most loaded (docs/scale.md,
// "Pipeline stages").
struct StageBounds {
  std::int64_t begin{0};
  std::int64_t end{0};
};
[[nodiscard]] constexpr StageBounds stage_bounds(std::int64_t layers, const Parallelism& x,
                                                 int index) noexcept {
  const std::int64_t pp = x.pp > 1 ? x.pp : 1;
  const std::int64_t i = index;
  if (edge_weighted_stages(layers, x)) {
    // torchtitan: (layers + 2) / pp effective layers a stage, one more on the first
    // (layers + 2) % pp; the first and the last stage's include the embedding and the output.
    const std::int64_t effective = layers + 2;
    const auto size = [&](std::int64_t j) {
      const std::int64_t n = effective / pp + (j < effective % pp ? 1 : 0);
      return n - (j == 0 ? 1 : 0) - (j == pp - 1 ? 1 : 0);
    };
    std::int64_t begin = 0;
    for (std::int64_t j = 0; j < i; ++j) begin += size(j);
    return {begin, begin + size(i)};
  }
  if (given_edge_stages(x)) {
    const std::int64_t first = x.first_stage_layers;
    const std::int64_t last = x.last_stage_layers;
    const std::int64_t middle_stages = pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const std::int64_t rest = layers - first - last;
    const std::int64_t each = middle_stages > 0 && rest > 0 ? rest / middle_stages : 0;
    const auto size = [&](std::int64_t j) {
      if (j == 0 && first > 0) return first;
      if (j == pp - 1 && last > 0) return last;
      return each;
    };
    std::int64_t begin = 0;
    for (std::int64_t j = 0; j < i; ++j) begin += size(j);
    return {begin, begin + size(i)};
  }
  const std::int64_t small = layers / pp;
  const std::int64_t extra = layers % pp;
  const std::int64_t begin = small * i + (i < extra ? i : extra);
  return {begin, begin + small + (i < extra ? 1 : 0)};
}

}  // namespace tb
