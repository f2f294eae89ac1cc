// LoRA and QLoRA on an architecture: which linear layers get adapters, how many parameters
// the adapters have (PEFT's count), and what the frozen base weighs when it is kept in 16 bits
// or quantized to NF4.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/core/architecture.hpp"
#include "trainbudget/core/linear_layers.hpp"
#include "trainbudget/core/units.hpp"

namespace tb {

// PEFT's default target_modules for Llama-style models (peft.utils.constants,
// TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING: ["q_proj", "v_proj"]; GPT-2: c_attn).
inline constexpr std::string_view kDefaultLoraTargets = "q,v";
inline constexpr std::int64_t kDefaultLoraRank = 16;

struct LoraSpec {
  std::int64_t rank{kDefaultLoraRank};
  // Aliases q, k, v, o, gate, up, down (by what a layer computes, so q also names GPT-2's
  // fused c_attn and DeepSeek's q_a_proj/q_b_proj), "all-linear" (every linear layer but the
  // LM head, as PEFT's "all-linear"), or a module name as the checkpoint spells it ("w1").
  std::vector<std::string> targets{"q", "v"};
};

// "q,k,v" -> {"q","k","v"}; throws InvalidArgument naming --lora-targets on an empty entry.
[[nodiscard]] std::vector<std::string> parse_lora_targets(std::string_view text);

struct AdaptedLinear {
  LinearLayer layer;               // the frozen linear the adapter sits on
  std::int64_t adapter_params{0};  // r (in + out) per instance x copies x layers
};

// The linear layers `spec` targets (each once, even if named by two aliases) with their adapter
// parameters. Throws InvalidArgument naming --lora-targets when a target matches no layer of
// this architecture (listing the module names it has) or --lora-rank when rank < 1.
[[nodiscard]] std::vector<AdaptedLinear> lora_adapters(const ModelArchitecture& arch,
                                                       const LoraSpec& spec);

// Hu et al. 2021 (LoRA), §4.1: W + BA with B in R^{out x r}, A in R^{r x in}: r (in + out)
// parameters per adapted matrix; PEFT's default bias="none" adds none. Summed over
// lora_adapters(); equals peft's print_trainable_parameters() "trainable params".
[[nodiscard]] std::int64_t lora_trainable_params(const ModelArchitecture& arch,
                                                 const LoraSpec& spec);

// QLoRA's storage of the frozen base (Dettmers et al. 2023, "QLoRA", §3): every linear layer of
// the decoder in 4-bit NormalFloat (0.5 B per weight) with one fp32 absmax per block of 64
// weights; with double quantization those absmax values are themselves 8-bit, with one fp32
// constant per 256 of them (8/64 + 32/(64*256) = 0.127 bits per weight). Embeddings, the LM
// head, norms and biases stay in 16 bits (transformers' bitsandbytes integration skips the
// output layer).
struct QloraOptions {
  std::int64_t block_size{64};
  bool double_quant{true};
  std::int64_t double_quant_block{256};
};

struct FrozenBaseBytes {
  double quantized_weights{0.0};   // parameters stored in NF4
  Bytes nf4;                       // their 4-bit codes
  Bytes constants;                 // absmax (and second-level) constants
  double unquantized_params{0.0};  // embeddings, head, norms, biases
  Bytes unquantized;               // in the 16-bit storage dtype
  [[nodiscard]] Bytes total() const { return nf4 + constants + unquantized; }
};

// Bytes of the per-block constants for one quantized tensor of `weights` values.
[[nodiscard]] double nf4_constant_bytes(std::int64_t weights, const QloraOptions& options);

// The frozen base of `arch` (its count_params().total parameters) under QLoRA, with the
// unquantized remainder at `storage_bytes` per parameter (2 for bf16).
[[nodiscard]] FrozenBaseBytes qlora_base_bytes(const ModelArchitecture& arch,
                                               const QloraOptions& options, double storage_bytes);

}  // namespace tb
