// The online RL rollout of one machine as JSON (docs/json.md, "rollout"). Private to the report
// library.
#pragma once

#include <nlohmann/json.hpp>

#include "trainbudget/eval/estimate.hpp"

namespace tb::report {

// null when the job is not online RL.
[[nodiscard]] nlohmann::ordered_json rollout_json(const MachineEstimate& m);

}  // namespace tb::report
