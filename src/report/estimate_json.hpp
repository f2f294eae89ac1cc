// The estimate's JSON object, for documents that embed estimates (a plan's candidates). Private
// to the report library.
#pragma once

#include <nlohmann/json.hpp>

#include "trainbudget/eval/estimate.hpp"

namespace tb::report {

[[nodiscard]] nlohmann::ordered_json estimate_object(const Estimate& estimate);
// A layout's `parallel` block (dp, tp, pp, cp, ep, ..., recompute), as estimates print it.
[[nodiscard]] nlohmann::ordered_json parallel_json(const Layout& layout);
// The "tool" block every JSON document carries: name, version, commit, build type.
[[nodiscard]] nlohmann::ordered_json tool_block();

}  // namespace tb::report
