// config.json readers of the mixture-of-experts families whose layers differ from Llama's
// (latent attention, biased experts, attention sinks). Each mirrors its transformers config class.
#pragma once

#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// The dimensions every config class here names alike, with tie_word_embeddings False by default
// and max_position_embeddings `max_positions` when absent.
ModelArchitecture read_untied_dimensions(FieldReader<JsonSource>& f, const char* model_type,
                                         std::int64_t max_positions);
// DeepSeek-V3 / R1 ("deepseek_v3") and DeepSeek-V2 ("deepseek_v2"): the same layers, each
// config class's defaults.
ModelArchitecture read_deepseek(FieldReader<JsonSource>& f, const std::string& model_type);
// Qwen2-MoE (Qwen1.5-MoE) and Qwen3-MoE, `model_type` "qwen2_moe" or "qwen3_moe".
ModelArchitecture read_qwen_moe(FieldReader<JsonSource>& f, const std::string& model_type);
// The attention heads as the Llama-like config classes read them (hf_config.cpp).
void read_attention_heads(FieldReader<JsonSource>& f, ModelArchitecture& a);
ModelArchitecture read_gpt_oss(FieldReader<JsonSource>& f);

}  // namespace tb::io
