// Text/Markdown sections of a step analysis: activations, peak over phases, FLOPs from the
// architecture, what fits, --explain. Private to the report library.
#pragma once

#include <vector>

#include "trainbudget/report/document.hpp"

namespace tb::report {

// Activations, peak memory, architecture FLOPs and (with --fit) what fits; empty without an
// architecture.
[[nodiscard]] std::vector<Section> step_sections(const Estimate& estimate);

// Every term's formula and value (with --explain); empty otherwise.
[[nodiscard]] std::vector<Section> explain_sections(const Estimate& estimate);

}  // namespace tb::report
