// A measured system against its own measurement.
#include "trainbudget/eval/fabric_check.hpp"

#include <algorithm>

#include "trainbudget/eval/comm.hpp"

namespace tb {

std::vector<FabricCheck> fabric_check(const System& system, double min_bytes) {
  std::vector<FabricCheck> out;
  if (system.measured == nullptr) return out;
  const int per_node = std::max(1, system.fabric.devices_per_node);
  Fabric links_only = system.fabric;
  links_only.measured = nullptr;
  for (const CollectiveCurve& curve : system.measured->curves) {
    const Group group =
        curve.tier == FabricTier::kIntraNode ? Group{curve.ranks, 1} : Group{curve.ranks, per_node};
    for (std::size_t i = 0; i < curve.bytes.size() && i < curve.seconds.size(); ++i) {
      if (curve.bytes[i] <= min_bytes) continue;
      FabricCheck c;
      c.op = curve.op;
      c.tier = curve.tier;
      c.ranks = curve.ranks;
      c.bytes = curve.bytes[i];
      c.measured_seconds = curve.seconds[i];
      c.model_seconds =
          default_comm_model().time(curve.op, Bytes{curve.bytes[i]}, group, system.fabric).count();
      c.alpha_beta_seconds =
          default_comm_model().time(curve.op, Bytes{curve.bytes[i]}, group, links_only).count();
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace tb
