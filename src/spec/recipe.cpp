// The built-in training recipes, each with its per-component bytes and its source.
#include "trainbudget/spec/recipe.hpp"

#include <fmt/format.h>

#include <numeric>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parse_named.hpp"

namespace tb {
namespace {

// bitsandbytes 8-bit Adam: each of m and v is one byte per value plus one fp32 absmax per
// block of 2048 values (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization",
// ICLR 2022, §2: block size 2048).
constexpr double kEightBitBlock = 2048.0;
constexpr double kEightBitAdamBytes = 2.0 * (1.0 + 4.0 / kEightBitBlock);

// torchao's AdamW4bit (torchao/optim/subclass_4bit.py OptimState4bit.zeros): each of m and v is
// two 4-bit codes per byte plus one fp32 scale per block; transformers' Trainer builds it with
// block_size 256 (trainer_optimizer.py _get_torchao_optimizer: optim_args' block_size, default
// 256), so 2 x (0.5 + 4 / 256) B per parameter.
constexpr double kFourBitBlock = 256.0;
constexpr double kFourBitAdamBytes = 2.0 * (0.5 + 4.0 / kFourBitBlock);

// Adafactor keeps a row and a column second-moment vector (fp32) per r x c matrix and, with
// beta1 = 0 (the paper's setting and transformers' default beta1=None), no first moment:
// 4(r + c) / (r c) bytes per parameter. Shazeer & Stern 2018, "Adafactor", §3 (Alg. 4).
// With only a parameter count known we take square 4096 x 4096 matrices: 8/4096 B/param.
constexpr double kAdafactorNominalDim = 4096.0;
constexpr double kAdafactorBytes = 4.0 * 2.0 / kAdafactorNominalDim;

std::vector<Recipe> make_recipes() {
  using K = StateKind;
  return {
      {"amp-adam",
       "mixed-precision AdamW (bf16 compute, fp32 master and moments)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Rajbhandari et al. 2020 (ZeRO), §3.1: mixed-precision Adam keeps 2Ψ + 2Ψ + KΨ bytes, "
       "K = 12 (fp32 params, momentum, variance); the seed document's 16 B/param"},
      {"megatron",
       "Megatron-LM mixed precision (bf16 params, fp32 main grads)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "main gradients (fp32)", 4.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Megatron Core developer guide, 'Distributed Optimizer': 'float16 param, fp32 grads: "
       "18' bytes per parameter (non-distributed optimizer)"},
      {"deepspeed",
       "DeepSpeed ZeRO-2 estimator on one device (fp16 params and grads + 16 B fp32 states)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        // DeepSpeed's estimator keeps the 16-bit gradients whole under ZeRO-2 (its 4Ψ term) and
        // partitions the fp32 gradient with the optimizer states (16Ψ/N).
        {K::kGradients, "gradients (bf16)", 2.0, 3},
        {K::kGradients, "gradient partition (fp32)", 4.0, 1},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "DeepSpeed deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs: "
       "4Ψ + 16Ψ/N_gpus, i.e. 2 + 18 = 20 B/param on one device"},
      {"hf-trainer",
       "Hugging Face Trainer mixed precision (fp32 weights + half copy, fp32 grads)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "half-precision weight copy (bf16)", 2.0},
        {K::kGradients, "gradients (fp32)", 4.0},
        {K::kOptimizer, "AdamW m, v (fp32)", 8.0},
        {K::kMaster, "weights (fp32)", 4.0}},
       "Hugging Face Transformers docs, 'Model training anatomy': mixed-precision weights 6 "
       "B/param (fp32 + fp16 copy), gradients 4 B, AdamW 8 B = 18 B/param"},
      {"pure-bf16-adam",
       "pure bf16 AdamW (weights, grads and moments in bf16, no master copy)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (bf16)", 4.0}},
       "Zamirai et al. 2020, 'Revisiting BFloat16 Training' (arXiv:2010.06192): every tensor in "
       "bf16, no fp32 master copy; 2 + 2 + 2x2 = 8 B/param"},
      {"bf16-adam",
       "bf16 weights and gradients, fp32 Adam moments, no master copy",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0}},
       "Dettmers et al. 2023 (QLoRA), §1: 'regular 16-bit finetuning of a LLaMA 65B parameter "
       "model requires more than 780 GB of GPU memory' = 65.2B x (2 + 2 + 8) B"},
      {"pure-bf16-fp32-grads",
       "pure bf16 AdamW with gradients accumulated in fp32",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradient accumulation buffer (fp32)", 4.0},
        {K::kOptimizer, "Adam m, v (bf16)", 4.0}},
       "Megatron-LM's accumulate_allreduce_grads_in_fp32 (an fp32 main_grad buffer beside bf16 "
       "params); moments in bf16 as pure-bf16-adam: 2 + 4 + 4 = 10 B/param"},
      {"adam-in-backward",
       "mixed-precision AdamW stepped inside the backward pass (no gradient buffer)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (freed per parameter as the step runs)", 0.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "PyTorch tutorial 'How to save memory by fusing the optimizer step into the backward "
       "pass' (register_post_accumulate_grad_hook): each gradient is consumed and freed as soon "
       "as it is produced, so no full gradient buffer is kept; 14 B/param + one tensor's gradient"},
      {"fp32-adam",
       "fp32 AdamW (no mixed precision)",
       DType::kFp32,
       4.0,
       {{K::kWeights, "weights (fp32)", 4.0},
        {K::kGradients, "gradients (fp32)", 4.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0}},
       "Rajbhandari et al. 2020 (ZeRO), §3.1: fp32 weights and gradients 4 + 4, Adam m, v 8 = 16 "
       "B/param, no separate master copy"},
      {"fsdp-fp32-params",
       "fp32 parameters sharded by FSDP, computing in bf16 (FSDP MixedPrecision)",
       DType::kBf16,
       4.0,
       {{K::kWeights, "weights (fp32, sharded; bf16 gathered to compute)", 4.0},
        {K::kGradients, "gradients (fp32, reduced in fp32)", 4.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0}},
       "verl/workers/fsdp_workers.py: the actor loads in model_dtype fp32 by default and FSDP's "
       "MixedPrecision(param_dtype bf16, reduce_dtype fp32) gathers bf16 copies to compute; "
       "fp32 weights, gradients 4 + 4, Adam m, v 8 = 16 B/param, frozen weights in fp32"},
      {"fp32-sgd",
       "fp32 SGD without momentum (no optimizer state)",
       DType::kFp32,
       4.0,
       {{K::kWeights, "weights (fp32)", 4.0}, {K::kGradients, "gradients (fp32)", 4.0}},
       "PyTorch torch/optim/sgd.py: momentum_buffer is created only when momentum != 0, so plain "
       "SGD keeps no state; fp32 weights and gradients 4 + 4 = 8 B/param"},
      {"adam-8bit",
       "mixed precision with bitsandbytes 8-bit AdamW (block-wise quantized moments)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (8-bit, + fp32 absmax per 2048)", kEightBitAdamBytes},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Dettmers et al. 2022, '8-bit Optimizers via Block-wise Quantization' (ICLR): 1 B per "
       "moment value + one fp32 absmax per 2048-value block"},
      {"bf16-adam-8bit",
       "bf16 weights and gradients with bitsandbytes 8-bit AdamW, no master copy (torchtune)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (8-bit, + fp32 absmax per 2048)", kEightBitAdamBytes}},
       "torchtune's full_finetune_single_device with dtype bf16 and bitsandbytes' "
       "(Paged)AdamW8bit: "
       "the model is built in bf16 (training.set_default_dtype), the optimizer steps those bf16 "
       "weights with its block-wise 8-bit moments (Dettmers et al. 2022), no fp32 master"},
      {"adam-4bit",
       "mixed precision with torchao's 4-bit AdamW (block-wise quantized moments)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (4-bit, + fp32 scale per 256)", kFourBitAdamBytes},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "torchao optim/subclass_4bit.py: 4-bit codes, an fp32 scale per 256-value block (the "
       "Trainer's block_size); transformers' optim adamw_torch_4bit; its README measures a "
       "Llama 2 7B full bf16 fine-tune at 33.2 GB against 51.6 GB with fused AdamW"},
      {"bf16-adam-4bit",
       "bf16 weights and gradients with torchao's 4-bit AdamW, no master copy",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (4-bit, + fp32 scale per 256)", kFourBitAdamBytes}},
       "torchao optim/adam.py single_param_adam: the step runs in fp32 and writes the parameter "
       "back in its own dtype, so bf16 weights keep no fp32 copy"},
      {"paged-adam-8bit",
       "mixed precision with bitsandbytes paged 8-bit AdamW",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "paged Adam m, v (8-bit + absmax; may spill to host)", kEightBitAdamBytes},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "bitsandbytes docs, 'Paged optimizers': states in CUDA unified memory, evicted to CPU when "
       "GPU memory is exhausted; the same bytes as adam-8bit, counted here on the device"},
      {"fp8-amp",
       "FP8 matmuls (Transformer Engine) on mixed-precision AdamW",
       DType::kFp8,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kWeights, "FP8 weight cache", 1.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "NVIDIA Transformer Engine user guide, 'Performance optimizations: FP8 weight caching' "
       "(an FP8 copy of each weight kept across micro-batches, 1 B/param) on the amp-adam states"},
      {"fp8-params-bf16-adam",
       "FP8 primary weights (Transformer Engine fp8_params) with a bf16 optimizer (NeMo)",
       DType::kFp8,
       2.0,
       {{K::kWeights, "weights (FP8)", 1.0},
        {K::kWeights, "FP8 transposed copy", 1.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (bf16)", 4.0},
        {K::kMaster, "optimizer's weight copy (bf16)", 2.0}},
       "NeMo 24.07 with fp8_params and distributed_fused_adam at dtype bf16 (NeMo-Framework-"
       "Launcher 24.07, conf/peft/llama/sft.yaml): Transformer Engine's fp8_model_init keeps only "
       "FP8 weights (1 B) and caches their FP8 transpose (Float8Tensor._transpose, 1 B); "
       "megatron_base_model.py forces store_params for fp8_params, so apex DistributedFusedAdam "
       "keeps a bf16 weight copy (2 B), bf16 gradients (2 B) and bf16 exp_avg, exp_avg_sq (4 B): "
       "10 B/param"},
      {"megatron-fp8",
       "Megatron-Bridge FP8 (Transformer Engine, fp8_param_gather): FP8 weights, bf16 grads",
       DType::kFp8,
       2.0,
       {{K::kWeights, "weights (FP8)", 1.0},
        {K::kWeights, "FP8 transposed copy (Hopper)", 1.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "Adam m, v (fp32)", 8.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Megatron-Bridge 0026ec18 llama3.py (llama3_70b_sft_config) and its FP8 mixed-precision "
       "recipes: fp8_param_gather=True (Transformer Engine keeps only the FP8 weights, "
       "quantization.py quantized_model_init), whose transpose stays allocated on Hopper "
       "(float8_tensor.py: columnwise data made with the parameter and refreshed in place after "
       "each gather); grad_reduce_in_fp32=False, so Megatron-Core's gradient buffer is bf16 "
       "(distributed_data_parallel.py: grad_dtype = param.dtype); the distributed optimizer's "
       "fp32 master weights and Adam moments: 1 + 1 + 2 + 4 + 8 = 16 B/param"},
      {"sgd-momentum",
       "mixed-precision SGD with momentum",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "momentum (fp32)", 4.0},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Hugging Face Transformers docs, 'Model training anatomy': SGD with momentum keeps one "
       "state, 4 B/param; weights, grads and master as amp-adam"},
      {"adafactor",
       "mixed-precision Adafactor (factored second moment, no momentum)",
       DType::kBf16,
       2.0,
       {{K::kWeights, "weights (bf16)", 2.0},
        {K::kGradients, "gradients (bf16)", 2.0},
        {K::kOptimizer, "row + column second moments (fp32, 4096x4096 nominal)", kAdafactorBytes},
        {K::kMaster, "master weights (fp32)", 4.0}},
       "Shazeer & Stern 2018, 'Adafactor' (arXiv:1804.04235), §3: r + c fp32 statistics per "
       "r x c matrix, beta1 = 0"},
  };
}

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> kRecipes = make_recipes();
  return kRecipes;
}

}  // namespace

int default_shard_stage(StateKind kind) {
  switch (kind) {
    case StateKind::kWeights:
      return 3;
    case StateKind::kGradients:
      return 2;
    case StateKind::kOptimizer:
    case StateKind::kMaster:
      return 1;
  }
  return 3;
}

int shard_stage(const StateComponent& component) {
  return component.shard_stage != 0 ? component.shard_stage : default_shard_stage(component.kind);
}

double Recipe::bytes_per_trainable_param() const {
  return std::accumulate(
      components.begin(), components.end(), 0.0,
      [](double sum, const StateComponent& c) { return sum + c.bytes_per_param; });
}

std::span<const Recipe> all_recipes() { return recipes(); }

std::vector<RecipeBreakdown> recipe_breakdowns() {
  std::vector<RecipeBreakdown> out;
  for (const Recipe& r : recipes()) {
    RecipeBreakdown b;
    b.recipe = &r;
    for (const StateComponent& c : r.components) {
      switch (c.kind) {
        case StateKind::kWeights:
          b.weights += c.bytes_per_param;
          break;
        case StateKind::kGradients:
          b.gradients += c.bytes_per_param;
          break;
        case StateKind::kOptimizer:
          b.optimizer += c.bytes_per_param;
          break;
        case StateKind::kMaster:
          b.master += c.bytes_per_param;
          break;
      }
    }
    out.push_back(b);
  }
  return out;
}

const Recipe& find_recipe(std::string_view id) {
  for (const Recipe& recipe : recipes()) {
    if (recipe.id == id) return recipe;
  }
  std::vector<std::string> ids;
  for (const Recipe& recipe : recipes()) ids.emplace_back(recipe.id);
  throw InvalidRequest("recipe",
                       fmt::format("unknown recipe '{}'{}", excerpt(id), did_you_mean(id, ids)),
                       recipe_choices());
}

double adam_moment_bytes(const Recipe& recipe) {
  double adam = 0.0;
  for (const StateComponent& c : recipe.components) {
    if (c.kind == StateKind::kOptimizer && c.label.find("Adam m, v") != std::string_view::npos) {
      adam += c.bytes_per_param;
    }
  }
  return adam / 2.0;
}

std::string recipe_choices() {
  std::string out;
  for (const Recipe& recipe : recipes()) {
    if (!out.empty()) out += '|';
    out += recipe.id;
  }
  return out;
}

}  // namespace tb
