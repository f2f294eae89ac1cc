// config.json readers of the GLM-4 families (hf_glm.hpp), each mirroring its transformers config
// class and modeling file.
#include "hf_glm.hpp"

#include <fmt/format.h>

#include "hf_moe_families.hpp"

namespace tb::io {

using Fields = FieldReader<JsonSource>;

// Glm4Config (configuration_glm4.py; GLM-4-9B-0414, GLM-4-32B-0414): head_dim 128,
// attention_bias True, tie_word_embeddings False. Glm4Attention (GlmAttention): q/k/v biased by
// attention_bias, o_proj never; Glm4MLP (Phi3MLP): one gate_up_proj and down_proj, no bias;
// Glm4DecoderLayer: input_layernorm, post_self_attn_layernorm, post_attention_layernorm and
// post_mlp_layernorm (four RMSNorms, Gemma 2's sandwich). Rotary positions on
// partial_rotary_factor of each head (no parameter).
ModelArchitecture read_glm4(Fields& f) {
  ModelArchitecture a = read_llama_like(f, "glm4", {false, 128, 131072});
  a.mlp.fused_gate_up = true;
  a.attention.qkv_bias = f.flag("attention_bias", true);
  a.attention.output_bias = false;
  a.norms_per_layer = 4;
  return a;
}

// Glm4MoeConfig (configuration_glm4_moe.py; GLM-4.5, GLM-4.5-Air, GLM-4.6, GLM-4.7): defaults
// intermediate_size 10944, moe_intermediate_size 1408, n_routed_experts 128, num_experts_per_tok
// 8, n_shared_experts 1, first_k_dense_replace 1, attention_bias False, use_qk_norm False, tie
// False. Glm4MoeAttention: q/k/v biased by attention_bias, o_proj never, q_norm / k_norm over
// head_dim with use_qk_norm; head_dim is the config's (GLM-4.5: 128, where 5120 / 96 is not
// whole). Glm4MoeMoE: Glm4MoeTopkRouter (n_routed x hidden, with the e_score_correction_bias the
// checkpoints store), the routed experts and one shared MLP of n_shared x moe_intermediate_size.
// num_nextn_predict_layers: the checkpoints' MTP layers (DeepSeek-V3's module, which
// transformers skips on load).
ModelArchitecture read_glm4_moe(Fields& f) {
  ModelArchitecture a = read_untied_dimensions(f, "glm4_moe", 131072);
  a.mlp.intermediate = f.optional("intermediate_size", 10944);
  a.mlp.activation = f.text("hidden_act", "silu");
  read_attention_heads(f, a);
  a.attention.qkv_bias = f.flag("attention_bias", false);
  a.attention.output_bias = false;
  a.attention.qk_norm = f.flag("use_qk_norm", false);
  MoeSpec m;
  m.num_experts = f.optional("n_routed_experts", 128);
  m.experts_per_token = f.optional("num_experts_per_tok", 8);
  m.expert_intermediate = f.optional("moe_intermediate_size", 1408);
  m.num_shared_experts = f.optional("n_shared_experts", 1);
  m.shared_intermediate = m.num_shared_experts * m.expert_intermediate;
  m.first_dense_layers = f.optional("first_k_dense_replace", 1);
  m.router_score_bias = true;
  a.moe = m;
  a.mtp_layers = f.optional("num_nextn_predict_layers", 0);
  return a;
}

// Glm4MoeLiteConfig (modular_glm4_moe_lite.py; GLM-4.7-Flash): DeepSeek-V3's latent attention
// (DeepseekV3Attention) in Glm4Moe's layers. Defaults q_lora_rank 768, kv_lora_rank 512,
// qk_nope_head_dim 192, qk_rope_head_dim 64, v_head_dim 256, n_routed_experts 64,
// num_experts_per_tok 4, moe_intermediate_size 1536, n_shared_experts 1; mlp_layer_types
// ("dense" / "sparse" per layer, default one dense layer first) says which layers are MoE.
ModelArchitecture read_glm4_moe_lite(Fields& f) {
  ModelArchitecture a =
      read_latent_moe(f, {"glm4_moe_lite", 768, 512, 192, 64, 256, 64, 4, 1536, 1, 1, nullptr});
  const auto* types = f.find("mlp_layer_types");
  if (types == nullptr || !a.moe) return a;
  if (!types->is_array() || std::ssize(*types) != a.num_layers) {
    f.fail(fmt::format("{}: must be a list of num_hidden_layers ({}) strings",
                       f.name("mlp_layer_types"), a.num_layers));
    return a;
  }
  a.moe->first_dense_layers = 0;
  for (std::int64_t i = 0; i < a.num_layers; ++i) {
    const auto& t = (*types)[static_cast<std::size_t>(i)];
    if (t == "dense") {
      a.moe->dense_layers.push_back(i);
    } else if (t != "sparse") {
      f.fail(fmt::format("{}: entry {} must be \"dense\" or \"sparse\"", f.name("mlp_layer_types"),
                         i));
      return a;
    }
  }
  return a;
}

}  // namespace tb::io
