// JSON of the step analysis: base units, the unit in the key name.
#include "step_json.hpp"

#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/explain.hpp"

namespace tb::report {
namespace {

using nlohmann::ordered_json;

ordered_json phase_json(const PhaseMemory& m) {
  return {{"at", moment_text(m)},
          {"resident_bytes", m.resident.value()},
          {"gradients_bytes", m.gradients.value()},
          {"activations_bytes", m.activations.value()},
          {"transient_bytes", m.transient.value()},
          {"total_bytes", m.total.value()}};
}

ordered_json terms_by_module(const std::vector<ActivationTerm>& terms) {
  ordered_json modules = ordered_json::object();
  for (const ActivationTerm& t : terms) {
    const double prior = modules.contains(t.module) ? modules[t.module].get<double>() : 0.0;
    modules[t.module] = prior + t.bytes().value();
  }
  return modules;
}

ordered_json activations_json(const StepAnalysis& step) {
  const ActivationEstimate& a = step.activations;
  ordered_json kinds = ordered_json::array();
  for (const LayerActivations& k : a.layer_kinds) {
    kinds.push_back({{"kind", k.moe ? "moe" : "dense"},
                     {"layers", k.layers},
                     {"recomputed", k.recomputed},
                     {"per_layer_bytes", k.per_layer.value()},
                     {"modules_bytes", terms_by_module(k.terms)},
                     {"recompute_transient_bytes", k.recompute_transient.value()},
                     {"backward_workspace_bytes", k.backward_workspace.value()}});
  }
  ordered_json head = ordered_json::object();
  for (const ActivationTerm& t : a.head) head[t.name + "_bytes"] = t.bytes().value();
  return {{"dtype", enum_name(step.activation_dtype)},
          {"saved_bytes", a.saved.value()},
          {"layers_bytes", a.layers_total.value()},
          {"head_bytes", a.head_total.value()},
          {"logits_gradient_bytes", a.logits_gradient.value()},
          {"layer_kinds", kinds},
          {"head", head}};
}

ordered_json fit_json(const FitResult& f) {
  return {{"value", f.value}, {"at_limit", f.at_limit}, {"limit", f.limit}};
}

}  // namespace

void add_step_json(const Scenario& s, ordered_json& j) {
  if (!s.step) return;
  const StepAnalysis& step = *s.step;
  ordered_json& memory = j["memory"];
  memory["peak_bytes"] = step.peak.peak.value();
  memory["peak_phase"] = enum_name(step.peak.peak_phase);
  ordered_json phases = ordered_json::object();
  for (const PhaseMemory& m : step.peak.phases) phases[enum_name(m.phase)] = phase_json(m);
  memory["phases"] = phases;
  memory["activations"] = activations_json(step);

  ordered_json& compute = j["compute"];
  compute["model_flops_per_token"] = step.flops.model_per_token;
  compute["hfu_flops_per_token"] = step.flops.hardware_per_token;
  compute["forward_flops_per_token"] = step.flops.forward_per_token;
  compute["reference_6n_flops_per_token"] = step.flops.reference_6n;
  ordered_json terms = ordered_json::object();
  for (const FlopsTerm& t : step.flops.terms) {
    terms[t.name] = {{"forward_flops_per_token", t.forward},
                     {"model_flops_per_token", t.model},
                     {"recompute_flops_per_token", t.recompute},
                     {"formula", t.formula}};
  }
  compute["terms"] = terms;

  if (!step.fits.empty()) {
    ordered_json& machines = j["machines"];
    for (std::size_t i = 0; i < step.fits.size() && i < machines.size(); ++i) {
      machines[i]["what_fits"] = {{"micro_batch", fit_json(step.fits[i].micro_batch)},
                                  {"seq_len", fit_json(step.fits[i].seq_len)}};
    }
  }
  if (!step.notes.empty()) j["notes"] = note_texts(step.notes);
}

void add_setup_json(const Estimate& e, ordered_json& root) {
  if (!e.primary.step) {
    if (e.primary.explain)
      root["explain"] = explanation_json(explain_states(e.primary, e.job.tokens));
    return;
  }
  const StepAnalysis& step = *e.primary.step;
  const TrainingSetup& s = step.setup;
  root["setup"] = {{"micro_batch", s.micro_batch},
                   {"seq_len", s.seq_len},
                   {"attention", enum_name(s.attention)},
                   {"recompute", enum_name(s.recompute)},
                   {"recompute_layers", s.recompute_layers >= 0 ? ordered_json(s.recompute_layers)
                                                                : ordered_json(nullptr)},
                   {"activation_dtype", enum_name(step.activation_dtype)},
                   {"dropout", s.dropout},
                   {"grad_accumulation", s.grad_accumulation},
                   {"causal_flops", s.causal_flops}};
  // A vision-language job's images and the tokens they became (docs/vision.md).
  if (s.images.encoder_sequences() > 0) {
    const ImageInput& im = s.images;
    root["setup"]["images"] = {{"count", im.count},
                               {"tokens_per_image", im.tokens},
                               {"encoder_patches_per_image", im.patches},
                               {"pan_and_scan_crops_per_image", im.crops},
                               {"text_tokens", im.text_tokens},
                               {"image_tokens", im.count * im.tokens},
                               {"video_frames", im.video_frames},
                               {"video_temporal_patches", im.video_slices},
                               {"encoder_patches_per_temporal_patch", im.video_patches},
                               {"video_tokens", im.video_tokens},
                               {"train_vision_tower", im.train_encoder}};
  }
  if (!step.explain) return;
  root["explain"] = explanation_json(explain(step.activations, step.flops, step.peak));
}

ordered_json explanation_json(const Explanation& x) {
  ordered_json symbols = ordered_json::object();
  for (const Symbol& sym : x.symbols) {
    symbols[sym.name] = {{"value", sym.value}, {"meaning", sym.meaning}};
  }
  ordered_json lines = ordered_json::array();
  for (const ExplainLine& l : x.lines) {
    lines.push_back({{"section", l.section},
                     {"name", l.name},
                     {"formula", l.formula},
                     {"value", l.value},
                     {"unit", l.unit},
                     {"note", l.note}});
  }
  return {{"symbols", symbols}, {"terms", lines}};
}

}  // namespace tb::report
