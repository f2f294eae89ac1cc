// config.json readers of the hybrid families whose layers mix tokens by Gated DeltaNet in three
// layers of four and by gated attention in the fourth: Qwen3-Next and Qwen3.5's language models.
#include "hf_gated_delta.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hf_moe_families.hpp"
#include "layer_pattern.hpp"

namespace tb::io {
namespace {

// The full-attention layers as layer_types lists them ("linear_attention" / "full_attention",
// one per layer): the interval N when layer i attends exactly where (i + 1) % N == 0, which is
// what the model prices; any other pattern is refused.
std::int64_t interval_from_layer_types(const nlohmann::json& types, std::int64_t layers,
                                       std::int64_t fallback, FieldReader<JsonSource>& f) {
  if (!types.is_array()) {
    f.fail(fmt::format("{}: must be a list of \"linear_attention\" / \"full_attention\"",
                       f.name("layer_types")));
    return fallback;
  }
  std::vector<bool> full;
  for (const nlohmann::json& t : types) {
    const bool is_full = t.is_string() && t.get_ref<const std::string&>() == "full_attention";
    const bool is_linear = t.is_string() && t.get_ref<const std::string&>() == "linear_attention";
    if (!is_full && !is_linear) {
      f.fail(fmt::format("{}: {} is not \"linear_attention\" or \"full_attention\"",
                         f.name("layer_types"), t.dump().substr(0, 40)));
      return fallback;
    }
    full.push_back(is_full);
  }
  if (static_cast<std::int64_t>(full.size()) != layers) {
    f.fail(fmt::format("{}: {} entries for {} layers", f.name("layer_types"), full.size(), layers));
    return fallback;
  }
  const FullEvery p = one_full_in_every(full);
  if (p.breaks_at >= 0) {
    f.fail(fmt::format(
        "{}: layer {} breaks the pattern of one full-attention layer every {} (not modelled)",
        f.name("layer_types"), p.breaks_at, p.every));
    return fallback;
  }
  return p.every;
}

}  // namespace

// Qwen3NextConfig (configuration_qwen3_next.py), Qwen3_5TextConfig and Qwen3_5MoeTextConfig
// (configuration_qwen3_5.py, configuration_qwen3_5_moe.py), each with its class defaults:
// - qwen3_next: vocab 151936, hidden 2048, intermediate 5632, 48 layers, 16 heads, 2 key/value
//   heads, head_dim 256; 512 experts, top-10, expert and shared-expert width 512, sparse step 1;
//   fused in_proj_qkvz / in_proj_ba;
// - qwen3_5_text: vocab 248320, hidden 4096, intermediate 12288, 32 layers, 16 heads, 4 key/value
//   heads, head_dim 256; dense; split projections;
// - qwen3_5_moe_text: vocab 248320, hidden 2048, 40 layers, 16 heads, 2 key/value heads,
//   head_dim 256; 256 experts, top-8, widths 512; every layer MoE (the class deletes
//   intermediate_size, mlp_only_layers and decoder_sparse_step); split projections.
// All: linear_conv_kernel_dim 4, linear_key_head_dim and linear_value_head_dim 128,
// linear_num_key_heads 16, linear_num_value_heads 32, full_attention_interval 4 unless
// layer_types says otherwise, tie_word_embeddings False; gated attention with q_norm / k_norm
// (Qwen3NextAttention), no biases; (1 + w) RMSNorms, two per layer; the checkpoint's
// mtp_num_hidden_layers MTP modules share the embedding and head (transformers drops them).
ModelArchitecture read_gated_delta_family(FieldReader<JsonSource>& f, const nlohmann::json& object,
                                          const std::string& type) {
  const bool next = type == "qwen3_next";
  const bool moe = type != "qwen3_5_text";
  ModelArchitecture a;
  a.model_type = type;
  a.hidden = f.optional("hidden_size", type == "qwen3_5_text" ? 4096 : 2048);
  a.num_layers = f.optional("num_hidden_layers", next ? 48 : (moe ? 40 : 32));
  a.vocab = f.optional("vocab_size", next ? 151936 : 248320);
  a.max_positions = f.optional("max_position_embeddings", 32768);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  AttentionSpec& at = a.attention;
  at.num_heads = f.optional("num_attention_heads", 16);
  at.num_kv_heads = f.optional("num_key_value_heads", type == "qwen3_5_text" ? 4 : 2);
  at.head_dim = f.optional("head_dim", 256);
  at.qkv_bias = at.output_bias = f.flag("attention_bias", false);
  at.qk_norm = true;
  at.output_gate = true;  // hard-coded in Qwen3NextAttention, whatever attn_output_gate says
  a.mlp.activation = f.text("hidden_act", "silu");
  if (type == "qwen3_5_text") {
    a.mlp.intermediate = f.optional("intermediate_size", 12288);
  } else {
    MoeSpec m;
    m.num_experts = f.optional("num_experts", next ? 512 : 256);
    m.experts_per_token = f.optional("num_experts_per_tok", next ? 10 : 8);
    m.expert_intermediate = f.optional("moe_intermediate_size", 512);
    m.shared_intermediate = f.optional("shared_expert_intermediate_size", 512);
    m.num_shared_experts = m.shared_intermediate > 0 ? 1 : 0;
    m.shared_expert_gate = m.shared_intermediate > 0;
    if (next) {
      m.layer_step = f.optional("decoder_sparse_step", 1);
      m.dense_layers = f.integer_list("mlp_only_layers");
      std::sort(m.dense_layers.begin(), m.dense_layers.end());
      m.dense_layers.erase(std::unique(m.dense_layers.begin(), m.dense_layers.end()),
                           m.dense_layers.end());
      a.mlp.intermediate = f.optional("intermediate_size", 5632);
    }
    if (m.num_experts != 0 || !next) a.moe = m;
  }
  LinearAttentionSpec g;
  g.conv_kernel = f.optional("linear_conv_kernel_dim", 4);
  g.key_head_dim = f.optional("linear_key_head_dim", 128);
  g.value_head_dim = f.optional("linear_value_head_dim", 128);
  g.key_heads = f.optional("linear_num_key_heads", 16);
  g.value_heads = f.optional("linear_num_value_heads", 32);
  g.fused_projections = next;
  g.full_attention_every = f.optional("full_attention_interval", 4);
  const auto types = object.find("layer_types");
  if (types != object.end() && !types->is_null()) {
    g.full_attention_every =
        interval_from_layer_types(*types, a.num_layers, g.full_attention_every, f);
  }
  a.linear_attention = g;
  a.mtp_layers = f.optional("mtp_num_hidden_layers", 0);
  a.mtp_shares_embeddings = !f.flag("mtp_use_dedicated_embeddings", false);
  if (a.mtp_layers > 0 && !a.mtp_shares_embeddings) {
    f.fail(fmt::format("{}: true (MTP modules with their own embeddings) is not modelled",
                       f.name("mtp_use_dedicated_embeddings")));
  }
  return a;
}

}  // namespace tb::io
