// Weights in an inference storage format, tensor by tensor (docs/inference.md, "Weights").
#include "trainbudget/model/weight_storage.hpp"

#include <cmath>

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

using F = WeightFormat;

GgufType gguf_base(F format) noexcept {
  switch (format) {
    case F::kGgufQ8_0:
      return GgufType::kQ8_0;
    case F::kGgufQ6_K:
      return GgufType::kQ6_K;
    case F::kGgufQ5_K_M:
      return GgufType::kQ5_K;
    case F::kGgufQ4_K_M:
      return GgufType::kQ4_K;
    case F::kGgufQ4_0:
      return GgufType::kQ4_0;
    default:
      return GgufType::kF16;
  }
}

GgufTensor gguf_tensor_of(LinearKind kind) noexcept {
  switch (kind) {
    case LinearKind::kValue:
      return GgufTensor::kAttnV;
    case LinearKind::kKey:
      return GgufTensor::kAttnK;
    case LinearKind::kQkv:
      return GgufTensor::kAttnQkv;
    case LinearKind::kOutput:
      return GgufTensor::kAttnOutput;
    case LinearKind::kDown:
      return GgufTensor::kFfnDown;
    case LinearKind::kLmHead:
      return GgufTensor::kOutput;
    default:
      return GgufTensor::kOther;
  }
}

// Bytes of one instance of a linear's weight in a non-GGUF format. Which linears each format
// quantizes: vLLM's fp8 and AutoGPTQ / AutoAWQ leave the LM head and the MoE router at 16 bits;
// gpt-fast's int8 handler quantizes every nn.Linear (quantize.py, WeightOnlyInt8QuantHandler),
// the head too; transformers' bitsandbytes integration skips lm_head (llm_int8_skip_modules).
double linear_bytes(F format, const LinearLayer& l) {
  const auto in = static_cast<double>(l.in_features);
  const auto out = static_cast<double>(l.out_features);
  const double w = in * out;
  const bool head = l.kind == LinearKind::kLmHead;
  const bool router = l.kind == LinearKind::kRouter;
  // AutoGPTQ QuantLinear / AutoAWQ WQLinear_GEMM: int32-packed 4-bit weights and zeros, fp16
  // scales per group of 128 inputs; GPTQ also keeps g_idx, one int32 per input.
  const double groups = std::ceil(in / 128.0);
  switch (format) {
    case F::kFp32:
      return 4.0 * w;
    case F::kBf16:
    case F::kFp16:
      return 2.0 * w;
    case F::kFp8:
      return (head || router) ? 2.0 * w : w;
    case F::kInt8:
      return w + 2.0 * out;
    case F::kGptqInt4:
      return (head || router) ? 2.0 * w : w / 2.0 + groups * out * 2.5 + 4.0 * in;
    case F::kAwqInt4:
      return (head || router) ? 2.0 * w : w / 2.0 + groups * out * 2.5;
    case F::kNf4:
      return head ? 2.0 * w : w / 2.0 + nf4_constant_bytes(l.weight_params(), QloraOptions{});
    default:
      return 2.0 * w;
  }
}

// Bytes of a 1-D tensor (norms, biases) and of the token table outside the linear list.
double vector_bytes(F format) { return (is_gguf(format) || format == F::kFp32) ? 4.0 : 2.0; }

}  // namespace

double gguf_bits(GgufType t) noexcept {
  switch (t) {
    case GgufType::kF32:
      return 32.0;
    case GgufType::kF16:
      return 16.0;
    case GgufType::kQ8_0:
      return 34.0 * 8.0 / 32.0;
    case GgufType::kQ6_K:
      return 210.0 * 8.0 / 256.0;
    case GgufType::kQ5_K:
      return 176.0 * 8.0 / 256.0;
    case GgufType::kQ4_K:
      return 144.0 * 8.0 / 256.0;
    case GgufType::kQ4_0:
      return 18.0 * 8.0 / 32.0;
    case GgufType::kQ5_0:
      return 22.0 * 8.0 / 32.0;
    case GgufType::kQ5_1:
      return 24.0 * 8.0 / 32.0;
  }
  return 16.0;
}

GgufType gguf_fallback(GgufType t, std::int64_t in_features) noexcept {
  const bool k_type = t == GgufType::kQ6_K || t == GgufType::kQ5_K || t == GgufType::kQ4_K;
  if (k_type && in_features % 256 != 0) {
    t = t == GgufType::kQ4_K   ? GgufType::kQ5_0
        : t == GgufType::kQ5_K ? GgufType::kQ5_1
                               : GgufType::kQ8_0;
  }
  const bool quantized = t != GgufType::kF32 && t != GgufType::kF16;
  return (quantized && in_features % 32 != 0) ? GgufType::kF16 : t;
}

bool gguf_more_bits(std::int64_t i, std::int64_t n) noexcept {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

GgufType gguf_tensor_type(F format, GgufTensor tensor, std::int64_t layer, std::int64_t layers,
                          std::int64_t experts, bool llama_70b) noexcept {
  const GgufType base = gguf_base(format);
  const bool km = format == F::kGgufQ4_K_M || format == F::kGgufQ5_K_M;
  switch (tensor) {
    case GgufTensor::kOutput:
      return base == GgufType::kQ8_0 ? base : GgufType::kQ6_K;
    case GgufTensor::kTokenEmbedding:
      return base;
    case GgufTensor::kAttnV: {
      GgufType t = (km && gguf_more_bits(layer, layers)) ? GgufType::kQ6_K : base;
      if (llama_70b && t == GgufType::kQ4_K) t = GgufType::kQ5_K;
      return experts == 8 ? GgufType::kQ8_0 : t;
    }
    case GgufTensor::kAttnK:
      return experts == 8 ? GgufType::kQ8_0 : base;
    case GgufTensor::kAttnQkv:
      if (format == F::kGgufQ4_K_M) return GgufType::kQ5_K;
      return format == F::kGgufQ5_K_M ? GgufType::kQ6_K : base;
    case GgufTensor::kAttnOutput:
      return (experts == 8 && format == F::kGgufQ4_K_M) ? GgufType::kQ5_K : base;
    case GgufTensor::kFfnDown:
      return (km && gguf_more_bits(layer, layers)) ? GgufType::kQ6_K : base;
    case GgufTensor::kOther:
      return base;
  }
  return base;
}

double base_weight_bytes(F format) noexcept {
  switch (format) {
    case F::kFp32:
      return 4.0;
    case F::kBf16:
    case F::kFp16:
      return 2.0;
    case F::kFp8:
    case F::kInt8:
      return 1.0;
    case F::kGptqInt4:
    case F::kAwqInt4:
      return (4.0 + 20.0 / 128.0) / 8.0;
    case F::kNf4:
      return (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
    default:
      return gguf_bits(gguf_base(format)) / 8.0;
  }
}

WeightStorage weight_storage(double params, F format) {
  WeightStorage out;
  out.params = params;
  out.total = Bytes{params * base_weight_bytes(format)};
  out.always_read = out.total;
  out.bits_per_weight = base_weight_bytes(format) * 8.0;
  return out;
}

WeightStorage weight_storage(const ModelArchitecture& arch, F format) {
  const ParamCounts counts = count_params(arch);
  const bool gguf = is_gguf(format);
  const std::int64_t experts = arch.moe ? arch.moe->num_experts : 0;
  // llama.cpp's LLM_TYPE_70B: an 80-layer Llama.
  const bool llama_70b = arch.model_type == "llama" && arch.num_layers == 80;
  double total = 0.0;
  double routed = 0.0;
  double linear_params = 0.0;  // weights and biases of the listed linears
  const auto add = [&](const LinearLayer& l, std::int64_t layer) {
    const double instances = static_cast<double>(l.copies * l.layers);
    double bytes = 0.0;
    if (gguf) {
      // The router (ffn_gate_inp) is never quantized and convert_hf_to_gguf.py stores it F32.
      const GgufType t = l.kind == LinearKind::kRouter
                             ? GgufType::kF32
                             : gguf_fallback(gguf_tensor_type(format, gguf_tensor_of(l.kind), layer,
                                                              arch.num_layers, experts, llama_70b),
                                             l.in_features);
      bytes = static_cast<double>(l.weight_params()) * gguf_bits(t) / 8.0;
    } else {
      bytes = linear_bytes(format, l);
    }
    if (l.bias) bytes += static_cast<double>(l.out_features) * vector_bytes(format);
    total += bytes * instances;
    if (l.place == LinearPlace::kRoutedExpert) routed += bytes * instances;
    linear_params += static_cast<double>(l.params()) * instances;
  };
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    for (const LinearLayer& l : decoder_layer_linears(
             arch, is_moe_layer(arch, i), is_linear_attention_layer(arch, i), has_mlp(arch, i))) {
      add(l, i);
    }
  }
  for (const LinearLayer& l : model_linears(arch)) {
    if (l.kind == LinearKind::kLmHead && !l.tied) add(l, 0);
  }
  // The token table: GGUF stores it at the base type, or as output.weight's type when the head
  // is tied to it; the other formats keep it at 16 bits. GPT-2's position table is F32 in GGUF.
  const double token_params = static_cast<double>(arch.vocab * arch.hidden);
  const double position_params = static_cast<double>(counts.input_embedding) - token_params;
  double token_bytes = 2.0 * token_params;
  if (format == F::kFp32) token_bytes = 4.0 * token_params;
  if (gguf) {
    const GgufTensor t = arch.tie_embeddings ? GgufTensor::kOutput : GgufTensor::kTokenEmbedding;
    token_bytes = token_params *
                  gguf_bits(gguf_tensor_type(format, t, 0, arch.num_layers, experts, false)) / 8.0;
  }
  const double embedding_bytes = token_bytes + position_params * vector_bytes(format);
  // Norms and the rest (score-correction biases) at the storage's vector width; a vision tower
  // at 16 bits (llama.cpp keeps it in a separate mmproj file, the other servers load it).
  const double vision = static_cast<double>(counts.vision);
  const double rest = static_cast<double>(counts.total) - linear_params -
                      static_cast<double>(counts.input_embedding) - vision;
  total += embedding_bytes + rest * vector_bytes(format) + vision * 2.0;
  WeightStorage out;
  out.params = static_cast<double>(counts.total);
  out.total = Bytes{total};
  out.routed_experts = Bytes{routed};
  // A tied head reads the whole table every step; an untied model reads one row of it.
  const double unread_embedding = arch.tie_embeddings ? 0.0 : embedding_bytes;
  out.always_read = Bytes{total - routed - unread_embedding - vision * 2.0};
  if (arch.moe) {
    out.moe_layers = moe_layer_count(arch);
    out.experts = arch.moe->num_experts;
    out.experts_per_token = arch.moe->experts_per_token;
  }
  out.bits_per_weight = total * 8.0 / out.params;
  return out;
}

}  // namespace tb
