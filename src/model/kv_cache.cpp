// The KV cache per token and per sequence (docs/inference.md, "KV cache").
#include "trainbudget/model/kv_cache.hpp"

#include <algorithm>

#include "trainbudget/spec/checked.hpp"

namespace tb {

std::int64_t kv_values_per_token_layer(const ModelArchitecture& arch) {
  if (arch.attention.latent) {
    return checked_add(arch.attention.latent->kv_lora_rank,
                       arch.attention.latent->qk_rope_head_dim);
  }
  return checked_mul(2, arch.attention.num_kv_heads, arch.attention.head_dim);
}

// Only attending layers cache keys and values; a Gated DeltaNet layer keeps a fixed state.
Bytes kv_bytes_per_token(const ModelArchitecture& arch, KvDtype dtype) {
  const auto attending = static_cast<double>(attention_layer_count(arch));
  return Bytes{static_cast<double>(kv_values_per_token_layer(arch)) * attending *
               kv_value_bytes(dtype)};
}

// A Gated DeltaNet layer's state per sequence, whatever its length (vLLM's Qwen3-Next cache:
// the recurrent state, value heads x key width x value width, in fp32 as the checkpoints'
// mamba_ssm_dtype says, and the causal conv's last taps - 1 inputs over q, k, v at 2 bytes). A
// Mamba-2 layer's is the same shape (heads x d_state x head_dim, the conv over x, B, C), priced at
// the same widths.
Bytes linear_attention_state_bytes(const ModelArchitecture& arch) {
  if (!arch.linear_attention) return Bytes{0.0};
  const LinearAttentionSpec& g = *arch.linear_attention;
  const double state = static_cast<double>(g.value_heads) * static_cast<double>(g.key_head_dim) *
                       static_cast<double>(g.value_head_dim) * 4.0;
  const double conv =
      static_cast<double>(g.conv_kernel - 1) *
      static_cast<double>(2 * g.key_heads * g.key_head_dim + g.value_heads * g.value_head_dim) *
      2.0;
  return Bytes{(state + conv) * static_cast<double>(linear_attention_layer_count(arch))};
}

Bytes kv_bytes_per_sequence(const ModelArchitecture& arch, KvDtype dtype, std::int64_t context) {
  double tokens = 0.0;  // summed over the attending layers
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    if (!is_attention_layer(arch, i)) continue;
    tokens += static_cast<double>(std::min(context, attention_span(arch, i, context)));
  }
  return Bytes{tokens * static_cast<double>(kv_values_per_token_layer(arch)) *
                   kv_value_bytes(dtype) +
               linear_attention_state_bytes(arch).value()};
}

double kv_share_per_rank(const ModelArchitecture& arch, int tp) {
  if (arch.attention.latent || tp <= 1) return 1.0;
  const auto heads = static_cast<double>(arch.attention.num_kv_heads);
  const double per_rank = std::max(1.0, heads / static_cast<double>(tp));
  return per_rank / heads;
}

}  // namespace tb
