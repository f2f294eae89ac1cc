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

Bytes kv_bytes_per_token(const ModelArchitecture& arch, KvDtype dtype) {
  return Bytes{static_cast<double>(kv_values_per_token_layer(arch)) *
               static_cast<double>(arch.num_layers) * kv_value_bytes(dtype)};
}

Bytes kv_bytes_per_sequence(const ModelArchitecture& arch, KvDtype dtype, std::int64_t context) {
  double tokens = 0.0;  // summed over layers
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    tokens += static_cast<double>(std::min(context, attention_span(arch, i, context)));
  }
  return Bytes{tokens * static_cast<double>(kv_values_per_token_layer(arch)) *
               kv_value_bytes(dtype)};
}

double kv_share_per_rank(const ModelArchitecture& arch, int tp) {
  if (arch.attention.latent || tp <= 1) return 1.0;
  const auto heads = static_cast<double>(arch.attention.num_kv_heads);
  const double per_rank = std::max(1.0, heads / static_cast<double>(tp));
  return per_rank / heads;
}

}  // namespace tb
