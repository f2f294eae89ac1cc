// A candidate's hours, cost and energy from its evaluation, and its score by the objective.
#include "trainbudget/plan/planner.hpp"

namespace tb::plan {

void score(Candidate& c, const ClusterProfile& cluster, Objective objective) noexcept {
  const double devices = c.layout.devices;
  c.hours = hours(c.cost.at_utilization);
  c.usd = devices * c.hours * cluster.price.value();
  c.kwh = devices * cluster.power.value() * c.hours * cluster.pue / 1000.0;
  switch (objective) {
    case Objective::kTime:
      c.score = c.hours;
      break;
    case Objective::kCost:
      // Without a price, cost ranks as device-hours.
      c.score = cluster.price.value() > 0.0 ? c.usd : devices * c.hours;
      break;
    case Objective::kEnergy:
      c.score = cluster.power.value() > 0.0 ? c.kwh : devices * c.hours;
      break;
  }
}

}  // namespace tb::plan
