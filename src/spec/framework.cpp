// The framework profiles and the parsing of their fields. Each profile's defaults cite the
// framework's own code; docs/frameworks.md says the same with the numbers they lead to.
#include "trainbudget/spec/framework.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <vector>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/parse_named.hpp"

namespace tb {
namespace {

constexpr std::array kProfiles{
    FrameworkProfile{
        Framework::kGeneric,
        false,
        {LossImpl::kFused, 1},
        LogitsDtype::kFp32,
        NormImpl::kFused,
        true,
        OptimizerKernel::kPerTensor,
        true,
        false,
        Dispatch::kFused,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kFused,
        "fused kernels: flash attention, fused norms, a fused cross-entropy over held logits",
        "Korthikanti et al. 2022, sec. 4.3 (the output layer and cross entropy, 4sbv) with "
        "FlashAttention (Dao et al. 2022): no framework's extras"},
    FrameworkProfile{
        Framework::kPytorch,
        true,
        {LossImpl::kFull, 1},
        LogitsDtype::kActivation,
        NormImpl::kEager,
        true,
        OptimizerKernel::kPerTensor,
        false,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "a hand-written eager decoder: RMSNorm op by op, repeated K/V, masked softmax, "
        "F.cross_entropy on the full logits held by the loop",
        "tests/realstep/realstep.py, measured on this CPU with torch 1.13: pow/mean/rsqrt/mul "
        "save x, x^2 and x*rsqrt; log_softmax saves its output (aten derivatives.yaml, "
        "_log_softmax: result) and its backward takes the log-probs' gradient and returns a new "
        "one of the same size"},
    FrameworkProfile{
        Framework::kHf,
        false,
        {LossImpl::kFull, 1},
        LogitsDtype::kFp32,
        NormImpl::kEagerFp32,
        false,
        OptimizerKernel::kForeach,
        true,
        true,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "transformers' Trainer: SDPA attention (the default attn_implementation), LlamaRMSNorm "
        "in fp32, logits upcast to fp32 for F.cross_entropy, outputs dropped before backward",
        "transformers models/llama/modeling_llama.py: LlamaRMSNorm "
        "(hidden_states.to(torch.float32), pow(2).mean, rsqrt); loss/loss_utils.py ForCausalLMLoss "
        "(logits = logits.float(), nn.functional.cross_entropy); with attn_implementation "
        "eager, eager_attention_forward's softmax(..., dtype=torch.float32).to(query.dtype); "
        "trainer.py compute_loss returns "
        "the loss only; Trainer's default optim adamw_torch is torch.optim.AdamW, foreach on CUDA "
        "(torch/optim/optimizer.py _default_to_fused_or_foreach)"},
    FrameworkProfile{
        Framework::kTorchtune,
        false,
        {LossImpl::kChunked, 8},
        LogitsDtype::kFp32,
        NormImpl::kFused,
        false,
        OptimizerKernel::kFused,
        false,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "torchtune recipes: SDPA, the output in 8 chunks with CEWithChunkedOutputLoss compiled, "
        "logits deleted before backward",
        "torchtune modules/loss/ce_chunked_output_loss.py (num_output_chunks = 8, each chunk "
        ".float() then cross_entropy); recipes/lora_finetune_single_device.py (del logits before "
        "backward; compile of the loss with compile: True); configs set AdamW fused: True"},
    FrameworkProfile{
        Framework::kTorchtitan,
        false,
        {LossImpl::kFull, 1},
        LogitsDtype::kFp32,
        NormImpl::kEagerFp32,
        false,
        OptimizerKernel::kFused,
        false,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "torchtitan: SDPA, RMSNorm in fp32 op by op, F.cross_entropy on fp32 logits",
        "torchtitan models/norms.py RMSNorm (norm_type = \"rmsnorm\" in train_configs and "
        "config_manager.py: self._norm(x.float()).type_as(x) * self.weight, at 9dec370); "
        "components/loss.py cross_entropy_loss (pred.flatten(0, 1).float(), "
        "torch.nn.functional.cross_entropy); train.py deletes pred before backward; "
        "config_manager.py Optimizer.implementation = \"fused\""},
    FrameworkProfile{
        Framework::kMegatron,
        false,
        {LossImpl::kFused, 1},
        LogitsDtype::kFp32,
        NormImpl::kFused,
        true,
        OptimizerKernel::kFused,
        false,
        false,
        Dispatch::kFused,
        AttentionKernel::kVendor,
        GradAccumulationKernel::kFused,
        "Megatron-LM: flash attention, Transformer Engine norms, vocab-parallel cross entropy",
        "Megatron-LM core/tensor_parallel/cross_entropy.py _VocabParallelCrossEntropy (fp32 "
        "softmax saved, gradient computed in place of it); core/optimizer: Transformer Engine's or "
        "apex's FusedAdam"},
    FrameworkProfile{
        Framework::kLitgpt,
        false,
        {LossImpl::kFull, 1},
        LogitsDtype::kActivation,
        NormImpl::kEagerFp32,
        true,
        OptimizerKernel::kForeach,
        true,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "Lit-GPT: SDPA, RMSNorm upcast to fp32, cross-entropy on the bf16 logits the loop holds",
        "Lightning-AI lit-gpt lit_gpt/model.py RMSNorm (x = x.float(), torch.mean(x * x), "
        "x * torch.rsqrt); lit_gpt/utils.py chunked_cross_entropy (F.cross_entropy per "
        "128-token chunk, no upcast); finetune/lora.py keeps logits through fabric.backward and "
        "uses torch.optim.AdamW (foreach on CUDA)"},
    FrameworkProfile{
        Framework::kDeepspeed,
        false,
        {LossImpl::kFull, 1},
        LogitsDtype::kFp32,
        NormImpl::kEagerFp32,
        false,
        OptimizerKernel::kFused,
        true,
        true,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "the DeepSpeed engine training a transformers model: hf's kernels (the model's own code "
        "runs under it); its layouts by DeepSpeed's rules",
        "DeepSpeed wraps the model it is given (deepspeed.initialize); the kernels are the "
        "model's: as hf (transformers' modeling code); a config's AdamW is DeepSpeed's FusedAdam "
        "(deepspeed/runtime/engine.py _configure_basic_optimizer)"},
    FrameworkProfile{
        Framework::kFsdp,
        false,
        {LossImpl::kFull, 1},
        LogitsDtype::kFp32,
        NormImpl::kEagerFp32,
        false,
        OptimizerKernel::kFused,
        false,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "FSDP2 as torchtitan composes it: torchtitan's kernels; its layouts by torchtitan's rules",
        "as torchtitan (torchtitan/distributed/fsdp.py applies fully_shard to torchtitan's "
        "models)"},
    FrameworkProfile{
        Framework::kUnsloth,
        false,
        {LossImpl::kLinear, 1},
        LogitsDtype::kFp32,
        NormImpl::kFused,
        false,
        OptimizerKernel::kPerTensor,
        true,
        false,
        Dispatch::kEager,
        AttentionKernel::kFlash2,
        GradAccumulationKernel::kAdd,
        "unsloth: its Triton RMSNorm, the LM head and loss fused (no logits), every layer "
        "checkpointed with its input sent to the host",
        "unslothai/unsloth 015bdef: kernels/rms_layernorm.py Fast_RMS_Layernorm "
        "(save_for_backward(X, W, r)); models/llama.py CausalLM forward: unsloth_zoo's "
        "unsloth_fused_ce_loss unless UNSLOTH_RETURN_LOGITS=1 (Apple's cut_cross_entropy "
        "linear_cross_entropy at e3162dc5, January 2025), no logits returned; get_peft_model's "
        "use_gradient_checkpointing=\"unsloth\": each decoder layer's input copied to pinned host "
        "memory (unsloth_zoo gradient_checkpointing.py); bitsandbytes' 8-bit AdamW steps each "
        "parameter on its own"},
};

}  // namespace

std::span<const FrameworkProfile> framework_profiles() { return kProfiles; }

double dp_bucket_bytes(Framework id) noexcept {
  switch (id) {
    case Framework::kMegatron:
      // Megatron-Core DistributedDataParallelConfig.bucket_size: max(40,000,000, 1,000,000 x
      // dp) parameters (core/distributed/distributed_data_parallel.py); fp32 main gradients:
      // 4 bytes each, at least 160 MB.
      return 40e6 * 4.0;
    default:
      // torch.nn.parallel.DistributedDataParallel(bucket_cap_mb=25) (torch/nn/parallel/
      // distributed.py): 25 MiB per bucket.
      return 25.0 * 1024.0 * 1024.0;
  }
}

// Megatron-Core from f7dfb99 (December 2025, "Support TP greater than num_kv_heads by supporting
// QKV activation sub-sharding"; transformer_config.py: num_query_groups a multiple or a divisor
// of tp): linear_qkv stays split over tp, its output is all-gathered and each rank keeps one
// key/value head and its share of the query heads (attention.py). The other profiles split the
// key/value projections by head (DTensor's ColwiseParallel, DeepSpeed's AutoTP).
bool tp_beyond_kv_heads(Framework id) noexcept { return id == Framework::kMegatron; }

bool sp_linear_keeps_shard(Framework id) noexcept {
  switch (id) {
    case Framework::kGeneric:
    case Framework::kMegatron:
      // Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication (core/tensor_parallel/
      // layers.py) saves the sequence shard and, in backward, all-gathers it again beside the
      // input-gradient GEMM; Transformer Engine's Linear and LayerNormLinear do the same
      // (backward_input_needs_gather). Korthikanti et al. 2022, sec. 4.2.2, chose this to keep
      // the activation memory sharded.
      return true;
    default:
      // DTensor's ColwiseParallel (torch/distributed/tensor/parallel/style.py): the input's
      // redistribution to Replicate is an autograd op and the matmul saves the gathered input.
      return false;
  }
}

const FrameworkProfile& framework_profile(Framework id) {
  for (const FrameworkProfile& p : kProfiles) {
    if (p.id == id) return p;
  }
  return kProfiles.front();
}

Framework parse_framework(std::string_view text) {
  return parse_named<Framework>("framework", text);
}

LossSpec parse_loss(std::string_view text) {
  constexpr const char* kAccepted = "fused|full|chunked:N (N in 2..1024)|linear";
  if (text == "fused") return {LossImpl::kFused, 1};
  if (text == "full") return {LossImpl::kFull, 1};
  if (text == "linear") return {LossImpl::kLinear, 1};
  constexpr std::string_view kChunked = "chunked:";
  if (text.starts_with(kChunked)) {
    const std::string_view digits = text.substr(kChunked.size());
    int n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc{} || end != digits.data() + digits.size() || n < 2 || n > kMaxLossChunks) {
      throw InvalidRequest("loss", fmt::format("'{}' is not a chunk count", digits), kAccepted);
    }
    return {LossImpl::kChunked, n};
  }
  unknown_name("loss", text, kAccepted, {"fused", "full", "chunked:8", "linear"});
}

LogitsDtype parse_logits_dtype(std::string_view text) {
  return parse_named<LogitsDtype>("logits_dtype", text);
}

OptimizerKernel parse_optimizer_kernel(std::string_view text) {
  return parse_named<OptimizerKernel>("optimizer_kernel", text);
}

GradAccumulationKernel parse_grad_accumulation_kernel(std::string_view text) {
  return parse_named<GradAccumulationKernel>("grad_accumulation_kernel", text);
}

NormImpl parse_norm(std::string_view text) { return parse_named<NormImpl>("norm", text); }

AttentionKernel parse_attention_kernel(std::string_view text) {
  return parse_named<AttentionKernel>("attention_kernel", text);
}

std::string loss_name(const LossSpec& loss) {
  switch (loss.impl) {
    case LossImpl::kFused:
      return "fused";
    case LossImpl::kFull:
      return "full";
    case LossImpl::kChunked:
      return fmt::format("chunked:{}", loss.chunks);
    case LossImpl::kLinear:
      return "linear";
  }
  return "fused";
}

}  // namespace tb
