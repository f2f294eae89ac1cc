// The model profile: every fact of a workload (model, method, recipe) that does not change
// from one layout to the next, computed once per request so that evaluate() only does
// arithmetic. Counts, the model-state terms, the activation widths, the gradient layout over
// the layers, the FLOP shape and the adapters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/model/kernel_inventory.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/recipe.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// What a model-state byte is kept for (the JSON memory keys).
enum class StateKey : std::uint8_t {
  kWeights,
  kGradients,
  kOptimizerStates,
  kMasterWeights,
  kFrozenWeights,
  kActivations,
};

// One row of the model states: a recipe component for the trainable parameters, or a part of
// the frozen base. Bytes are for a full replica; the layout's ZeRO stage divides them.
struct StateTerm {
  StateKey key{StateKey::kWeights};
  std::string label;  // words for the views ("Adam m, v (fp32)"); never read by evaluate
  BytesPerParam bytes_per_param;
  Params params;       // how many parameters this row is kept for
  Bytes bytes;         // a full replica
  int shard_stage{3};  // the ZeRO stage from which it is partitioned
};

// A vision-language job's encoder work per sequence (docs/vision.md, "Step"): its images, each
// a sequence of patches through the encoder's layers, then the merger. Empty: no images.
struct VisionLoad {
  double images{0.0};   // per language-model sequence
  double patches{0.0};  // per image: the encoder's sequence
  // A video's temporal patches per language-model sequence, each an encoder sequence of
  // clip_patches (its frames' grid, sized apart from the images' under Qwen3-VL).
  double clips{0.0}, clip_patches{0.0};
  double window{
      0.0};  // keys per query in windowed layers (Qwen2.5-VL, at most a sequence's); 0: all
  double layers{0.0};
  double full_layers{0.0};  // of which attend over the whole image (all of them unless windowed)
  double hidden{0.0}, intermediate{0.0}, heads{0.0};
  double merge{1.0};             // patches merged per side into a token (Qwen: 2; SigLIP pools: 1)
  double patch_width{0.0};       // pixel values per patch: channels x temporal patch x patch^2
  double out_hidden{0.0};        // the projector's output
  double mergers{1.0};           // projectors run per image (Qwen3-VL: 1 + its deepstack mergers)
  bool gated{false};             // a gated MLP (Qwen2.5-VL)
  bool backward{false};          // gradients run back through it (trained, or adapters in it)
  bool weight_gradients{false};  // its own weights trained
  // The projector's input width and rows per image (0: the encoder's width and its patches;
  // Mllama: vision_output_dim over max_tiles x (patches + 1) tokens).
  double projector_in{0.0}, projector_rows{0.0};
  // Mllama: the language model's cross-attention layers, the image tokens each attends to per
  // image, their k and v projections' output width (2 x kv heads x head dim) from lm_hidden, and
  // whether those projections' weights train (a full fine-tune of the language model).
  double cross_layers{0.0}, cross_tokens{0.0}, cross_kv{0.0}, lm_hidden{0.0};
  double lm_heads{0.0}, lm_head_dim{0.0};
  bool cross_weight_gradients{false};
  // The encoder's rows (patches) per language-model sequence: the images' and the video's.
  [[nodiscard]] double rows() const { return images * patches + clips * clip_patches; }
  [[nodiscard]] bool any() const { return rows() > 0.0; }
};

struct ModelProfile {
  Method method{Method::kFull};
  Params params;         // the base model's parameters
  Params params_active;  // per token (MoE: shared + top-k experts); == params otherwise
  Params trainable;      // adapters (LoRA/QLoRA) or the trained share (freeze)
  Tokens tokens;
  std::vector<StateTerm> states;  // in the order they are summed and shown
  // A preference objective's reference model: its forward over every micro-batch (the policy's
  // forward again, without the backward; docs/rl.md).
  bool reference_forward{false};

  // With an architecture only: the step's shapes.
  bool has_architecture{false};
  StepDims shape;  // widths; b, s, e, p and switches come from the layout
  std::int64_t dense_layers{0};
  std::int64_t moe_layers{0};
  std::vector<std::uint8_t> layer_is_moe;  // per decoder layer, index 0 first
  // Every decoder layer of one kind with one gradient share: the backward walk's total is then
  // linear along the layers (evaluate() looks at the two ends only).
  bool uniform_layers{false};
  std::int64_t max_positions{0};
  // Where gradients land as backward runs: a share of the gradient buffer per decoder layer
  // (count_params' formulas), the LM head (+ final norm; the shared table when tied) and the
  // input embedding. Adapters only (LoRA): split evenly over the decoder layers instead.
  bool adapters_only{false};
  std::vector<double> layer_gradient_share;
  double head_gradient_share{0.0};
  double embedding_gradient_share{0.0};
  double largest_trainable_tensor{0.0};  // parameters; sizes the per-tensor optimizer temporary
  OptimizerKernel optimizer_kernel{OptimizerKernel::kPerTensor};             // the resolved setup's
  GradAccumulationKernel grad_accumulation{GradAccumulationKernel::kFused};  // likewise
  double trainable_tensors{0.0};  // with an architecture: the tensors the optimizer loops over
  double moment_bytes{4.0};       // bytes of one Adam second-moment value (adam_moment_bytes)
  // Where the base model's parameters sit, for pipeline stages, expert parallelism and ZeRO-3's
  // gathered layers (shares of `params`): per decoder layer, of which routed experts, the input
  // embedding, and the LM head with the final norm (tied: the norm only; the last pipeline stage
  // then keeps a copy of the table, as Megatron-LM does).
  std::vector<double> layer_param_share;
  std::vector<double> layer_expert_share;
  // Running sums of the two (size layers + 1, [0] = 0): a stage's share in O(1), for the
  // planner's loop.
  std::vector<double> layer_param_prefix;
  std::vector<double> layer_expert_prefix;
  std::vector<double> layer_gradient_prefix;   // of layer_gradient_share (full training)
  std::vector<std::int64_t> moe_layer_prefix;  // MoE layers before each index
  double embedding_param_share{0.0};
  double head_param_share{0.0};
  bool tied_embeddings{false};
  double largest_layer_params{0.0};    // the largest decoder layer, parameters
  std::int64_t experts{0};             // routed experts per MoE layer (0: dense)
  std::int64_t heads{0}, kv_heads{0};  // what tensor parallelism splits
  FlopShape flops;
  std::vector<AdapterShape> adapters;
  KernelInventory kernels;  // the GEMM shapes the step's time prices (docs/time.md)
  VisionLoad vision;        // the image encoder's work (vision-language jobs with images)
  // The framework's way of running kernels (framework_profile): how it issues them, which
  // fused attention it calls, whether its element-wise ops are fused.
  Dispatch dispatch{Dispatch::kFused};
  AttentionKernel attention_kernel{AttentionKernel::kFlash2};
  double dp_bucket_bytes{25.0 * 1024 * 1024};  // the data-parallel gradient bucket
  bool sp_linear_keeps_shard{true};            // sp_linear_keeps_shard(framework)
  bool tp_beyond_kv_heads{false};              // tp_beyond_kv_heads(framework)
};

// Trainable parameters of the job: every parameter (full), the adapters (LoRA/QLoRA: counted
// exactly with an architecture, else the fraction), or the trained share (freeze).
[[nodiscard]] Params trainable_params(const TrainingJob& job);

// The profile of `job` under `recipe`. The job must be valid (validate(job)); a LoRA target
// that matches nothing throws InvalidRequest naming lora_targets.
[[nodiscard]] ModelProfile make_profile(const TrainingJob& job, const Recipe& recipe);

// JSON keys of the state rows.
template <>
struct EnumNames<StateKey> {
  static constexpr std::array<std::pair<StateKey, std::string_view>, 6> kNames{
      {{StateKey::kWeights, "weights"},
       {StateKey::kGradients, "gradients"},
       {StateKey::kOptimizerStates, "optimizer_states"},
       {StateKey::kMasterWeights, "master_weights"},
       {StateKey::kFrozenWeights, "frozen_weights"},
       {StateKey::kActivations, "activations"}}};
};

// Whether the job's frozen linears without an adapter keep no input (keep_adapted_inputs):
// LoRA, and QLoRA unless the framework's NF4 linear is bitsandbytes' (qlora_saves_inputs).
[[nodiscard]] bool frozen_inputs_dropped(const TrainingJob& job);

}  // namespace tb
