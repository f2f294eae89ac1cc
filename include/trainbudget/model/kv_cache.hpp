// The KV cache of a model: what each layer keeps per token, and what a sequence of a given
// context keeps with sliding-window layers capped at their window. docs/inference.md, "KV
// cache", derives the four models the tests check by hand.
#pragma once

#include <cstdint>

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/serving.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// Values one layer caches per token: a key and a value per KV head, 2 x num_kv_heads x head_dim
// (MHA: num_kv_heads = num_heads; GQA fewer; MQA 1; vLLM's CacheEngine.get_cache_block_size).
// MLA caches the compressed latent and the shared rope key instead, kv_lora_rank +
// qk_rope_head_dim values with no separate value (vLLM ModelConfig.get_head_size with use_mla,
// one KV head; DeepSeek-V2 paper sec. 2.1.2).
[[nodiscard]] std::int64_t kv_values_per_token_layer(const ModelArchitecture& arch);

// Bytes one token adds to the cache while every attending layer still holds it (no window
// reached); Gated DeltaNet layers add nothing per token.
[[nodiscard]] Bytes kv_bytes_per_token(const ModelArchitecture& arch, KvDtype dtype);

// A Gated DeltaNet hybrid's fixed state per sequence, over its Gated DeltaNet layers.
[[nodiscard]] Bytes linear_attention_state_bytes(const ModelArchitecture& arch);

// Bytes one sequence of `context` tokens holds: each attending layer min(context, its span)
// tokens (attention_span: sliding-window layers keep their window, as llama.cpp's SWA cache and
// vLLM's hybrid allocator do), plus the Gated DeltaNet layers' state.
[[nodiscard]] Bytes kv_bytes_per_sequence(const ModelArchitecture& arch, KvDtype dtype,
                                          std::int64_t context);

// The share of the cache one of `tp` tensor-parallel ranks holds: KV heads split over the ranks
// (vLLM replicates them once tp > num_kv_heads, one per rank); an MLA latent is replicated.
[[nodiscard]] double kv_share_per_rank(const ModelArchitecture& arch, int tp);

}  // namespace tb
