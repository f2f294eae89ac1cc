// Collectives from a measured size curve.
#include "trainbudget/eval/measured_comm.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tb {

FabricTier group_tier(const Fabric& fabric, Group group) noexcept {
  const long long span = static_cast<long long>(group.ranks) * group.stride;
  return fabric.devices_per_node <= 0 || span <= fabric.devices_per_node ? FabricTier::kIntraNode
                                                                         : FabricTier::kInterNode;
}

int members_per_node(const Fabric& fabric, Group group) noexcept {
  if (fabric.devices_per_node <= 0) return group.ranks;
  return std::max(1, std::min(group.ranks, fabric.devices_per_node / std::max(1, group.stride)));
}

const CollectiveCurve* measured_curve(const Fabric& fabric, Collective op, Group group) noexcept {
  if (fabric.measured == nullptr) return nullptr;
  const CollectiveCurve* c = fabric.measured->find(op, group_tier(fabric, group));
  return c != nullptr && !c->bytes.empty() && c->bytes.size() == c->seconds.size() ? c : nullptr;
}

Seconds curve_time(const CollectiveCurve& curve, Bytes bytes, int ranks, double share) noexcept {
  const std::size_t n = std::min(curve.bytes.size(), curve.seconds.size());
  if (ranks <= 1 || bytes.value() <= 0.0 || n == 0) return Seconds{0.0};
  const double measured_factor = bus_bandwidth_factor(curve.op, curve.ranks);
  const auto bus = [&](std::size_t i) {
    return curve.bytes[i] * measured_factor / curve.seconds[i];
  };
  const double s = bytes.value();
  const double floor = curve.seconds.front();
  if (s <= curve.bytes.front()) return Seconds{floor};
  double bandwidth = bus(n - 1);
  const auto end = curve.bytes.begin() + static_cast<std::ptrdiff_t>(n);
  const auto upper = std::upper_bound(curve.bytes.begin(), end, s);
  if (upper != end) {
    const auto i = static_cast<std::size_t>(upper - curve.bytes.begin()) - 1;
    const double w = std::log(s / curve.bytes[i]) / std::log(curve.bytes[i + 1] / curve.bytes[i]);
    bandwidth = std::exp(std::log(bus(i)) + w * (std::log(bus(i + 1)) - std::log(bus(i))));
  }
  bandwidth *= std::max(share, 1e-9);
  return Seconds{std::max(floor, s * bus_bandwidth_factor(curve.op, ranks) / bandwidth)};
}

}  // namespace tb
