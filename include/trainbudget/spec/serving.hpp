// What the user wants to serve: the storage format of the weights, the KV cache's dtype, the
// context, the concurrent sequences, the prompt and the tensor-parallel degree. Values only;
// eval/inference.hpp prices them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// How the weights are stored for inference. Bits per weight of each format are in
// model/weight_storage.hpp with their sources.
enum class WeightFormat : std::uint8_t {
  kFp32,
  kBf16,
  kFp16,
  kFp8,       // e4m3 linear weights, per-tensor scale (vLLM's fp8 checkpoints)
  kInt8,      // int8 weight-only, one 16-bit scale per output channel (gpt-fast int8)
  kGptqInt4,  // AutoGPTQ 4-bit, group 128: 4-bit zeros, fp16 scales, g_idx
  kAwqInt4,   // AutoAWQ GEMM 4-bit, group 128: 4-bit zeros, fp16 scales
  kNf4,       // bitsandbytes NF4, blocks of 64, double-quantized constants (QLoRA)
  kGgufQ8_0,  // llama.cpp GGUF types and mixtures (llama-quant.cpp)
  kGgufQ6_K,
  kGgufQ5_K_M,
  kGgufQ4_K_M,
  kGgufQ4_0,
};

template <>
struct EnumNames<WeightFormat> {
  static constexpr std::array<std::pair<WeightFormat, std::string_view>, 13> kNames{
      {{WeightFormat::kFp32, "fp32"},
       {WeightFormat::kBf16, "bf16"},
       {WeightFormat::kFp16, "fp16"},
       {WeightFormat::kFp8, "fp8"},
       {WeightFormat::kInt8, "int8"},
       {WeightFormat::kGptqInt4, "gptq-int4"},
       {WeightFormat::kAwqInt4, "awq-int4"},
       {WeightFormat::kNf4, "nf4"},
       {WeightFormat::kGgufQ8_0, "q8_0"},
       {WeightFormat::kGgufQ6_K, "q6_k"},
       {WeightFormat::kGgufQ5_K_M, "q5_k_m"},
       {WeightFormat::kGgufQ4_K_M, "q4_k_m"},
       {WeightFormat::kGgufQ4_0, "q4_0"}}};
};

// llama.cpp's GGUF files: the formats whose every tensor type llama-quant.cpp chooses.
[[nodiscard]] constexpr bool is_gguf(WeightFormat f) { return f >= WeightFormat::kGgufQ8_0; }

// The KV cache's element type. q8_0 / q4_0 are llama.cpp's quantized caches (--cache-type-k).
enum class KvDtype : std::uint8_t { kFp32, kBf16, kFp16, kFp8, kInt8, kQ8_0, kQ4_0 };

template <>
struct EnumNames<KvDtype> {
  static constexpr std::array<std::pair<KvDtype, std::string_view>, 7> kNames{
      {{KvDtype::kFp32, "fp32"},
       {KvDtype::kBf16, "bf16"},
       {KvDtype::kFp16, "fp16"},
       {KvDtype::kFp8, "fp8"},
       {KvDtype::kInt8, "int8"},
       {KvDtype::kQ8_0, "q8_0"},
       {KvDtype::kQ4_0, "q4_0"}}};
};

// Bytes of one cached value: 4, 2, 2, 1, 1; llama.cpp's q8_0 and q4_0 blocks hold 32 values
// in 34 and 18 bytes (ggml-common.h block_q8_0, block_q4_0).
[[nodiscard]] constexpr double kv_value_bytes(KvDtype d) {
  switch (d) {
    case KvDtype::kFp32:
      return 4.0;
    case KvDtype::kBf16:
    case KvDtype::kFp16:
      return 2.0;
    case KvDtype::kFp8:
    case KvDtype::kInt8:
      return 1.0;
    case KvDtype::kQ8_0:
      return 34.0 / 32.0;
    case KvDtype::kQ4_0:
      return 18.0 / 32.0;
  }
  return 2.0;
}

inline constexpr std::int64_t kMaxContext = 16LL * 1024 * 1024;  // 16M tokens
inline constexpr std::int64_t kMaxConcurrency = 1LL << 20;

inline constexpr double kDefaultGpuMemoryUtilization = 0.9;

struct ServingSetup {
  WeightFormat weights{WeightFormat::kBf16};
  KvDtype kv{KvDtype::kBf16};
  std::int64_t context{4096};   // tokens each sequence holds in the cache (prompt + output)
  std::int64_t concurrency{1};  // sequences decoded together (the batch)
  std::int64_t prompt{512};     // prefill tokens of one request
  int tp{1};                    // tensor-parallel devices inside one node
  // The share of a CUDA device's memory the serving engine takes (vLLM's engine argument
  // gpu_memory_utilization, default 0.9: vllm/engine/arg_utils.py); the rest is headroom.
  // Apple silicon keeps Metal's working-set cap instead.
  double gpu_memory_utilization{kDefaultGpuMemoryUtilization};
};

}  // namespace tb
