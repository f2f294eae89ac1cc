// A step's FLOPs per token: the parameter formulas (6N, 4N + 6N_adapter, 2N + 4N_trained) and,
// with an architecture, the counted model and hardware FLOPs under recomputation.
#include "step_flops.hpp"

#include <algorithm>
#include <optional>

namespace tb {

// The coefficients are FLOPs per parameter per token; the one place parameters become FLOPs.
FlopsPerToken flops_per_token_full(Params params) { return FlopsPerToken{6.0 * params.value()}; }

FlopsPerToken flops_per_token_lora(Params base_params, Params adapter_params) {
  return FlopsPerToken{4.0 * base_params.value() + 6.0 * adapter_params.value()};
}

FlopsPerToken flops_per_token_freeze(Params params, Params trained_params) {
  return FlopsPerToken{2.0 * params.value() + 4.0 * trained_params.value()};
}

namespace detail {

void step_flops(const ModelProfile& p, const Layout& l, StepCost& out, EvalMemo* memo) {
  const Params n = p.params_active;
  out.reference_6n = flops_per_token_full(n);
  switch (p.method) {
    case Method::kFull:
      out.flops_per_token = flops_per_token_full(n);
      break;
    case Method::kLora:
    case Method::kQlora:
      out.flops_per_token = flops_per_token_lora(n, p.trainable);
      break;
    case Method::kFreeze:
      out.flops_per_token = flops_per_token_freeze(n, p.trainable);
      break;
  }
  out.hardware_per_token = out.flops_per_token;
  if (!p.has_architecture) return;
  const auto counts = [&](const Layout& at) {
    std::optional<FlopCounts> fresh;  // built only when the memo has none
    const FlopCounts* terms = memo != nullptr ? memo->flops(p, at) : nullptr;
    if (terms != nullptr) return *terms;
    fresh = count_flops(p.flops, FlopsSetup{at.seq_len, at.attention, at.recompute, at.causal_flops,
                                            at.logits_share()});
    if (memo != nullptr) memo->put(p, at, *fresh);
    return *fresh;
  };
  const FlopCounts terms = counts(l);
  // Freeze keeps its parameter formula: the architecture's count assumes every layer trains.
  if (p.method == Method::kFreeze) return;
  out.flops_per_token = FlopsPerToken{terms.model_per_token};
  out.hardware_per_token = FlopsPerToken{terms.hardware_per_token};
  out.reference_6n = FlopsPerToken{p.flops.reference_6n};
  // Block recomputation: the recomputed share of the layers adds its rerun, the rest none.
  const auto layers = static_cast<std::int64_t>(p.layer_is_moe.size());
  if (l.recompute == Recompute::kFull && l.recompute_layers >= 0 && layers > 0) {
    // Each stage recomputes its own first recompute_layers layers (stage_bounds).
    const int pp = std::max(1, l.parallel.pp);
    std::int64_t rerun = 0;
    for (int i = 0; i < pp; ++i) {
      const StageBounds st = stage_bounds(layers, l.parallel, i);
      rerun += l.recomputed_layers(st.end - st.begin);
    }
    Layout kept = l;
    kept.recompute = Recompute::kNone;
    const double none = counts(kept).hardware_per_token;
    const double share = static_cast<double>(rerun) / static_cast<double>(layers);
    out.hardware_per_token = FlopsPerToken{none + share * (terms.hardware_per_token - none)};
  }
}

}  // namespace detail
}  // namespace tb
