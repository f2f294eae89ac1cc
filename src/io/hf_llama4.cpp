// config.json readers of Llama 4 (hf_llama4.hpp), mirroring transformers' configuration_llama4.py
// and modeling_llama4.py.
#include "hf_llama4.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hf_moe_families.hpp"
#include "vision_config.hpp"

namespace tb::io {

using Fields = FieldReader<JsonSource>;

// Llama4TextConfig: head_dim 128, num_key_value_heads 8, intermediate_size 8192 (an expert's and
// the shared expert's width), intermediate_size_mlp 16384 (the dense layers'), num_local_experts
// 16, num_experts_per_tok 1, interleave_moe_layer_step 1 (MoE in layers step - 1, 2 step - 1,
// ...) unless moe_layers lists them, attention_bias False, tie_word_embeddings False,
// attention_chunk_size 8192 in every layer but each no_rope_layer_interval-th (4), which attends
// to the whole sequence without rotary positions. Llama4TextAttention's qk_norm is an L2 norm
// without weights; Llama4TextMoe holds a router (nn.Linear, no bias), the experts and one shared
// expert. A chunk is priced as a sliding window of its size, which is exact up to the chunk and
// an upper bound past it.
ModelArchitecture read_llama4_text(Fields& f) {
  ModelArchitecture a = read_untied_dimensions(f, "llama4_text", 131072);
  read_attention_heads(f, a, 128);
  a.attention.num_kv_heads = f.optional("num_key_value_heads", 8);
  a.attention.qkv_bias = a.attention.output_bias = f.flag("attention_bias", false);
  a.attention.sliding_window = f.optional("attention_chunk_size", 8192);
  a.attention.global_every = f.optional("no_rope_layer_interval", 4);
  a.mlp.intermediate = f.optional("intermediate_size_mlp", 16384);
  a.mlp.activation = f.text("hidden_act", "silu");
  MoeSpec m;
  m.num_experts = f.optional("num_local_experts", 16);
  m.experts_per_token = f.optional("num_experts_per_tok", 1);
  m.expert_intermediate = f.optional("intermediate_size", 8192);
  m.num_shared_experts = 1;
  m.shared_intermediate = m.expert_intermediate;
  m.layer_step = f.optional("interleave_moe_layer_step", 1);
  if (f.present("moe_layers")) {
    std::vector<std::int64_t> moe = f.integer_list("moe_layers");
    std::sort(moe.begin(), moe.end());
    m.layer_step = 1;
    for (std::int64_t i = 0; i < a.num_layers; ++i) {
      if (!std::binary_search(moe.begin(), moe.end(), i)) m.dense_layers.push_back(i);
    }
  }
  a.moe = m;
  return a;
}

ModelArchitecture read_llama4(Fields& top, std::vector<std::string>& problems) {
  const auto* text = top.find("text_config");
  if (text == nullptr || !text->is_object()) {
    problems.emplace_back("text_config: missing (an object; model_type llama4)");
    return {};
  }
  Fields f(*text, "text_config", problems);
  ModelArchitecture a = read_llama4_text(f);
  a.model_type = "llama4";
  a.vision = read_vision_config(top, VisionKind::kLlama4, "llama4", problems);
  return a;
}

}  // namespace tb::io
