// Collectives priced from a measured size curve (`measure --fabric`, docs/fabric.md) instead of
// the catalog's alpha-beta figures.
#pragma once

#include "trainbudget/eval/comm.hpp"
#include "trainbudget/spec/measured_fabric.hpp"

namespace tb {

// The tier a group's collective runs on: inside one node when its members span no more than a
// node (the rule of group_link), else between nodes.
[[nodiscard]] FabricTier group_tier(const Fabric& fabric, Group group) noexcept;

// The measured curve that prices `op` over `group`, or nullptr when the fabric has none for it.
[[nodiscard]] const CollectiveCurve* measured_curve(const Fabric& fabric, Collective op,
                                                    Group group) noexcept;

// Seconds for `bytes` over `ranks` ranks from a curve timed on curve.ranks ranks. The curve's bus
// bandwidth (nccl-tests: bytes / time x bus_bandwidth_factor) is interpolated log-log in the
// message size and held at its last value past the largest size; the time is bytes x the
// factor for `ranks` over it, so a group of the measured size gets the measured median at every
// measured size, and another size the same bus bandwidth (the quantity nccl-tests defines to be
// independent of the rank count). Below the smallest size, and never less than it, the time is
// the smallest size's: the latency floor. `share` scales the bus bandwidth: an inter-node curve
// is timed with every rank of a host in its own cross-host communicator at once (each gets its
// share of the host's link), so a group with k members per node gets k times it, as group_link
// gives k / devices_per_node of the node's link. 0 for one rank or no bytes.
[[nodiscard]] Seconds curve_time(const CollectiveCurve& curve, Bytes bytes, int ranks,
                                 double share = 1.0) noexcept;

// Members of `group` inside one node, counted as group_link counts them.
[[nodiscard]] int members_per_node(const Fabric& fabric, Group group) noexcept;

}  // namespace tb
