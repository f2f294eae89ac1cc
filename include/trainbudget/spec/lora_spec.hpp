// How LoRA and QLoRA are asked for: the adapters' rank and target layers, and how the frozen
// base is quantized. Values only; model/lora.hpp counts what they mean for an architecture.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  // PEFT's lora_dropout: a dropout on each adapter's input, a new tensor per adapted module.
  double dropout{0.0};
  // DoRA (Liu et al. 2024, "DoRA: Weight-Decomposed Low-Rank Adaptation"; PEFT's use_dora):
  // each adapted linear also trains a magnitude per output, m * (W + s BA) / ||W + s BA||, the
  // norm taken row by row over a dense copy of the adapted weight every forward
  // (docs/activations.md, "adapters").
  bool dora{false};
  // PEFT's modules_to_save: modules trained in full beside the adapters, each a trainable copy
  // (ModulesToSaveWrapper keeps the frozen original and a deep copy that trains): the input
  // embedding ("embed_tokens") and the LM head ("lm_head"), by those or their families' names.
  std::vector<std::string> modules_to_save{};
};

// "q, k,v" -> {"q","k","v"} (split_comma_list); throws InvalidArgument naming lora_targets on
// an empty entry.
[[nodiscard]] std::vector<std::string> parse_lora_targets(std::string_view text);

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
  // The frozen base's bits: 4, bitsandbytes NF4 (Dettmers et al. 2023); 8, LLM.int8 (Dettmers et
  // al. 2022: int8 codes and an fp32 scale per output row; transformers' load_in_8bit).
  int bits{4};
  // Also the experts' fused 3-D weights, which bitsandbytes leaves as loaded (not nn.Linear):
  // axolotl's quantize_moe_experts (docs/expert_quantization.qmd).
  bool quantize_experts{false};
};

}  // namespace tb
