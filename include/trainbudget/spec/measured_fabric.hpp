// A fabric as measured (`trainbudget measure --fabric`, docs/fabric.md): per collective and tier,
// the median time of each message size, and where and how it was measured. A system file carries
// it under [measured]; the communication model reads it in place of the catalog's alpha-beta
// figures wherever it covers the collective and tier.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/spec/collective.hpp"

namespace tb {

// Inside one node (ranks of one host) or between nodes (one rank per host).
enum class FabricTier : std::uint8_t { kIntraNode, kInterNode };

template <>
struct EnumNames<FabricTier> {
  static constexpr std::array<std::pair<FabricTier, std::string_view>, 2> kNames{
      {{FabricTier::kIntraNode, "intra_node"}, {FabricTier::kInterNode, "inter_node"}}};
};

// One collective's size curve: sizes ascending, each with its median time over the repetitions.
struct CollectiveCurve {
  Collective op{Collective::kAllReduce};
  FabricTier tier{FabricTier::kIntraNode};
  int ranks{2};                 // the communicator it was timed on
  std::vector<double> bytes;    // as Collective defines them, ascending
  std::vector<double> seconds;  // median, same length
};

struct MeasuredFabric {
  std::vector<CollectiveCurve> curves;
  std::vector<std::string> hosts;  // host names, one per node
  int ranks{0};
  int ranks_per_host{0};
  std::string runtime;  // "Open MPI v4.1.4", "NCCL 2.21.5"
  std::string buffers;  // "host" (MPI over host memory) or "device" (NCCL on GPU memory)
  std::string date;     // ISO 8601, UTC

  // The curve for `op` on `tier`; nullptr when none was measured.
  [[nodiscard]] const CollectiveCurve* find(Collective op, FabricTier tier) const noexcept {
    for (const CollectiveCurve& c : curves) {
      if (c.op == op && c.tier == tier) return &c;
    }
    return nullptr;
  }
};

}  // namespace tb
