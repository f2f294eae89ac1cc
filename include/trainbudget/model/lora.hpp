// LoRA and QLoRA on an architecture: which linear layers get adapters, how many parameters
// the adapters have (PEFT's count), and what the frozen base weighs when it is kept in 16 bits
// or quantized to NF4.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/lora_spec.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

struct AdaptedLinear {
  LinearLayer layer;               // the frozen linear the adapter sits on
  std::int64_t adapter_params{0};  // r (in + out) per instance x copies x layers
};

// The linear layers `spec` targets (each once, even if named by two aliases) with their adapter
// parameters. Throws InvalidArgument naming --lora-targets when a target matches no layer of
// this architecture (listing the module names it has) or --lora-rank when rank < 1.
[[nodiscard]] std::vector<AdaptedLinear> lora_adapters(const ModelArchitecture& arch,
                                                       const LoraSpec& spec);

// The targets of `spec` that PEFT would skip: a module name common to other families (q_proj,
// k_proj, v_proj, ...; `kCommonModuleNames` in lora.cpp) that this architecture lacks, while
// another target matches (peft/tuners/tuners_utils.py inject_adapter raises only when no target
// matches any module: a latent-attention model has no q_proj, and a list written for Llama puts
// adapters on its o_proj alone). Any other target that matches nothing stays an error in
// lora_adapters() (a typo).
[[nodiscard]] std::vector<std::string> skipped_lora_targets(const ModelArchitecture& arch,
                                                            const LoraSpec& spec);

// Hu et al. 2021 (LoRA), §4.1: W + BA with B in R^{out x r}, A in R^{r x in}: r (in + out)
// parameters per adapted matrix; PEFT's default bias="none" adds none. Summed over
// lora_adapters(); equals peft's print_trainable_parameters() "trainable params".
[[nodiscard]] std::int64_t lora_trainable_params(const ModelArchitecture& arch,
                                                 const LoraSpec& spec);

// The parameters of spec.modules_to_save (PEFT's ModulesToSaveWrapper: a trainable copy of each
// module beside its frozen original), in lora_trainable_params: the input embedding's rows x
// hidden, the head's outputs x hidden (+ its bias). Throws InvalidRequest naming
// lora_modules_to_save for a name that is neither.
[[nodiscard]] std::int64_t modules_to_save_params(const ModelArchitecture& arch,
                                                  const LoraSpec& spec);
// Whether spec.modules_to_save trains the LM head (or a score head): its weight gradient runs.
[[nodiscard]] bool saves_head(const LoraSpec& spec);

struct FrozenBaseBytes {
  double quantized_weights{0.0};   // parameters stored in NF4 (or int8)
  Bytes nf4;                       // their 4-bit (8-bit) codes
  Bytes constants;                 // absmax (and second-level) constants, or int8 row scales
  double unquantized_params{0.0};  // embeddings, head, norms, biases
  Bytes unquantized;               // in the 16-bit storage dtype
  [[nodiscard]] Bytes total() const { return nf4 + constants + unquantized; }
};

// Bytes of the per-block constants for one quantized tensor of `weights` values.
[[nodiscard]] double nf4_constant_bytes(std::int64_t weights, const QloraOptions& options);
// Whether bitsandbytes quantizes this linear under QLoRA: every nn.Linear but the LM head; fused
// expert tensors (gpt-oss, Qwen3-Next, Qwen3.5-MoE: not nn.Linear) stay as loaded unless axolotl's
// quantize_moe_experts quantizes them too.
[[nodiscard]] bool bitsandbytes_quantizes(const LinearLayer& l, const QloraOptions& options);
// One quantized linear's stored bytes: its codes (half a byte a weight in NF4, one in int8) and
// constants (NF4's per-block absmax; LLM.int8's fp32 scale per output row, bitsandbytes
// Int8Params' SCB).
[[nodiscard]] double quantized_linear_bytes(const LinearLayer& l, const QloraOptions& options);

// The frozen base of `arch` (its count_params().total parameters) under QLoRA, with the
// unquantized remainder at `storage_bytes` per parameter (2 for bf16).
[[nodiscard]] FrozenBaseBytes qlora_base_bytes(const ModelArchitecture& arch,
                                               const QloraOptions& options, double storage_bytes);

// The adapters of `spec` on `arch` as activation memory and FLOPs need them: one shape per
// distinct adapted linear, with its instances and the instances a token runs through.
[[nodiscard]] std::vector<AdapterShape> adapter_shapes(const ModelArchitecture& arch,
                                                       const LoraSpec& spec);

// Under LoRA/QLoRA the base is frozen: a linear's input is saved only where an adapter's A
// needs it for its weight gradient (autograd saves mm's inputs only for the gradients it will
// compute; measured in tests/realstep, llama_mha_lora_qv). Clears d's keep_*_input flags of
// the projections `spec` leaves without an adapter.
void keep_adapted_inputs(const ModelArchitecture& arch, const LoraSpec& spec, StepDims& d);

}  // namespace tb
