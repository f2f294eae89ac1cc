// Flattens the activation, FLOPs and peak breakdowns into lines of formula and value.
#include "trainbudget/report/explain.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/report/estimate_words.hpp"

namespace tb::report {
namespace {

void add_symbols(std::vector<Symbol>& into, const std::vector<Symbol>& from) {
  for (const Symbol& s : from) {
    const bool known =
        std::any_of(into.begin(), into.end(), [&](const Symbol& x) { return x.name == s.name; });
    if (!known) into.push_back(s);
  }
}

std::string factor_text(double f) { return fmt::format("{:g}", f); }

}  // namespace

Explanation explain(const ActivationEstimate& activations, const ArchFlops& flops,
                    const PeakMemory& peak) {
  Explanation out;
  add_symbols(out.symbols, activations.symbols);
  add_symbols(out.symbols, flops.symbols);
  auto& lines = out.lines;

  for (const LayerActivations& kind : activations.layer_kinds) {
    const std::string section =
        fmt::format("activations: {} decoder layer (x{})", kind.moe ? "MoE" : "dense", kind.layers);
    for (const ActivationTerm& t : kind.terms) {
      lines.push_back({section, t.name, t.formula, t.bytes().value(), "B", t.tensor});
    }
    lines.push_back({section, "per_layer", "sum of the terms above", kind.per_layer.value(), "B",
                     "what one layer keeps until its backward"});
    if (kind.recompute_transient.value() > 0.0) {
      lines.push_back({section, "recompute_transient", "recomputed terms of one layer",
                       kind.recompute_transient.value(), "B",
                       "rebuilt during this layer's backward only"});
    }
    lines.push_back({section, "backward_workspace",
                     "2*b*s*h*e + the layer's largest activation-dtype tensor",
                     kind.backward_workspace.value(), "B",
                     "activation gradients during this layer's backward"});
  }
  for (const ActivationTerm& t : activations.head) {
    lines.push_back(
        {"activations: embedding and head", t.name, t.formula, t.bytes().value(), "B", t.tensor});
  }
  lines.push_back({"activations", "saved", "sum(per_layer x layers) + head",
                   activations.saved.value(), "B", "held at the end of forward"});
  lines.push_back({"activations", "logits_gradient", "b*s*V*4 x copies",
                   activations.logits_gradient.value(), "B",
                   "gradient of the logits at the start of backward (docs/activations.md)"});

  for (const FlopsTerm& t : flops.terms) {
    lines.push_back({"flops per token", t.name,
                     fmt::format("({}) x (1 + {})", t.formula, factor_text(t.backward_factor)),
                     t.model, "FLOP",
                     fmt::format("forward {:.6g}, backward {}x forward", t.forward,
                                 factor_text(t.backward_factor))});
    if (t.recompute > 0.0) {
      lines.push_back({"flops per token", t.name + "_recompute", "forward executed again",
                       t.recompute, "FLOP", "hardware FLOPs only (HFU), not model FLOPs (MFU)"});
    }
  }
  lines.push_back({"flops per token", "model", "sum of the terms", flops.model_per_token, "FLOP",
                   "MFU FLOPs: forward + backward"});
  lines.push_back({"flops per token", "hardware", "model + recompute", flops.hardware_per_token,
                   "FLOP", "HFU FLOPs: what the hardware executes"});
  lines.push_back({"flops per token", "reference_6n", flops.reference_formula, flops.reference_6n,
                   "FLOP", "Kaplan et al. 2020's 6N, for comparison"});

  for (const PhaseMemory& m : peak.phases) {
    const std::string section = fmt::format("peak: {} ({})", enum_name(m.phase), moment_text(m));
    lines.push_back({section, "resident", "weights + master + optimizer states + frozen",
                     m.resident.value(), "B", "held for the whole step"});
    lines.push_back(
        {section, "gradients", "gradients held at this moment", m.gradients.value(), "B", ""});
    lines.push_back(
        {section, "activations", "saved activations still held", m.activations.value(), "B", ""});
    lines.push_back({section, "transient", "logits gradient / recompute / workspace / optimizer",
                     m.transient.value(), "B", ""});
    lines.push_back({section, "total", "resident + gradients + activations + transient",
                     m.total.value(), "B", m.phase == peak.peak_phase ? "the peak" : ""});
  }
  return out;
}

Explanation explain_states(const Scenario& s, double tokens) {
  Explanation out;
  out.symbols = {{"N", s.params_total, "parameters"},
                 {"N_t", s.params_trainable, "trained parameters"},
                 {"T", tokens, "training tokens"}};
  for (const MemoryComponent& c : s.memory.components) {
    const char* of = c.params == s.params_total ? "N" : c.params == s.params_trainable ? "N_t" : "";
    const std::string formula = *of != '\0'
                                    ? fmt::format("{:g} x {}", c.bytes_per_param, of)
                                    : fmt::format("{:g} x {:g}", c.bytes_per_param, c.params);
    out.lines.push_back(
        {"model states (a full replica)", c.key, formula, c.replica.value(), "B", c.label});
  }
  out.lines.push_back({"flops per token", "reference_6n", "6 x N", s.compute.flops_per_token_6n,
                       "FLOP", "the 6N rule: forward 2N, backward 4N"});
  out.lines.push_back({"flops per token", "counted", flops_formula_text(s),
                       s.compute.flops_per_token, "FLOP", "what the clock uses"});
  out.lines.push_back(
      {"flops", "total", "flops per token x T", s.compute.total.value(), "FLOP", "the whole run"});
  return out;
}

}  // namespace tb::report
