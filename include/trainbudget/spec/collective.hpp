// The collectives a step runs, in nccl-tests' terms (NVIDIA/nccl-tests doc/PERFORMANCE.md): what
// `bytes` means for each, and the bus-bandwidth factor that makes a measured rate comparable
// across rank counts.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

enum class Collective : std::uint8_t {
  kAllReduce,
  kReduceScatter,  // `bytes` is the full (input) buffer; each rank keeps 1/n
  kAllGather,      // `bytes` is the full (output) buffer; each rank brings 1/n
  kAllToAll,       // `bytes` is what one rank holds before the exchange
  kBroadcast,      // `bytes` sent from one root to every rank
  kSendRecv,       // `bytes` sent to the next rank
};

template <>
struct EnumNames<Collective> {
  static constexpr std::array<std::pair<Collective, std::string_view>, 6> kNames{
      {{Collective::kAllReduce, "all_reduce"},
       {Collective::kReduceScatter, "reduce_scatter"},
       {Collective::kAllGather, "all_gather"},
       {Collective::kAllToAll, "all_to_all"},
       {Collective::kBroadcast, "broadcast"},
       {Collective::kSendRecv, "send_recv"}}};
};

// Bus bandwidth over algorithm bandwidth (bytes / time) for `ranks` ranks, as nccl-tests
// defines it (doc/PERFORMANCE.md, "Bus bandwidth"): all-reduce 2(n-1)/n, reduce-scatter,
// all-gather and all-to-all (n-1)/n, broadcast and send/recv 1. A ring moves that many bytes
// per rank over its slowest link, so bus bandwidth is the link's rate whatever n is.
[[nodiscard]] constexpr double bus_bandwidth_factor(Collective op, int ranks) noexcept {
  const double n = ranks;
  if (ranks <= 1) return 1.0;
  switch (op) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return (n - 1.0) / n;
    case Collective::kBroadcast:
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

}  // namespace tb
