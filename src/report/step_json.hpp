// JSON of a step analysis (activations, peak over phases, FLOPs from the architecture, what
// fits, --explain). Private to the report library; docs/json.md lists the keys.
#pragma once

#include <nlohmann/json.hpp>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/report/explain.hpp"

namespace tb::report {

// Adds memory.peak_*, memory.phases, memory.activations, compute.hfu_flops_per_token,
// compute.terms and machines[].what_fits to a scenario's JSON, when it has a step analysis.
void add_step_json(const Scenario& scenario, nlohmann::ordered_json& scenario_json);

// The top-level `setup` block and, with --explain, `explain`; nothing without an architecture.
void add_setup_json(const Estimate& estimate, nlohmann::ordered_json& root);

// The explain field's `symbols` and `terms`.
[[nodiscard]] nlohmann::ordered_json explanation_json(const Explanation& explanation);

}  // namespace tb::report
