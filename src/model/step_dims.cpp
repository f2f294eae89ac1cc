// The model's widths as the activation and FLOP formulas' letters.
#include "trainbudget/model/step_dims.hpp"

namespace tb {

StepDims shape_dims(const ModelArchitecture& arch) {
  const AttentionSpec& at = arch.attention;
  StepDims d;
  d.h = static_cast<double>(arch.hidden);
  d.a = static_cast<double>(at.num_heads);
  if (at.latent) {
    // MLA: every head has its own keys and values once the latent is expanded.
    d.a_kv = d.a;
    d.d = static_cast<double>(at.latent->qk_nope_head_dim + at.latent->qk_rope_head_dim);
    d.d_v = static_cast<double>(at.latent->v_head_dim);
    d.r_q = static_cast<double>(at.latent->q_lora_rank);
    d.r_kv = static_cast<double>(at.latent->kv_lora_rank);
    d.latent = true;
    d.q_latent = at.latent->q_lora_rank > 0;
  } else {
    d.a_kv = static_cast<double>(at.num_kv_heads);
    d.d = static_cast<double>(at.head_dim);
    d.d_v = d.d;
    d.qk_norm = at.qk_norm;
  }
  d.output_gate = at.output_gate;
  if (arch.linear_attention && arch.num_layers > 0) {
    const LinearAttentionSpec& g = *arch.linear_attention;
    d.linear_share = static_cast<double>(linear_attention_layer_count(arch)) /
                     static_cast<double>(arch.num_layers);
    d.attention_share =
        static_cast<double>(attention_layer_count(arch)) / static_cast<double>(arch.num_layers);
    d.g_mixer = g.mixer;
    d.g_kh = static_cast<double>(g.key_heads);
    d.g_vh = static_cast<double>(g.value_heads);
    d.g_dk = static_cast<double>(g.key_head_dim);
    d.g_dv = static_cast<double>(g.value_head_dim);
    d.g_conv = static_cast<double>(g.conv_kernel);
  }
  d.i = static_cast<double>(arch.mlp.intermediate);
  // The dense layers' share with an MLP (the MoE layers all have their block: with_step).
  const std::int64_t dense_layers = arch.num_layers - moe_layer_count(arch);
  if (dense_layers > 0) {
    d.mlp_share = static_cast<double>(dense_layers - arch.mlp_free_layers) /
                  static_cast<double>(dense_layers);
  }
  d.V = static_cast<double>(head_width(arch));
  d.L = static_cast<double>(arch.num_layers);
  if (arch.moe) {
    d.E = static_cast<double>(arch.moe->num_experts);
    d.k = static_cast<double>(arch.moe->experts_per_token);
    d.i_e = static_cast<double>(arch.moe->expert_intermediate);
    d.i_s = static_cast<double>(arch.moe->shared_intermediate);
    d.shared_experts = arch.moe->shared_intermediate > 0;
  }
  // Per-token fp32 statistics a norm's backward reads: RMSNorm 1 (rstd), LayerNorm 2 (mean,
  // rstd).
  d.norm_stats = arch.norm.kind == NormKind::kRmsNorm ? 1.0 : 2.0;
  d.gated = arch.mlp.gated;
  d.post_norms = arch.norms_per_layer >= 4;
  d.shared_norm = arch.norms_per_layer == 1;
  return d;
}

}  // namespace tb
