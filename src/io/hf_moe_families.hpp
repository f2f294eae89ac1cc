// config.json readers of the mixture-of-experts families whose layers differ from Llama's
// (latent attention, biased experts, attention sinks). Each mirrors its transformers config class.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// The dimensions every config class here names alike, with tie_word_embeddings False by default
// and max_position_embeddings `max_positions` when absent.
ModelArchitecture read_untied_dimensions(FieldReader<JsonSource>& f, const char* model_type,
                                         std::int64_t max_positions);
// The defaults of a config class whose layers are DeepSeek's: latent attention, a routed
// mixture with shared experts after first_k_dense_replace dense layers.
struct LatentMoeDefaults {
  const char* model_type;
  std::int64_t q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
  std::int64_t routed_experts;     // 0: None (no MoE unless the config names them)
  std::int64_t experts_per_token;  // 0: None (required with routed experts)
  std::int64_t moe_intermediate, shared_experts, first_dense_layers;
  // topk_method's default; "noaux_tc" carries e_score_correction_bias. nullptr: the router
  // always has it (Glm4MoeTopkRouter).
  const char* topk_method;
};
ModelArchitecture read_latent_moe(FieldReader<JsonSource>& f, const LatentMoeDefaults& d);
// DeepSeek-V3 / R1 ("deepseek_v3") and DeepSeek-V2 ("deepseek_v2"): the same layers, each
// config class's defaults.
ModelArchitecture read_deepseek(FieldReader<JsonSource>& f, const std::string& model_type);
// Qwen2-MoE (Qwen1.5-MoE) and Qwen3-MoE, `model_type` "qwen2_moe" or "qwen3_moe".
ModelArchitecture read_qwen_moe(FieldReader<JsonSource>& f, const std::string& model_type);
// What differs between the Llama-like config classes (hf_config.cpp).
struct Family {
  bool tie_default{false};
  std::optional<std::int64_t> head_dim_default;  // nullopt: hidden / heads
  std::int64_t max_positions_default{0};         // max_position_embeddings when absent
};
// The fields Llama-style configs share (LlamaConfig and its descendants; hf_config.cpp).
ModelArchitecture read_llama_like(FieldReader<JsonSource>& f, const std::string& model_type,
                                  const Family& family);
// The attention heads as the Llama-like config classes read them (hf_config.cpp): head_dim the
// config's, else head_dim_default, else hidden / heads.
void read_attention_heads(FieldReader<JsonSource>& f, ModelArchitecture& a,
                          std::optional<std::int64_t> head_dim_default = std::nullopt);
ModelArchitecture read_gpt_oss(FieldReader<JsonSource>& f);

}  // namespace tb::io
