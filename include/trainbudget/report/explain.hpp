// --explain: every term behind an estimate as (formula, symbol values, value), so a person can
// check it by hand: the lines the report's documents render, built from eval's term tables.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/eval/activation_memory.hpp"
#include "trainbudget/eval/arch_flops.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/peak_memory.hpp"

namespace tb::report {

struct ExplainLine {
  std::string section;  // "activations: dense layer (x32)", "flops per token", "peak", ...
  std::string name;     // the term's id
  std::string formula;  // in Explanation::symbols
  double value{0.0};
  std::string unit;  // "B" or "FLOP"
  std::string note;  // what the term is
};

struct Explanation {
  std::vector<Symbol> symbols;  // each letter once, with its value
  std::vector<ExplainLine> lines;
};

[[nodiscard]] Explanation explain(const ActivationEstimate& activations, const ArchFlops& flops,
                                  const PeakMemory& peak);

// What a bare parameter count explains (no architecture, so no activations): each model-state
// row as bytes per parameter x the parameters it is kept for, and the FLOPs per token and in
// total over `tokens`.
[[nodiscard]] Explanation explain_states(const Scenario& scenario, double tokens);

}  // namespace tb::report
