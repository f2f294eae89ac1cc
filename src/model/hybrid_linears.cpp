// The linears of the Mamba-2 hybrids' own modules (docs/models.md, "Mamba-2 hybrids"): the mixer's
// projections and Granite 4.0's MoE block, for linear_layers.cpp's decoder layer.
#include "linear_builder.hpp"

namespace tb::detail {

// A Mamba-2 mixer's projections under mamba. (FalconH1Mixer, BambaMixer,
// GraniteMoeHybridMambaLayer): in_proj (hidden -> z and x, B and C, dt) and out_proj.
void mamba2_mixer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const LinearAttentionSpec& g = *a.linear_attention;
  const std::int64_t inner = g.value_heads * g.value_head_dim;
  const std::int64_t groups = g.key_heads * g.key_head_dim;
  b.add("in_proj", "mamba.in_proj", LinearKind::kQkv, LinearPlace::kAttention, a.hidden,
        2 * inner + 2 * groups + g.value_heads, g.in_proj_bias);
  b.add("out_proj", "mamba.out_proj", LinearKind::kOutput, LinearPlace::kAttention, inner, a.hidden,
        g.out_proj_bias);
}

// Granite 4.0's hybrids (modeling_granitemoehybrid.py GraniteMoeHybridMoE): block_sparse_moe's
// router.layer (an nn.Linear without bias) and GraniteMoeHybridParallelExperts' input_linear
// (every expert's gate and up, [experts, 2 x width, hidden]) and output_linear, 3-D parameters,
// not nn.Linear; beside them in every layer, shared_mlp (GraniteMoeHybridMLP) of the shared width.
void granite_moe_block(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const MoeSpec& m = *a.moe;
  const std::int64_t w = m.expert_intermediate;
  b.add("layer", "block_sparse_moe.router.layer", LinearKind::kRouter, LinearPlace::kRouter,
        a.hidden, m.num_experts, false);
  b.add("input_linear", "block_sparse_moe.input_linear", LinearKind::kGateUp,
        LinearPlace::kRoutedExpert, a.hidden, 2 * w, false, m.num_experts, m.experts_per_token);
  b.add("output_linear", "block_sparse_moe.output_linear", LinearKind::kDown,
        LinearPlace::kRoutedExpert, w, a.hidden, false, m.num_experts, m.experts_per_token);
  b.out[b.out.size() - 2].module = false;
  b.out.back().module = false;
  if (m.shared_intermediate == 0) return;
  b.add("input_linear", "shared_mlp.input_linear", LinearKind::kGateUp, LinearPlace::kSharedExpert,
        a.hidden, 2 * m.shared_intermediate, false);
  b.add("output_linear", "shared_mlp.output_linear", LinearKind::kDown, LinearPlace::kSharedExpert,
        m.shared_intermediate, a.hidden, false);
}

}  // namespace tb::detail
