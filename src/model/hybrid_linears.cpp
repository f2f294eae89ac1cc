// The linears of the hybrids' own modules (docs/models.md, "Mamba-2 hybrids", "LFM2"): the
// mixers' projections and Granite 4.0's and LFM2-MoE's blocks, for linear_layers.cpp's layer.
#include "linear_builder.hpp"

namespace tb::detail {

// A Mamba-2 mixer's projections under mamba. (FalconH1Mixer, BambaMixer,
// GraniteMoeHybridMambaLayer): in_proj (hidden -> z and x, B and C, dt) and out_proj.
void mamba2_mixer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const LinearAttentionSpec& g = *a.linear_attention;
  const std::int64_t inner = g.value_heads * g.value_head_dim;
  const std::int64_t groups = g.key_heads * g.key_head_dim;
  // Nemotron-H names every block's sublayer mixer (backbone.layers.{i}.mixer).
  const std::string p = a.model_type == "nemotron_h" ? "mixer." : "mamba.";
  b.add("in_proj", p + "in_proj", LinearKind::kQkv, LinearPlace::kAttention, a.hidden,
        2 * inner + 2 * groups + g.value_heads, g.in_proj_bias);
  b.add("out_proj", p + "out_proj", LinearKind::kOutput, LinearPlace::kAttention, inner, a.hidden,
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

// LFM2's short convolution under conv. (modeling_lfm2.py Lfm2ShortConv): in_proj (hidden -> B, C,
// x) and out_proj, biased with conv_bias.
void short_conv_mixer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const bool bias = a.linear_attention->conv_bias;
  b.add("in_proj", "conv.in_proj", LinearKind::kQkv, LinearPlace::kAttention, a.hidden,
        3 * a.hidden, bias);
  b.add("out_proj", "conv.out_proj", LinearKind::kOutput, LinearPlace::kAttention, a.hidden,
        a.hidden, bias);
}

// LFM2-MoE's sparse block (modular_lfm2_moe.py Lfm2MoeSparseMoeBlock): feed_forward.gate, an
// nn.Linear without bias, and the experts fused as 3-D parameters (transformers 5); no shared
// expert.
void lfm2_moe_block(Builder& b) {
  b.add("gate", "feed_forward.gate", LinearKind::kRouter, LinearPlace::kRouter, b.arch.hidden,
        b.arch.moe->num_experts, false);
  const MoeSpec& m = *b.arch.moe;
  b.add("gate_up_proj", "feed_forward.experts.gate_up_proj", LinearKind::kGateUp,
        LinearPlace::kRoutedExpert, b.arch.hidden, 2 * m.expert_intermediate, false, m.num_experts,
        m.experts_per_token);
  b.add("down_proj", "feed_forward.experts.down_proj", LinearKind::kDown,
        LinearPlace::kRoutedExpert, m.expert_intermediate, b.arch.hidden, false, m.num_experts,
        m.experts_per_token);
  b.out[b.out.size() - 2].module = false;
  b.out.back().module = false;
}

// Nemotron 3's MoE block (modeling_nemotron_h.py NemotronHMoE at 008d9e9): mixer.gate, the
// router's weight a parameter (NemotronHTopkRouter, beside its e_score_correction_bias); the
// experts stacked as 3-D parameters (NemotronHExperts: up_proj [E, I, h], down_proj [E, h, I]),
// not gated; mixer.shared_experts, a NemotronHMLP (up_proj, down_proj) of the shared width.
void nemotron_h_moe_block(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const MoeSpec& m = *a.moe;
  b.add("gate", "mixer.gate", LinearKind::kRouter, LinearPlace::kRouter, a.hidden, m.num_experts,
        false);
  b.out.back().module = false;
  b.add("up_proj", "mixer.experts.up_proj", LinearKind::kUp, LinearPlace::kRoutedExpert, a.hidden,
        m.expert_intermediate, m.expert_bias, m.num_experts, m.experts_per_token);
  b.out.back().module = false;
  b.add("down_proj", "mixer.experts.down_proj", LinearKind::kDown, LinearPlace::kRoutedExpert,
        m.expert_intermediate, a.hidden, m.expert_bias, m.num_experts, m.experts_per_token);
  b.out.back().module = false;
  if (m.shared_intermediate > 0) {
    b.add("up_proj", "mixer.shared_experts.up_proj", LinearKind::kUp, LinearPlace::kSharedExpert,
          a.hidden, m.shared_intermediate, false);
    b.add("down_proj", "mixer.shared_experts.down_proj", LinearKind::kDown,
          LinearPlace::kSharedExpert, m.shared_intermediate, a.hidden, false);
  }
}

}  // namespace tb::detail
