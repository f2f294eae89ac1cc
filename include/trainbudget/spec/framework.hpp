// Framework profiles: what a training framework keeps in memory beyond the model's own
// activations, as defaults of four step fields (attention, loss, logits dtype, norm kernel) that
// the user can still set one by one. docs/frameworks.md gives each profile's sources in the
// framework's own code.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/kernel_costs.hpp"

namespace tb {

enum class Framework : std::uint8_t {
  kGeneric,     // fused kernels everywhere: flash attention, fused norms, a fused cross-entropy
  kPytorch,     // a hand-written eager decoder (tests/realstep/realstep.py)
  kHf,          // transformers' Trainer on a *ForCausalLM model
  kTorchtune,   // torchtune's single-device and distributed recipes
  kTorchtitan,  // torchtitan's train.py
  kMegatron,    // Megatron-LM / Megatron Core
  kLitgpt,      // Lit-GPT / LitGPT's finetune scripts
  kDeepspeed,   // the DeepSpeed engine on a transformers model (hf's kernels)
  kFsdp,        // FSDP2 as torchtitan composes it (torchtitan's kernels)
  kUnsloth,     // unsloth's FastLanguageModel under TRL's trainers (its Triton kernels)
};

template <>
struct EnumNames<Framework> {
  static constexpr std::array<std::pair<Framework, std::string_view>, 10> kNames{
      {{Framework::kGeneric, "generic"},
       {Framework::kPytorch, "pytorch"},
       {Framework::kHf, "hf"},
       {Framework::kTorchtune, "torchtune"},
       {Framework::kTorchtitan, "torchtitan"},
       {Framework::kMegatron, "megatron"},
       {Framework::kLitgpt, "litgpt"},
       {Framework::kDeepspeed, "deepspeed"},
       {Framework::kFsdp, "fsdp"},
       {Framework::kUnsloth, "unsloth"}}};
};

// How the loss over the vocabulary is computed, which decides the b*s*V buffers it holds.
enum class LossImpl : std::uint8_t {
  // A fused cross-entropy kernel (Megatron-LM's vocab-parallel cross entropy, a compiled loss):
  // it saves the fp32 softmax and writes the fp32 logits gradient once in backward.
  kFused,
  // torch.nn.functional.cross_entropy on the full logits: log_softmax saves its output, and its
  // backward holds the gradient of the log-probabilities and of its input at once.
  kFull,
  // The logits in N chunks, each chunk's cross-entropy compiled on its own (torchtune's
  // CEWithChunkedOutputLoss under torch.compile): nothing b*s*V wide is saved beyond the logits,
  // and the backward's fp32 buffers are one chunk's.
  kChunked,
  // The LM head and the loss in one kernel over tiles of the vocabulary (Wijmans et al. 2024,
  // "Cut Your Losses in Large-Vocabulary Language Models", Apple's Cut Cross-Entropy): the
  // logits never exist whole; forward saves each position's log-sum-exp (fp32) and backward
  // recomputes the logits tile by tile, one more LM head GEMM.
  kLinear,
};

struct LossSpec {
  LossImpl impl{LossImpl::kFused};
  int chunks{1};  // kChunked: the number of chunks (2..1024)
  friend bool operator==(const LossSpec&, const LossSpec&) = default;
};

inline constexpr int kMaxLossChunks = 1024;

// How RMSNorm runs, which decides what it saves (LayerNorm is nn.LayerNorm's fused kernel in
// every profile).
enum class NormImpl : std::uint8_t {
  kFused,      // one kernel: saves its input and the fp32 reciprocal RMS
  kEager,      // written out op by op in the activation dtype: also x^2 and x * rsqrt
  kEagerFp32,  // transformers' LlamaRMSNorm: upcast to fp32 first, then as kEager
};

template <>
struct EnumNames<NormImpl> {
  static constexpr std::array<std::pair<NormImpl, std::string_view>, 3> kNames{
      {{NormImpl::kFused, "fused"},
       {NormImpl::kEager, "eager"},
       {NormImpl::kEagerFp32, "eager-fp32"}}};
};

// How the optimizer step is run, which sets its transient memory (eval/phase.hpp).
enum class OptimizerKernel : std::uint8_t {
  kPerTensor,  // a loop over tensors (torch foreach=False)
  kForeach,    // torch foreach=True, torch.optim's default on CUDA since 2.0
  kFused,      // one kernel updates each parameter in place (torch fused=True, apex FusedAdam)
  // Each parameter stepped from a hook as its gradient is produced, the gradient then freed
  // (torchtune's optimizer_in_bwd: register_post_accumulate_grad_hook): no gradient buffer, and
  // no gradient accumulation.
  kInBackward,
};

template <>
struct EnumNames<OptimizerKernel> {
  static constexpr std::array<std::pair<OptimizerKernel, std::string_view>, 4> kNames{
      {{OptimizerKernel::kPerTensor, "per-tensor"},
       {OptimizerKernel::kForeach, "foreach"},
       {OptimizerKernel::kFused, "fused"},
       {OptimizerKernel::kInBackward, "in-backward"}}};
};

// How each micro-batch's weight gradients join the gradient buffer under gradient
// accumulation (docs/time.md, "Gradient accumulation").
enum class GradAccumulationKernel : std::uint8_t {
  // The weight-gradient GEMM accumulates into the buffer (Megatron-LM's
  // gradient_accumulation_fusion, on by default since 83b1e42, 2022-02-13): no extra pass.
  kFused,
  // A new gradient per micro-batch, added in place into the buffer after the first (autograd's
  // AccumulateGrad, `variable.grad += new_grad`; 2021 Megatron-LM's local DDP the same way).
  kAdd,
};

template <>
struct EnumNames<GradAccumulationKernel> {
  static constexpr std::array<std::pair<GradAccumulationKernel, std::string_view>, 2> kNames{
      {{GradAccumulationKernel::kFused, "fused"}, {GradAccumulationKernel::kAdd, "add"}}};
};

// The dtype the loss computes in: the logits' own, or fp32 after an upcast.
enum class LogitsDtype : std::uint8_t { kActivation, kFp32 };

template <>
struct EnumNames<LogitsDtype> {
  static constexpr std::array<std::pair<LogitsDtype, std::string_view>, 2> kNames{
      {{LogitsDtype::kActivation, "activation"}, {LogitsDtype::kFp32, "fp32"}}};
};

struct FrameworkProfile {
  Framework id{Framework::kGeneric};
  bool eager_attention{false};  // the profile's default attention kernel is eager
  LossSpec loss;
  LogitsDtype logits{LogitsDtype::kFp32};
  NormImpl norm{NormImpl::kFused};
  // Whether the training loop holds the returned logits through backward (a plain loop's
  // `logits = model(x)`); frameworks that drop them before backward keep only what the loss
  // saved.
  bool keeps_logits{true};
  OptimizerKernel optimizer{OptimizerKernel::kPerTensor};
  // QLoRA through bitsandbytes: MatMul4Bit saves its input whenever it needs an input gradient
  // (bitsandbytes/autograd/_functions.py: `if any(ctx.needs_input_grad[:2]): ctx.tensors =
  // (A, B)`), so a frozen NF4 linear keeps its input; torchao's NF4 linear (torchtune) does not.
  bool qlora_saves_inputs{true};
  // Eager attention's softmax computed in fp32 and cast back (transformers'
  // eager_attention_forward: softmax(..., dtype=torch.float32).to(query.dtype)): the fp32
  // probabilities are kept for softmax's backward beside the cast copy AV keeps.
  bool softmax_fp32{false};
  // How its kernels run (docs/time.md): issued op by op from Python, compiled, or Megatron's
  // hand-fused kernels; and the fused attention it calls.
  Dispatch dispatch{Dispatch::kEager};
  AttentionKernel attention_kernel{AttentionKernel::kFlash2};
  GradAccumulationKernel grad_accumulation{GradAccumulationKernel::kAdd};
  std::string_view summary;  // one line for --help and the views
  std::string_view source;   // where in the framework's code each default comes from
};

[[nodiscard]] std::span<const FrameworkProfile> framework_profiles();

// Bytes of gradients one data-parallel reduction call carries (docs/time.md, "Buckets").
[[nodiscard]] double dp_bucket_bytes(Framework id) noexcept;
// Whether, under sequence parallelism, a column-parallel linear keeps only its sequence shard
// of the input and gathers it again in backward (docs/time.md, "Communication as it runs").
[[nodiscard]] bool sp_linear_keeps_shard(Framework id) noexcept;
// Whether tensor parallelism may exceed the key/value heads, tp a multiple of them (docs/scale.md,
// "Tensor parallelism over few key/value heads").
[[nodiscard]] bool tp_beyond_kv_heads(Framework id) noexcept;
[[nodiscard]] const FrameworkProfile& framework_profile(Framework id);

// Throw InvalidRequest naming the field (framework, loss, logits_dtype, norm) and its accepted
// values, with a suggestion for a near miss.
[[nodiscard]] Framework parse_framework(std::string_view text);
// "fused", "full", "chunked:N" (N in 2..1024) or "linear".
[[nodiscard]] LossSpec parse_loss(std::string_view text);
[[nodiscard]] LogitsDtype parse_logits_dtype(std::string_view text);
[[nodiscard]] NormImpl parse_norm(std::string_view text);
[[nodiscard]] OptimizerKernel parse_optimizer_kernel(std::string_view text);
[[nodiscard]] GradAccumulationKernel parse_grad_accumulation_kernel(std::string_view text);
[[nodiscard]] AttentionKernel parse_attention_kernel(std::string_view text);

// "fused", "full", "chunked:8", "linear".
[[nodiscard]] std::string loss_name(const LossSpec& loss);

}  // namespace tb
