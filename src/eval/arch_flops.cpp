// The FLOPs view: the numbers of flop_terms.cpp with each term's name, formula and symbols.
#include "trainbudget/eval/arch_flops.hpp"

#include <fmt/format.h>

#include <array>

#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

// The words of each FlopTerm, in FlopTerm order.
struct TermWords {
  const char* name;
  const char* formula;  // nullptr: depends on the setup (attention_formula)
};
constexpr std::array<TermWords, kFlopTermCount> kWords{{
    {"attention_projections", "2*sum(in*out) of q/k/v/o projections*L"},
    {"mlp", "2*sum(in*out) of the dense MLP*L_dense"},
    {"routed_experts", "2*k*sum(in*out) of one expert*L_moe"},
    {"shared_experts", "2*sum(in*out) of the shared experts*L_moe"},
    {"router", "2*h*E*L_moe"},
    {"attention_scores", nullptr},
    {"linear_attention", "(8*vh*dk*dv + 2*taps*(2*kh*dk+vh*dv))*L_linear"},
    {"lm_head", "2*h*V"},
    {"adapters", "2*sum(r*(in+out)*n_active)"},
}};

const char* attention_formula(bool windowed, bool causal) {
  if (windowed) {
    return causal ? "2*a*(d+d_v)*sum over layers(mean min(t, span))"
                  : "2*a*(d+d_v)*sum over layers(min(s, window))";
  }
  return causal ? "2*a*(s+1)/2*(d+d_v)*L" : "2*a*s*(d+d_v)*L";
}

}  // namespace

ArchFlops describe_flops(const ModelArchitecture& arch, const FlopShape& shape,
                         const FlopsSetup& setup) {
  ArchFlops out;
  const FlopCounts counts = count_flops(shape, setup);
  for (std::size_t i = 0; i < kFlopTermCount; ++i) {
    const FlopTermValue& v = counts.terms[i];
    if (v.forward == 0.0) continue;
    const char* formula = kWords[i].formula != nullptr
                              ? kWords[i].formula
                              : attention_formula(counts.windowed, setup.causal);
    if (static_cast<FlopTerm>(i) == FlopTerm::kLinearAttention && arch.linear_attention &&
        arch.linear_attention->mixer == LinearMixer::kMamba2) {
      formula = "(2*(kh*Q*dk + vh*(Q*dv + 2*dk*dv)) + 2*taps*(2*kh*dk+vh*dv))*L_linear";
    }
    if (static_cast<FlopTerm>(i) == FlopTerm::kLinearAttention && arch.linear_attention &&
        arch.linear_attention->mixer == LinearMixer::kShortConv) {
      formula = "2*taps*h*L_linear";
    }
    out.terms.push_back(
        {kWords[i].name, formula, v.forward, v.backward_factor, v.model, v.recompute});
  }
  out.forward_per_token = counts.forward_per_token;
  out.model_per_token = counts.model_per_token;
  out.hardware_per_token = counts.hardware_per_token;
  out.reference_6n = shape.reference_6n;
  const ParamCounts params = count_params(arch);
  out.reference_formula = "6 x N_active";
  const AttentionSpec& at = arch.attention;
  out.symbols = {
      {"N_active", static_cast<double>(params.active), "parameters a token uses"},
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
      {"V", static_cast<double>(head_width(arch)),
       arch.head_outputs > 0 ? "score head outputs" : "vocabulary"},
  };
  if (arch.moe) {
    out.symbols.push_back({"E", static_cast<double>(arch.moe->num_experts), "routed experts"});
    out.symbols.push_back(
        {"k", static_cast<double>(arch.moe->experts_per_token), "experts per token"});
    out.symbols.push_back({"L_moe", static_cast<double>(moe_layer_count(arch)), "MoE layers"});
  }
  if (arch.linear_attention) {
    const LinearAttentionSpec& g = *arch.linear_attention;
    out.symbols.push_back({"L_linear", static_cast<double>(linear_attention_layer_count(arch)),
                           g.mixer == LinearMixer::kMamba2      ? "Mamba-2 layers"
                           : g.mixer == LinearMixer::kShortConv ? "short-convolution layers"
                                                                : "Gated DeltaNet layers"});
    const bool mamba = g.mixer == LinearMixer::kMamba2;
    out.symbols.push_back({"kh", static_cast<double>(g.key_heads),
                           mamba ? "Mamba-2 groups (B, C)" : "Gated DeltaNet key heads"});
    out.symbols.push_back({"vh", static_cast<double>(g.value_heads),
                           mamba ? "Mamba-2 heads" : "Gated DeltaNet value heads"});
    out.symbols.push_back({"dk", static_cast<double>(g.key_head_dim),
                           mamba ? "the state width (d_state)" : "their key width"});
    out.symbols.push_back({"dv", static_cast<double>(g.value_head_dim),
                           mamba ? "the head width (head_dim)" : "their value width"});
    out.symbols.push_back({"taps", static_cast<double>(g.conv_kernel), "causal conv taps"});
    if (mamba) {
      out.symbols.push_back({"Q", static_cast<double>(g.chunk_size), "SSD chunk length"});
    }
  }
  return out;
}

ArchFlops full_training_flops(const ModelArchitecture& arch, const FlopsSetup& setup) {
  return describe_flops(arch, flop_shape(arch, false, {}), setup);
}

ArchFlops adapter_training_flops(const ModelArchitecture& arch, const FlopsSetup& setup,
                                 const std::vector<AdapterShape>& adapters) {
  return describe_flops(arch, flop_shape(arch, true, adapters), setup);
}

}  // namespace tb
