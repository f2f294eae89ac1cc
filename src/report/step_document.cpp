// The step analysis as sections of tables.
#include "step_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/explain.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {
namespace {

std::string flops_per_token(double v) { return v == 0.0 ? "-" : flops(Flops{v}); }

// "full", or "full (first 4 layers per stage)" under block recomputation.
std::string recompute_words(const TrainingSetup& s) {
  if (s.recompute != Recompute::kFull || s.recompute_layers < 0) {
    return std::string{enum_name(s.recompute)};
  }
  return fmt::format("full (the first {} layers of each stage)", s.recompute_layers);
}

Section activations_section(const StepAnalysis& step) {
  const TrainingSetup& s = step.setup;
  const ActivationEstimate& a = step.activations;
  Section sec;
  sec.title = fmt::format(
      "Activations -- b={}, s={}, {} attention, recompute {}, {} activations, dropout {:g}",
      s.micro_batch, s.seq_len, enum_name(s.attention), recompute_words(s),
      enum_name(step.activation_dtype), s.dropout);
  TextTable t({{"part"},
               {"per layer", Align::kRight},
               {"layers", Align::kRight},
               {"total", Align::kRight}});
  const bool blocks = s.recompute == Recompute::kFull &&
                      std::any_of(a.layer_kinds.begin(), a.layer_kinds.end(),
                                  [](const LayerActivations& k) { return !k.recomputed; });
  for (const LayerActivations& k : a.layer_kinds) {
    std::map<std::string, double> modules;
    for (const ActivationTerm& term : k.terms) modules[term.module] += term.bytes().value();
    // Under block recomputation a kind has recomputed layers and layers kept whole.
    const std::string kind = fmt::format("{}{}", k.moe ? "MoE layer" : "dense layer",
                                         blocks && !k.recomputed ? " (kept)" : "");
    for (const auto& [module, bytes] : modules) {
      t.add_row({fmt::format("{}: {}", kind, module), gb(Bytes{bytes}), fmt::format("{}", k.layers),
                 gb(Bytes{bytes} * static_cast<double>(k.layers))});
    }
  }
  for (const ActivationTerm& term : a.head) {
    t.add_row({fmt::format("head: {}", term.name), "", "", gb(term.bytes())});
  }
  t.add_row({"saved at the end of forward", "", "", gb(a.saved)});
  sec.table(std::move(t));
  std::string during;
  for (const LayerActivations& k : a.layer_kinds) {
    during += fmt::format("; per {}{} layer, activation gradients {}",
                          blocks && !k.recomputed ? "kept " : "", k.moe ? "MoE" : "dense",
                          gb(k.backward_workspace));
    if (k.recompute_transient.value() > 0.0) {
      during += fmt::format(" and recomputed activations {}", gb(k.recompute_transient));
    }
  }
  sec.text(
      fmt::format("Held only during backward: the fp32 logits gradient {}{}. Terms and sources: "
                  "docs/activations.md ({{explain}} lists each).",
                  gb(a.logits_gradient), during));
  return sec;
}

Section peak_section(const StepAnalysis& step) {
  Section sec;
  sec.title = fmt::format("Peak memory over the step -- {} ({})", gb(step.peak.peak),
                          enum_name(step.peak.peak_phase));
  TextTable t({{"phase"},
               {"moment"},
               {"resident", Align::kRight},
               {"gradients", Align::kRight},
               {"activations", Align::kRight},
               {"transient", Align::kRight},
               {"total", Align::kRight}});
  for (const PhaseMemory& m : step.peak.phases) {
    const bool peak = m.phase == step.peak.peak_phase;
    t.add_row({std::string{enum_name(m.phase)} + (peak ? " *" : ""), moment_text(m), gb(m.resident),
               gb(m.gradients), gb(m.activations), gb(m.transient), gb(m.total)});
  }
  sec.table(std::move(t));
  sec.text(
      "resident = weights, master weights, optimizer states, frozen weights. The peak (*) is the "
      "largest phase, not a sum; the fit verdict uses it. Not modelled: allocator fragmentation "
      "and the CUDA context.");
  for (const std::string& note : note_texts(step.notes)) sec.text("note: " + note);
  return sec;
}

Section flops_section(const StepAnalysis& step) {
  Section sec;
  sec.title = fmt::format("FLOPs per token from the architecture -- model {}, hardware {}",
                          flops_per_token(step.flops.model_per_token),
                          flops_per_token(step.flops.hardware_per_token));
  TextTable t({{"term"},
               {"forward", Align::kRight},
               {"x (1 + backward)", Align::kRight},
               {"recompute", Align::kRight}});
  for (const FlopsTerm& f : step.flops.terms) {
    t.add_row({f.name, flops_per_token(f.forward), flops_per_token(f.model),
               flops_per_token(f.recompute)});
  }
  t.add_row({"model (MFU FLOPs)", flops_per_token(step.flops.forward_per_token),
             flops_per_token(step.flops.model_per_token), ""});
  t.add_row({"hardware (HFU FLOPs)", "", flops_per_token(step.flops.hardware_per_token), ""});
  t.add_row({"reference 6N", "", flops_per_token(step.flops.reference_6n), ""});
  sec.table(std::move(t));
  sec.text(fmt::format(
      "Attention products count {} keys per query ({}). Hours use the model FLOPs at the "
      "utilization (MFU); hardware FLOPs add recomputation.",
      step.setup.causal_flops ? "(s+1)/2" : "all s",
      step.setup.causal_flops ? "{causal_flops}" : "Megatron/PaLM convention"));
  return sec;
}

std::string fit_cell(const FitResult& f, std::string_view singular, std::string_view plural) {
  if (f.value == 0) return "nothing fits";
  return fmt::format("{}{}", f.at_limit ? ">= " : "", counted(f.value, singular, plural));
}

Section fit_section(const Scenario& s) {
  const StepAnalysis& step = *s.step;
  Section sec;
  sec.title = fmt::format("What fits -- {}", scenario_label(s.name));
  TextTable t({{"machine"},
               {fmt::format("micro-batch at s={}", step.setup.seq_len), Align::kRight},
               {fmt::format("sequence at b={}", step.setup.micro_batch), Align::kRight}});
  for (std::size_t i = 0; i < step.fits.size() && i < s.machines.size(); ++i) {
    t.add_row({machine_label(s.machines[i]),
               fit_cell(step.fits[i].micro_batch, "sequence", "sequences"),
               fit_cell(step.fits[i].seq_len, "token", "tokens")});
  }
  sec.table(std::move(t));
  sec.text(
      "Largest values whose peak memory fits each device; sequences in multiples of 128 up to the "
      "model's context length (>= : the limit itself fits; nothing fits: the model states and "
      "the smallest step already exceed the device).");
  return sec;
}

}  // namespace

std::vector<Section> step_sections(const Estimate& e) {
  std::vector<Section> out;
  if (!e.primary.step) return out;
  const StepAnalysis& step = *e.primary.step;
  out.push_back(activations_section(step));
  out.push_back(peak_section(step));
  out.push_back(flops_section(step));
  if (!step.fits.empty()) out.push_back(fit_section(e.primary));
  if (e.lora_alternative && e.lora_alternative->step && !e.lora_alternative->step->fits.empty()) {
    out.push_back(fit_section(*e.lora_alternative));
  }
  return out;
}

std::vector<Section> explain_sections(const Estimate& e) {
  std::vector<Section> out;
  if (!e.primary.explain) return out;
  const Explanation x = e.primary.step ? explain(e.primary.step->activations, e.primary.step->flops,
                                                 e.primary.step->peak)
                                       : explain_states(e.primary, e.job.tokens);
  Section sec;
  sec.title = fmt::format("Explain -- {}", scenario_label(e.primary.name));
  std::string symbols;
  for (const Symbol& sym : x.symbols) {
    if (!symbols.empty()) symbols += ", ";
    symbols += fmt::format("{} = {:g} ({})", sym.name, sym.value, sym.meaning);
  }
  sec.text("symbols: " + symbols);
  TextTable t({{"section"}, {"term"}, {"formula"}, {"value", Align::kRight}, {"unit"}});
  for (const ExplainLine& l : x.lines) {
    t.add_row({l.section, l.name, l.formula, fmt::format("{:.6g}", l.value), l.unit});
  }
  sec.table(std::move(t));
  out.push_back(std::move(sec));
  return out;
}

}  // namespace tb::report
