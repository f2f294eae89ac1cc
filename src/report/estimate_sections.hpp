// The estimate document's shared cells and its opening section (estimate_document.cpp,
// answer_section.cpp). Private to the report library.
#pragma once

#include <optional>
#include <string>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/report/document.hpp"

namespace tb::report {

// The fit column's words ("fits", "fits, tightly", "does not fit", "states fit (no activations)").
[[nodiscard]] std::string verdict_words(Verdict v);
// The dtype a machine computes in, "(no fp8)" when it fell back, "*" when chosen with ID:dtype.
[[nodiscard]] std::string dtype_cell(const MachineEstimate& m);
// One row per state term and the activations (their sharding), then the peak or the total.
[[nodiscard]] TextTable memory_table(const Scenario& s, const MemoryEstimate& memory);
// The answer first: per machine its fit, memory, time and cost, the one change that fits, the
// names as a legend.
[[nodiscard]] Section answer_section(const Estimate& e);
// Online RL: the generation round of each machine (rollout_section.cpp); none otherwise.
[[nodiscard]] std::optional<Section> rollout_section(const Estimate& e);

}  // namespace tb::report
