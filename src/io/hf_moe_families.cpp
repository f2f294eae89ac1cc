// config.json readers of DeepSeek-V2/V3, gpt-oss, Qwen2-MoE and Qwen3-MoE (hf_moe_families.hpp).
#include "hf_moe_families.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace tb::io {

using Fields = FieldReader<JsonSource>;

ModelArchitecture read_untied_dimensions(Fields& f, const char* model_type,
                                         std::int64_t max_positions) {
  ModelArchitecture a;
  a.model_type = model_type;
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", max_positions);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  return a;
}

// DeepseekV3Config defaults (configuration_deepseek_v3.py): q_lora_rank 1536, kv_lora_rank
// 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, n_routed_experts 256,
// num_experts_per_tok 8, n_shared_experts 1, moe_intermediate_size 2048, first_k_dense_replace
// 3, tie_word_embeddings False. DeepSeek's own config adds moe_layer_freq (MoE where
// layer % freq == 0), topk_method ("noaux_tc" carries e_score_correction_bias) and
// num_nextn_predict_layers (MTP modules; transformers ignores them, so 0 when absent).
// DeepseekV2Config (configuration_deepseek_v2.py; DeepSeek-V2, V2-Lite, Coder-V2) has the same
// layers with other defaults: topk_method "greedy" (no e_score_correction_bias),
// first_k_dense_replace 0, n_routed_experts and n_shared_experts None (no MoE, no shared
// expert), num_experts_per_tok None, moe_intermediate_size 1407.
ModelArchitecture read_deepseek(Fields& f, const std::string& model_type) {
  if (model_type == "deepseek_v2") {
    return read_latent_moe(f, {"deepseek_v2", 1536, 512, 128, 64, 128, 0, 0, 1407, 0, 0, "greedy"});
  }
  return read_latent_moe(f,
                         {"deepseek_v3", 1536, 512, 128, 64, 128, 256, 8, 2048, 1, 3, "noaux_tc"});
}

ModelArchitecture read_latent_moe(Fields& f, const LatentMoeDefaults& d) {
  ModelArchitecture a = read_untied_dimensions(f, d.model_type, 0);
  a.mlp.intermediate = f.required("intermediate_size");
  a.mlp.activation = f.text("hidden_act", "silu");
  AttentionSpec& at = a.attention;
  at.num_heads = f.required("num_attention_heads");
  at.num_kv_heads = f.optional("num_key_value_heads", at.num_heads);
  at.qkv_bias = at.output_bias = f.flag("attention_bias", false);
  LatentAttentionSpec mla;
  // q_lora_rank: absent -> the class default; null -> no query compression (V2-Lite).
  mla.q_lora_rank = f.present("q_lora_rank") ? f.optional("q_lora_rank", 0) : d.q_lora_rank;
  mla.kv_lora_rank = f.optional("kv_lora_rank", d.kv_lora_rank);
  mla.qk_nope_head_dim = f.optional("qk_nope_head_dim", d.qk_nope_head_dim);
  mla.qk_rope_head_dim = f.optional("qk_rope_head_dim", d.qk_rope_head_dim);
  mla.v_head_dim = f.optional("v_head_dim", d.v_head_dim);
  at.latent = mla;

  const std::int64_t routed = f.optional("n_routed_experts", d.routed_experts);
  if (routed > 0) {
    MoeSpec m;
    m.num_experts = routed;
    // A class default of None (DeepseekV2Config): a config with routed experts names it.
    m.experts_per_token = d.experts_per_token == 0
                              ? f.required("num_experts_per_tok")
                              : f.optional("num_experts_per_tok", d.experts_per_token);
    m.expert_intermediate = f.optional("moe_intermediate_size", d.moe_intermediate);
    m.num_shared_experts = f.optional("n_shared_experts", d.shared_experts);
    m.shared_intermediate = m.num_shared_experts * m.expert_intermediate;
    m.first_dense_layers = f.optional("first_k_dense_replace", d.first_dense_layers);
    m.layer_freq = f.optional("moe_layer_freq", 1);
    m.router_score_bias =
        d.topk_method == nullptr || f.text("topk_method", d.topk_method) == "noaux_tc";
    a.moe = m;
  }
  a.mtp_layers = f.optional("num_nextn_predict_layers", 0);
  return a;
}

namespace {

// gpt-oss's layer_types: "sliding_attention" and "full_attention" alternating from a sliding
// first layer (GptOssConfig's default), which global_every = 2 writes; every layer full is no
// window. Another order is not modelled.
void read_gpt_oss_layer_types(Fields& f, ModelArchitecture& a) {
  AttentionSpec& at = a.attention;
  at.sliding_window = f.optional("sliding_window", 128);
  at.global_every = 2;
  const auto* types = f.find("layer_types");
  if (types == nullptr) return;
  if (!types->is_array() || std::ssize(*types) != a.num_layers) {
    f.fail(fmt::format("{}: must be a list of num_hidden_layers ({}) strings",
                       f.name("layer_types"), a.num_layers));
    return;
  }
  bool alternating = true;
  bool all_full = true;
  for (std::int64_t i = 0; i < a.num_layers; ++i) {
    const auto& t = (*types)[static_cast<std::size_t>(i)];
    const bool full = t == "full_attention";
    if (!full && t != "sliding_attention") {
      f.fail(fmt::format("{}: entry {} must be \"sliding_attention\" or \"full_attention\"",
                         f.name("layer_types"), i));
      return;
    }
    alternating = alternating && full == ((i + 1) % 2 == 0);
    all_full = all_full && full;
  }
  if (all_full) {
    at.sliding_window = 0;
  } else if (!alternating) {
    f.fail(
        fmt::format("{}: only sliding and full layers alternating from a sliding first "
                    "layer (gpt-oss's own) or all full layers are modelled",
                    f.name("layer_types")));
  }
}

}  // namespace

// GptOssConfig (configuration_gpt_oss.py; gpt-oss model card, arXiv 2508.10925, sec. 2.1):
// num_local_experts 128, num_experts_per_tok 4, head_dim 64, num_key_value_heads 8,
// sliding_window 128, attention_bias True, tie_word_embeddings False. GptOssDecoderLayer: q/k/v/o
// biased, a learned sink logit per head, RMSNorms; GptOssMLP: a biased router (GptOssTopKRouter)
// and biased experts of intermediate_size width with a fused gate_up_proj and a clamped SwiGLU
// (swiglu_limit). The released checkpoints store the experts in MXFP4; trainers dequantize them
// to bf16 (axolotl's Mxfp4Config(dequantize=True)), as counted here.
ModelArchitecture read_gpt_oss(Fields& f) {
  ModelArchitecture a = read_untied_dimensions(f, "gpt_oss", 131072);
  AttentionSpec& at = a.attention;
  at.num_heads = f.required("num_attention_heads");
  at.num_kv_heads = f.optional("num_key_value_heads", 8);
  at.head_dim = f.optional("head_dim", 64);
  at.qkv_bias = at.output_bias = f.flag("attention_bias", true);
  at.sinks = true;
  MoeSpec m;
  m.num_experts = f.optional("num_local_experts", 128);
  m.experts_per_token = f.optional("num_experts_per_tok", 4);
  m.expert_intermediate = f.required("intermediate_size");
  m.router_bias = m.expert_bias = true;
  a.moe = m;
  a.mlp.activation = f.text("hidden_act", "silu");
  read_gpt_oss_layer_types(f, a);
  return a;
}

// Qwen3MoeConfig: num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768,
// decoder_sparse_step 1, mlp_only_layers []; no head_dim default in the class, so the modeling
// file's hidden / heads applies; q_norm/k_norm as in Qwen3; no shared expert.
// Qwen2MoeConfig (Qwen1.5-MoE; modeling_qwen2_moe.py): num_experts 60, num_experts_per_tok 4,
// moe_intermediate_size 1408, intermediate_size 5632; q/k/v biased, o not (Qwen2MoeAttention);
// beside the routed experts one shared expert of shared_expert_intermediate_size (5632) whose
// output a sigmoid shared_expert_gate (hidden -> 1, no bias) scales.
ModelArchitecture read_qwen_moe(Fields& f, const std::string& model_type) {
  const bool qwen2 = model_type == "qwen2_moe";
  ModelArchitecture a = read_untied_dimensions(f, qwen2 ? "qwen2_moe" : "qwen3_moe", 0);
  read_attention_heads(f, a);
  if (qwen2) {
    a.attention.qkv_bias = true;
    a.attention.output_bias = false;
  } else {
    a.attention.qkv_bias = a.attention.output_bias = f.flag("attention_bias", false);
    a.attention.qk_norm = true;
  }
  MoeSpec m;
  m.num_experts = f.optional("num_experts", qwen2 ? 60 : 128);
  m.experts_per_token = f.optional("num_experts_per_tok", qwen2 ? 4 : 8);
  m.expert_intermediate = f.optional("moe_intermediate_size", qwen2 ? 1408 : 768);
  if (qwen2) {
    m.shared_intermediate = f.optional("shared_expert_intermediate_size", 5632);
    m.num_shared_experts = m.shared_intermediate > 0 ? 1 : 0;
    m.shared_expert_gate = m.shared_intermediate > 0;
  }
  m.layer_step = f.optional("decoder_sparse_step", 1);
  m.dense_layers = f.integer_list("mlp_only_layers");
  // A set, as the decoder layer reads it (layer_idx not in mlp_only_layers).
  std::sort(m.dense_layers.begin(), m.dense_layers.end());
  m.dense_layers.erase(std::unique(m.dense_layers.begin(), m.dense_layers.end()),
                       m.dense_layers.end());
  // The sparse block only when num_experts > 0.
  if (m.num_experts != 0) a.moe = m;
  // The dense MLP width matters only for mlp_only_layers / sparse-step layers.
  a.mlp.intermediate = f.optional("intermediate_size", qwen2 ? 5632 : 6144);
  a.mlp.activation = f.text("hidden_act", "silu");
  return a;
}

}  // namespace tb::io
