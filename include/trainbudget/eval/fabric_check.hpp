// A measured system against its own measurement: for each measured size, the time the estimate's
// communication model gives the collective beside the median that was measured (docs/fabric.md,
// "How the estimate uses it").
#pragma once

#include <vector>

#include "trainbudget/spec/system.hpp"

namespace tb {

struct FabricCheck {
  Collective op{Collective::kAllReduce};
  FabricTier tier{FabricTier::kIntraNode};
  int ranks{2};
  double bytes{0.0};
  double measured_seconds{0.0};
  double model_seconds{0.0};       // what estimates use: the curve
  double alpha_beta_seconds{0.0};  // the fitted links alone, as for a collective not measured
};

// Every point of the system's [measured] curves above `min_bytes`, priced through
// default_comm_model() on the system's fabric for the group the estimate would form: consecutive
// ranks inside a node, one rank per node between nodes. Empty for a system measured by no one.
[[nodiscard]] std::vector<FabricCheck> fabric_check(const System& system, double min_bytes);

}  // namespace tb
