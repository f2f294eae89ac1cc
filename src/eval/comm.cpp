// The analytical communication backend.
#include "trainbudget/eval/comm.hpp"

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/measured_comm.hpp"

namespace tb {
namespace {

// S / B; 0 for an absent link, so that a missing figure never yields inf (evaluate() reports
// the missing link instead).
// At the bus bandwidth nccl-tests measures over the link (busbw_fraction; 1 without one).
Seconds transfer(Bytes bytes, const Link& link) {
  if (link.bandwidth.value() <= 0.0) return Seconds{0.0};
  return bytes / (link.bandwidth * link.busbw_fraction);
}

}  // namespace

Link group_link(const Fabric& fabric, Group group) noexcept {
  const int per_node = fabric.devices_per_node;
  const long long span = static_cast<long long>(group.ranks) * group.stride;
  if (per_node <= 0 || span <= per_node) return fabric.scale_up;
  // Members of the group inside one node: consecutive ones `stride` apart.
  const int members = std::max(1, std::min(group.ranks, per_node / std::max(1, group.stride)));
  Link out = fabric.scale_out;
  out.bandwidth = fabric.scale_out.bandwidth * (static_cast<double>(members) / per_node);
  if (members > 1 && fabric.scale_up.bandwidth.value() > 0.0 &&
      fabric.scale_up.bandwidth < out.bandwidth) {
    out.bandwidth = fabric.scale_up.bandwidth;
    out.busbw_fraction = fabric.scale_up.busbw_fraction;
  }
  out.latency = std::max(fabric.scale_out.latency, fabric.scale_up.latency);
  return out;
}

Seconds ring_all_reduce_time(Bytes bytes, int ranks, const Link& link) noexcept {
  if (ranks <= 1) return Seconds{0.0};
  const double n = ranks;
  return 2.0 * (n - 1.0) * link.latency + transfer(bytes * (2.0 * (n - 1.0) / n), link);
}

Seconds tree_all_reduce_time(Bytes bytes, int ranks, const Link& link) noexcept {
  if (ranks <= 1) return Seconds{0.0};
  const double steps = 2.0 * std::ceil(std::log2(static_cast<double>(ranks)));
  return steps * link.latency + transfer(bytes * 2.0, link);
}

Seconds AlphaBetaComm::time(Collective op, Bytes bytes, Group group,
                            const Fabric& fabric) const noexcept {
  if (group.ranks <= 1 || bytes.value() <= 0.0) return Seconds{0.0};
  if (const CollectiveCurve* curve = measured_curve(fabric, op, group)) {
    const double share =
        curve->tier == FabricTier::kInterNode ? members_per_node(fabric, group) : 1.0;
    return curve_time(*curve, bytes, group.ranks, share);
  }
  return kCollectiveBaseLatency + steps_time(op, bytes, group, fabric);
}

Seconds AlphaBetaComm::steps_time(Collective op, Bytes bytes, Group group,
                                  const Fabric& fabric) const noexcept {
  const Link link = group_link(fabric, group);
  const double n = group.ranks;
  switch (op) {
    case Collective::kAllReduce:
      return std::min(ring_all_reduce_time(bytes, group.ranks, link),
                      tree_all_reduce_time(bytes, group.ranks, link));
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return (n - 1.0) * link.latency + transfer(bytes * ((n - 1.0) / n), link);
    case Collective::kBroadcast:
      // Pipelined over a ring or tree (NCCL's broadcast): log2 n latency steps, S of bandwidth.
      return std::ceil(std::log2(n)) * link.latency + transfer(bytes, link);
    case Collective::kSendRecv:
      return link.latency + transfer(bytes, link);
  }
  return Seconds{0.0};
}

const CommModel& default_comm_model() noexcept {
  static const AlphaBetaComm model;
  return model;
}

}  // namespace tb
