// The bytes of a model's weights in an inference storage format, tensor by tensor: what the
// server loads and what one decode step reads. docs/inference.md gives every format's layout.
#pragma once

#include <cstdint>
#include <string_view>

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/serving.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// llama.cpp's tensor types that its GGUF mixtures use (ggml-common.h, block structs).
enum class GgufType : std::uint8_t { kF32, kF16, kQ8_0, kQ6_K, kQ5_K, kQ4_K, kQ4_0, kQ5_0, kQ5_1 };

// Bits per weight of one GGUF tensor type: Q8_0 34 B per 32 weights (8.5), Q6_K 210 B per 256
// (6.5625), Q5_K 176 B per 256 (5.5), Q4_K 144 B per 256 (4.5), Q4_0 18 B per 32 (4.5), Q5_0
// 22 B per 32 (5.5), Q5_1 24 B per 32 (6.0) (ggml/src/ggml-common.h, block_q8_0 ... block_q4_K).
[[nodiscard]] double gguf_bits(GgufType t) noexcept;

// Where a GGUF tensor sits, as llama-quant.cpp's llama_tensor_get_type_impl tells them apart.
enum class GgufTensor : std::uint8_t {
  kTokenEmbedding,
  kOutput,  // the LM head (the token embedding too when the head is tied)
  kAttnV,
  kAttnK,
  kAttnQkv,     // a fused q/k/v projection
  kAttnOutput,  // o_proj
  kFfnDown,     // dense, routed and shared experts' down projections
  kOther,       // every other 2-D weight: the mixture's base type
};

// The type llama.cpp's quantize gives a tensor of decoder layer `layer` of `layers` under a
// GGUF format (src/llama-quant.cpp at 2026-09, llama_tensor_get_type_impl, no imatrix, no
// overrides): the base type (Q8_0, Q6_K, Q5_K, Q4_K, Q4_0); output.weight Q6_K unless the
// format is Q8_0; Q4_K_M / Q5_K_M give attn_v and ffn_down Q6_K where use_more_bits(layer,
// layers) (the first and last eighth and every third layer between); Q4_K_M gives a fused qkv
// Q5_K, Q5_K_M Q6_K; the 80-layer Llama 70B's attn_v goes Q4_K -> Q5_K; with 8 experts attn_v
// and attn_k are Q8_0 and Q4_K_M's attn_output Q5_K.
[[nodiscard]] GgufType gguf_tensor_type(WeightFormat format, GgufTensor tensor, std::int64_t layer,
                                        std::int64_t layers, std::int64_t experts,
                                        bool llama_70b) noexcept;

// The type a tensor of rows `in_features` long gets: a K-type needs rows of whole 256-value
// super-blocks (QK_K), else llama-quant.cpp's tensor_type_fallback takes Q4_K -> Q5_0, Q5_K ->
// Q5_1, Q6_K -> Q8_0, and F16 when even the 32-value blocks do not divide the row.
[[nodiscard]] GgufType gguf_fallback(GgufType t, std::int64_t in_features) noexcept;

// use_more_bits(i, n) of llama-quant.cpp: i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2.
[[nodiscard]] bool gguf_more_bits(std::int64_t layer, std::int64_t layers) noexcept;

struct WeightStorage {
  Bytes total;                 // every tensor the server loads (the main model; MTP modules not)
  Bytes always_read;           // what every decode step reads: all but the routed experts and the
                               // input embedding table (a lookup reads one row)
  Bytes routed_experts;        // all routed experts of all MoE layers
  std::int64_t moe_layers{0};  // MoE layers, experts per layer and top-k (0 for dense)
  std::int64_t experts{0};
  std::int64_t experts_per_token{0};
  double params{0.0};           // parameters stored
  double bits_per_weight{0.0};  // total x 8 / params
};

// The storage of `arch` in `format`, tensor by tensor (docs/inference.md, "Weights").
[[nodiscard]] WeightStorage weight_storage(const ModelArchitecture& arch, WeightFormat format);

// A bare parameter count in `format`: every weight at the format's base width (GGUF mixtures
// at their base type: Q4_K_M as Q4_K), all read every step.
[[nodiscard]] WeightStorage weight_storage(double params, WeightFormat format);

// Bytes of one weight at the format's base width: 4, 2, 2, 1, int8 1, GPTQ/AWQ int4 group 128
// (4 + 20/128 bits: packed 4-bit zeros and fp16 scales per group of 128 inputs), NF4 with
// double quantization (4 + 8/64 + 32/(64 x 256) bits), GGUF at the base type.
[[nodiscard]] double base_weight_bytes(WeightFormat format) noexcept;

}  // namespace tb
