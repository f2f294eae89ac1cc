// FLOPs per token, one term per group of GEMMs plus the attention products.
#include "trainbudget/eval/arch_flops.hpp"

#include <fmt/format.h>

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

struct Group {
  const char* name;
  LinearPlace place;
  const char* formula;
};

// The decoder's GEMMs by where they sit; routed experts count their active copies only.
constexpr Group kGroups[] = {
    {"attention_projections", LinearPlace::kAttention, "2*sum(in*out) of q/k/v/o projections*L"},
    {"mlp", LinearPlace::kDenseMlp, "2*sum(in*out) of the dense MLP*L_dense"},
    {"routed_experts", LinearPlace::kRoutedExpert, "2*k*sum(in*out) of one expert*L_moe"},
    {"shared_experts", LinearPlace::kSharedExpert, "2*sum(in*out) of the shared experts*L_moe"},
    {"router", LinearPlace::kRouter, "2*h*E*L_moe"},
};

// Multiply-adds per token of the linears at `place`: in*out per active copy per layer.
double macs_at(const std::vector<LinearLayer>& linears, LinearPlace place) {
  double macs = 0.0;
  for (const LinearLayer& l : linears) {
    if (l.place != place) continue;
    macs += static_cast<double>(l.in_features) * static_cast<double>(l.out_features) *
            static_cast<double>(l.active_copies) * static_cast<double>(l.layers);
  }
  return macs;
}

// Keys one query is scored against, on average, in a layer whose attention spans `span` tokens
// of an s-token sequence. Full count: span (= s without a sliding window). Causal: query t sees
// min(t, span) keys, (span(span + 1)/2 + (s - span) span) / s on average ((s + 1)/2 for
// span = s).
double keys_per_query(double s, double span, bool causal) {
  if (!causal) return span;
  return (span * (span + 1.0) / 2.0 + (s - span) * span) / s;
}

// Per token and layer, QK^T takes a*d multiply-adds per key and AV a*d_v, over the keys the
// query sees (keys_per_query, with the layer's sliding window where it has one).
double attention_forward(const ModelArchitecture& arch, const FlopsSetup& setup,
                         std::string& formula) {
  const AttentionSpec& at = arch.attention;
  const double a = static_cast<double>(at.num_heads);
  double d = static_cast<double>(at.head_dim);
  double d_v = d;
  if (at.latent) {
    d = static_cast<double>(at.latent->qk_nope_head_dim + at.latent->qk_rope_head_dim);
    d_v = static_cast<double>(at.latent->v_head_dim);
  }
  const double s = static_cast<double>(setup.seq_len);
  double keys = 0.0;
  bool windowed = false;
  for (std::int64_t layer = 0; layer < arch.num_layers; ++layer) {
    const auto span = static_cast<double>(attention_span(arch, layer, setup.seq_len));
    windowed = windowed || span < s;
    keys += keys_per_query(s, span, setup.causal);
  }
  if (windowed) {
    formula = setup.causal ? "2*a*(d+d_v)*sum over layers(mean min(t, span))"
                           : "2*a*(d+d_v)*sum over layers(min(s, window))";
  } else {
    formula = setup.causal ? "2*a*(s+1)/2*(d+d_v)*L" : "2*a*s*(d+d_v)*L";
  }
  return 2.0 * a * keys * (d + d_v);
}

// Extra forward work the hardware runs for the attention products: FlashAttention's backward
// recomputes QK^T (Dao 2023, FlashAttention-2, sec. 4.1: backward = 2.5x forward, against 2x
// for a stored-probabilities backward), and selective recomputation reruns the whole core
// forward (Korthikanti et al. 2022, sec. 5).
double attention_recompute(const FlopsSetup& setup, double forward) {
  double extra = 0.0;
  if (setup.attention == AttentionImpl::kFlash) extra += 0.5 * forward;
  if (setup.recompute != Recompute::kNone) extra += forward;  // selective, and full's rerun
  return extra;
}

ArchFlops build(const ModelArchitecture& arch, const FlopsSetup& setup, bool frozen_base,
                const std::vector<AdapterShape>& adapters) {
  ArchFlops out;
  const std::vector<LinearLayer> linears = model_linears(arch);
  // Frozen GEMMs: activation gradient only (backward = 1x forward); trained: 2x.
  const double gemm_backward = frozen_base ? 1.0 : 2.0;
  const bool full_recompute = setup.recompute == Recompute::kFull;
  const auto add = [&](std::string name, std::string formula, double forward, double backward,
                       double recompute) {
    if (forward == 0.0) return;
    out.terms.push_back({std::move(name), std::move(formula), forward, backward,
                         forward * (1.0 + backward), recompute});
  };
  for (const Group& g : kGroups) {
    const double forward = 2.0 * macs_at(linears, g.place);
    add(g.name, g.formula, forward, gemm_backward, full_recompute ? forward : 0.0);
  }
  std::string attention_formula;
  const double attention = attention_forward(arch, setup, attention_formula);
  add("attention_scores", attention_formula, attention, 2.0, attention_recompute(setup, attention));
  // Full recomputation reruns the decoder layers only, not the LM head (Narayanan et al. 2021,
  // sec. 5.1: the head keeps the 6hV of one forward and backward).
  add("lm_head", "2*h*V", 2.0 * macs_at(linears, LinearPlace::kHead), gemm_backward, 0.0);
  double adapter_macs = 0.0;
  for (const AdapterShape& a : adapters) {
    adapter_macs += static_cast<double>(a.params()) * static_cast<double>(a.active());
  }
  add("adapters", "2*sum(r*(in+out)*n_active)", 2.0 * adapter_macs, 2.0,
      full_recompute ? 2.0 * adapter_macs : 0.0);
  for (const FlopsTerm& t : out.terms) {
    out.forward_per_token += t.forward;
    out.model_per_token += t.model;
    out.hardware_per_token += t.model + t.recompute;
  }
  const ParamCounts counts = count_params(arch);
  out.reference_6n = 6.0 * static_cast<double>(counts.active);
  out.reference_formula = "6 x N_active";
  const AttentionSpec& at = arch.attention;
  out.symbols = {
      {"N_active", static_cast<double>(counts.active), "parameters a token uses"},
      {"L", static_cast<double>(arch.num_layers), "decoder layers"},
      {"s", static_cast<double>(setup.seq_len), "sequence length"},
      {"h", static_cast<double>(arch.hidden), "hidden size"},
      {"a", static_cast<double>(at.num_heads), "attention heads"},
      {"d",
       static_cast<double>(at.latent ? at.latent->qk_nope_head_dim + at.latent->qk_rope_head_dim
                                     : at.head_dim),
       "query/key head dimension"},
      {"d_v", static_cast<double>(at.latent ? at.latent->v_head_dim : at.head_dim),
       "value head dimension"},
      {"V", static_cast<double>(arch.vocab), "vocabulary"},
  };
  if (arch.moe) {
    out.symbols.push_back({"E", static_cast<double>(arch.moe->num_experts), "routed experts"});
    out.symbols.push_back(
        {"k", static_cast<double>(arch.moe->experts_per_token), "experts per token"});
    out.symbols.push_back({"L_moe", static_cast<double>(moe_layer_count(arch)), "MoE layers"});
  }
  return out;
}

}  // namespace

ArchFlops full_training_flops(const ModelArchitecture& arch, const FlopsSetup& setup) {
  return build(arch, setup, false, {});
}

ArchFlops adapter_training_flops(const ModelArchitecture& arch, const FlopsSetup& setup,
                                 const std::vector<AdapterShape>& adapters) {
  return build(arch, setup, true, adapters);
}

}  // namespace tb
