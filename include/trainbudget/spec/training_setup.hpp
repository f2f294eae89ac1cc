// The per-step knobs that size activations and attention FLOPs: micro-batch, sequence length,
// attention kernel, recomputation, activation dtype, dropout, gradient accumulation.
// docs/activations.md explains how each one enters the formulas.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {

// How attention is computed, which decides what it saves for backward.
enum class AttentionImpl {
  kEager,  // explicit QK^T, softmax, (dropout), AV: the b*a*s^2 scores are saved
  kFlash,  // FlashAttention / fused SDPA: only O(b*a*s) softmax statistics are saved
};

// What the backward pass recomputes instead of keeping (Korthikanti et al. 2022, sec. 5).
enum class Recompute {
  kNone,       // every activation the backward needs is kept
  kSelective,  // the attention core (softmax, its dropout, AV inputs) is recomputed
  kFull,       // only each decoder layer's input is kept; the layer reruns in backward
  // torchtitan's per-op selective AC (selective_ac_option = "op"): the layer input, the
  // attention kernel's output and statistics and every second matmul's output are kept; the
  // other matmuls and the elementwise ops rerun in backward.
  kSelectiveOp,
};

inline constexpr std::int64_t kDefaultSeqLen = 2048;
// Beyond these a value is a typo, not a job: 2^20 sequences per micro-batch, 2^24 tokens per
// sequence (16M, past every published context window), 2^20 micro-batches per step.
inline constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 24;
inline constexpr std::int64_t kMaxGradAccum = std::int64_t{1} << 20;
// recompute_layers' "every layer".
inline constexpr std::int64_t kAllLayers = -1;

// Images per sequence as the user gives them; the tokens they become are resolved from the
// model's encoder (api: the session's model resolution).
struct ImageInput {
  std::int64_t count{0};  // images per sequence; 0: a text-only job
  std::int64_t width{0};  // pixels; 0: the encoder's own size (SigLIP) or 448 x 448 (Qwen)
  std::int64_t height{0};
  // Qwen's processor cap on an image's pixels (Qwen2VLImageProcessor max_pixels; LLaMA-Factory's
  // image_max_pixels); 0: the released preprocessor_config.json's 12,845,056.
  std::int64_t max_pixels{0};
  bool train_encoder{false};  // the vision encoder and projector trained (else frozen)
  // Qwen: sampled frames of one video per sequence, each frame sized as an image; 0: none.
  std::int64_t video_frames{0};
  // Resolved: the video's temporal patches (frames / temporal_patch_size, rounded up), each an
  // encoder sequence of `patches` attending within itself, and its language-model tokens.
  std::int64_t video_slices{0};
  std::int64_t video_tokens{0};
  std::int64_t video_patches{0};  // per temporal patch (Qwen3-VL sizes frames apart from images)
  // Gemma 3's pan-and-scan (Gemma3ImageProcessor do_pan_and_scan): each image also encoded as
  // `crops` crops (resolved), each of the original's tokens.
  bool pan_and_scan{false};
  std::int64_t crops{0};
  // Encoder sequences per language-model sequence: the images and the video's temporal patches.
  [[nodiscard]] std::int64_t encoder_sequences() const {
    return count * (1 + crops) + video_slices;
  }
  // Resolved: per image, the language model's tokens (its markers included) and the encoder's
  // sequence (patches); the text tokens beside them in a sequence.
  std::int64_t tokens{0};
  std::int64_t patches{0};
  std::int64_t text_tokens{0};
};

struct TrainingSetup {
  std::int64_t micro_batch{1};           // b: sequences per forward/backward
  std::int64_t seq_len{kDefaultSeqLen};  // s: tokens per sequence
  bool seq_len_given{false};             // false: min(2048, the model's max_positions)
  AttentionImpl attention{AttentionImpl::kFlash};
  bool attention_given{false};  // false: the framework's (resolved_setup)
  Recompute recompute{Recompute::kNone};
  // Full recomputation of only the first N decoder layers of each pipeline stage, the rest keeping
  // every activation (Megatron-LM's --recompute-method block --recompute-num-layers N); -1: every
  // layer (kAllLayers).
  std::int64_t recompute_layers{kAllLayers};
  // The saved activations go to host memory after each layer's forward and come back before its
  // backward (torchtune's enable_activation_offloading, Megatron-Core's cpu_offloading).
  bool offload_activations{false};
  // The framework profile and the fields it defaults (docs/frameworks.md); nullopt: the
  // framework's, set by resolved_setup.
  Framework framework{Framework::kGeneric};
  std::optional<LossSpec> loss;
  std::optional<LogitsDtype> logits_dtype;
  std::optional<NormImpl> norm;
  std::optional<OptimizerKernel> optimizer_kernel;
  std::optional<GradAccumulationKernel> grad_accumulation_kernel;
  std::optional<AttentionKernel> attention_kernel;  // the fused attention's implementation
  // nullopt: the recipe's (activation_dtype()).
  std::optional<DType> activation_dtype;
  double dropout{0.0};  // 0: no dropout, no masks stored
  // Micro-batches per optimizer step; > 1 keeps the gradient buffer alive across forwards.
  std::int64_t grad_accumulation{1};
  // Count a causal kernel's (s + 1)/2 keys per query instead of all s (--causal-flops).
  bool causal_flops{false};
  // torch.compile: the framework's eager ops fused and issued as compiled kernels
  // (docs/time.md, "Launches").
  bool compile{false};
  // Liger Kernel's Triton patches (transformers' use_liger_kernel): RMSNorm, RoPE and the
  // gated MLP's SiLU x up each one fused kernel (docs/frameworks.md, "Liger Kernel").
  bool liger{false};
  // axolotl's fused LoRA autograd functions (kernels/lora.py LoRA_MLP, LoRA_QKV, LoRA_O; on by
  // default for its LoRA and QLoRA fine-tunes): a fully adapted gated MLP keeps its input, gate
  // and up only, and each adapter's product is added inside its base GEMM's output.
  bool lora_kernels{false};
  // Images in each sequence of a vision-language model (docs/vision.md): what the user gives,
  // and what the model's rule resolves it to (model/image_tokens.hpp).
  ImageInput images;
};

template <>
struct EnumNames<AttentionImpl> {
  static constexpr std::array<std::pair<AttentionImpl, std::string_view>, 2> kNames{
      {{AttentionImpl::kEager, "eager"}, {AttentionImpl::kFlash, "flash"}}};
};
template <>
struct EnumNames<Recompute> {
  static constexpr std::array<std::pair<Recompute, std::string_view>, 4> kNames{
      {{Recompute::kNone, "none"},
       {Recompute::kSelective, "selective"},
       {Recompute::kFull, "full"},
       {Recompute::kSelectiveOp, "selective-op"}}};
};

// Throw InvalidRequest naming the field (attention, recompute, activation_dtype) and its
// accepted values.
[[nodiscard]] AttentionImpl parse_attention(std::string_view text);
[[nodiscard]] Recompute parse_recompute(std::string_view text);
[[nodiscard]] DType parse_activation_dtype(std::string_view text);

// The dtype activations are stored in: the setup's, else the recipe's compute dtype, except
// that fp8 (and fp4) recipes keep activations in bf16 — Transformer Engine runs only the GEMMs
// in FP8 and passes bf16 tensors between them (TE user guide, "Using FP8 with Transformer
// Engine"); tf32 and fp64 store fp32.
[[nodiscard]] DType activation_dtype(const TrainingSetup& setup, const Recipe& recipe);

// Bytes per stored activation element: 2 for bf16/fp16, 4 for fp32.
[[nodiscard]] double activation_bytes(DType dtype);

// Throws InvalidRequest for a field out of range, naming its key (micro_batch, seq_len,
// dropout, activation_dtype, grad_accum).
void validate(const TrainingSetup& setup);

// The setup with its defaults resolved for a model: an unset sequence length becomes
// min(2048, max_positions); the attention, loss, logits dtype and norm not given become the
// framework's.
[[nodiscard]] TrainingSetup resolved_setup(const TrainingSetup& setup, std::int64_t max_positions);

}  // namespace tb
