// The once-per-request facts of a workload.
#include "trainbudget/model/profile.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/model/galore.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

// QLoRA without an architecture: every parameter taken as an NF4-quantized linear weight with
// double-quantized constants (a lower bound: embeddings and norms really stay in 16 bits).
constexpr BytesPerParam kNf4BytesPerParam{0.5};

StateKey key_of(StateKind kind) {
  switch (kind) {
    case StateKind::kWeights:
      return StateKey::kWeights;
    case StateKind::kGradients:
      return StateKey::kGradients;
    case StateKind::kOptimizer:
      return StateKey::kOptimizerStates;
    case StateKind::kMaster:
      return StateKey::kMasterWeights;
  }
  return StateKey::kWeights;
}

void add_frozen_base(const TrainingJob& job, const Recipe& recipe, Params trainable,
                     std::vector<StateTerm>& out) {
  const std::string dtype{enum_name(recipe.compute_dtype)};
  const BytesPerParam storage{recipe.frozen_weight_bytes};
  const auto frozen = [&](std::string label, BytesPerParam bpp, Params params, Bytes bytes) {
    out.push_back({StateKey::kFrozenWeights, std::move(label), bpp, params, bytes, 3});
  };
  if (job.method == Method::kQlora) {
    if (job.model.architecture) {
      const FrozenBaseBytes base =
          qlora_base_bytes(*job.model.architecture, job.qlora, recipe.frozen_weight_bytes);
      const Params quantized{base.quantized_weights};
      if (job.qlora.bits == 8) {
        frozen("frozen linear weights (int8, LLM.int8)", BytesPerParam{1.0}, quantized, base.nf4);
        frozen("int8 scales (fp32 per output row)", base.constants / quantized, quantized,
               base.constants);
      } else {
        frozen("frozen linear weights (NF4)", kNf4BytesPerParam, quantized, base.nf4);
        frozen(job.qlora.double_quant ? "NF4 constants (double-quantized absmax)"
                                      : "NF4 constants (fp32 absmax per 64)",
               base.constants / quantized, quantized, base.constants);
      }
      frozen(fmt::format("embeddings, head, norms, biases ({})", dtype), storage,
             Params{base.unquantized_params}, base.unquantized);
      return;
    }
    const Params all{job.params};
    if (job.qlora.bits == 8) {
      // Without an architecture the rows are unknown: the scales (4 B a row) are left out.
      frozen("frozen weights (int8, all taken as linear; row scales not counted)",
             BytesPerParam{1.0}, all, BytesPerParam{1.0} * all);
      return;
    }
    const BytesPerParam constants =
        Bytes{nf4_constant_bytes(static_cast<std::int64_t>(job.params), job.qlora)} / all;
    frozen("frozen weights (NF4, all taken as linear)", kNf4BytesPerParam, all,
           kNf4BytesPerParam * all);
    frozen("NF4 constants", constants, all, constants * all);
    return;
  }
  // LoRA keeps the whole base frozen; freeze keeps the untrained share frozen, and a full
  // fine-tune its frozen vision encoder.
  const Params params =
      job.method == Method::kLora ? Params{job.params} : Params{job.params} - trainable;
  if (job.method == Method::kFull) {
    if (params > Params{0.0}) {
      frozen(fmt::format("frozen vision encoder ({})", dtype), storage, params, storage * params);
    }
    return;
  }
  if (params > Params{0.0}) {
    frozen(fmt::format("frozen weights ({})", dtype), storage, params, storage * params);
  }
}

// The largest single trainable tensor: the model's (full training) or the largest adapter
// matrix (A is r x in, B is out x r).
double largest_trainable(const ModelArchitecture& arch, const ModelProfile& p) {
  if (!p.adapters_only) return largest_tensor_params(arch);
  double largest = 0.0;
  for (const AdapterShape& a : p.adapters) {
    largest = std::max(largest, static_cast<double>(a.rank) *
                                    static_cast<double>(std::max(a.in_features, a.out_features)));
  }
  return largest;
}

// Trainable tensors, the count a per-tensor optimizer loop runs over: two per adapter (A and B),
// or every linear weight and bias of the model (model_linears), each decoder layer's norms
// (weight, and bias for LayerNorm), the final norm and the input embedding.
double trainable_tensor_count(const ModelArchitecture& arch, const ModelProfile& p) {
  double tensors = 0.0;
  if (p.adapters_only) {
    for (const AdapterShape& a : p.adapters) tensors += 2.0 * static_cast<double>(a.count);
    return tensors;
  }
  for (const LinearLayer& l : model_linears(arch)) {
    if (l.tied) continue;
    tensors += static_cast<double>(l.copies * l.layers) * (l.bias ? 2.0 : 1.0);
  }
  const double per_norm = arch.norm.kind == NormKind::kNonParametric                 ? 0.0
                          : arch.norm.kind == NormKind::kLayerNorm && arch.norm.bias ? 2.0
                                                                                     : 1.0;
  const double norms = p.shape.post_norms ? 4.0 : 2.0;
  tensors += per_norm * (norms * static_cast<double>(arch.num_layers) + 1.0 -
                         static_cast<double>(arch.mlp_free_layers)) +
             1.0;
  // A Gated DeltaNet layer's conv1d, dt_bias, A_log and gated-norm weight; a Mamba-2 layer's
  // conv1d weight and bias, dt_bias, A_log, D and the norm's weight; LFM2's short convolution: the
  // conv1d's weight (and its bias).
  const LinearMixer mixer =
      arch.linear_attention ? arch.linear_attention->mixer : LinearMixer::kGatedDelta;
  const double conv_tensors = arch.linear_attention && arch.linear_attention->conv_bias ? 2.0 : 1.0;
  const double per_layer = mixer == LinearMixer::kMamba2      ? 6.0
                           : mixer == LinearMixer::kShortConv ? conv_tensors
                                                              : 4.0;
  tensors += per_layer * static_cast<double>(linear_attention_layer_count(arch));
  return tensors;
}

// Gradients spread over the model in proportion to each part's parameters.
void gradient_shares(const ModelArchitecture& arch, ModelProfile& p) {
  if (p.adapters_only) return;  // evenly over the layers, by evaluate
  const ParamCounts counts = count_params(arch);
  const double total = static_cast<double>(counts.total);
  p.layer_gradient_share.reserve(static_cast<std::size_t>(arch.num_layers));
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    p.layer_gradient_share.push_back(
        static_cast<double>(decoder_layer_params(
            arch, is_moe_layer(arch, i), is_linear_attention_layer(arch, i), has_mlp(arch, i))) /
        total);
  }
  const double final_norm = static_cast<double>(norm_params(arch));
  if (arch.tie_embeddings) {
    // The LM head's backward writes the shared table's gradient.
    p.head_gradient_share = (static_cast<double>(counts.input_embedding) + final_norm) / total;
  } else {
    p.head_gradient_share = (static_cast<double>(counts.lm_head) + final_norm) / total;
    p.embedding_gradient_share = static_cast<double>(counts.input_embedding) / total;
  }
}

// Where the base parameters sit (count_params' formulas), for the parallel layouts.
void parameter_layout(const ModelArchitecture& arch, ModelProfile& p) {
  const ParamCounts counts = count_params(arch);
  const double total = static_cast<double>(counts.total);
  const double experts = arch.moe ? static_cast<double>(arch.moe->num_experts) *
                                        static_cast<double>(expert_params(arch))
                                  : 0.0;
  p.layer_param_share.reserve(static_cast<std::size_t>(arch.num_layers));
  p.layer_expert_share.reserve(static_cast<std::size_t>(arch.num_layers));
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    const bool moe = is_moe_layer(arch, i);
    const auto layer = static_cast<double>(
        decoder_layer_params(arch, moe, is_linear_attention_layer(arch, i), has_mlp(arch, i)));
    p.layer_param_share.push_back(layer / total);
    p.layer_expert_share.push_back(moe ? experts / total : 0.0);
    p.largest_layer_params = std::max(p.largest_layer_params, layer);
  }
  p.layer_param_prefix.assign(1, 0.0);
  p.layer_expert_prefix.assign(1, 0.0);
  for (std::size_t i = 0; i < p.layer_param_share.size(); ++i) {
    p.layer_param_prefix.push_back(p.layer_param_prefix.back() + p.layer_param_share[i]);
    p.layer_expert_prefix.push_back(p.layer_expert_prefix.back() + p.layer_expert_share[i]);
  }
  const double final_norm = static_cast<double>(norm_params(arch));
  p.tied_embeddings = arch.tie_embeddings;
  p.embedding_param_share = static_cast<double>(counts.input_embedding) / total;
  p.head_param_share = (static_cast<double>(counts.lm_head) + final_norm) / total;
  p.experts = arch.moe ? arch.moe->num_experts : 0;
  p.heads = arch.attention.num_heads;
  p.kv_heads = arch.attention.latent ? arch.attention.num_heads : arch.attention.num_kv_heads;
}

// The encoder's work per sequence, from the images as resolved (api) and the encoder's shape.
void vision_load(const TrainingJob& job, ModelProfile& p) {
  const VisionTowerSpec& v = *job.model.architecture->vision;
  const ImageInput& in = job.setup.images;
  VisionLoad& out = p.vision;
  out.images = static_cast<double>(in.count * (1 + in.crops));  // pan-and-scan's crops too
  out.patches = static_cast<double>(in.patches);
  out.clips = static_cast<double>(in.video_slices);
  out.clip_patches = static_cast<double>(in.video_patches);
  out.layers = static_cast<double>(v.layers);
  out.hidden = static_cast<double>(v.hidden);
  out.intermediate = static_cast<double>(v.intermediate);
  out.heads = static_cast<double>(v.heads);
  out.gated = v.kind == VisionKind::kQwen25Vl;
  out.merge = v.kind == VisionKind::kSiglip ? 1.0 : static_cast<double>(v.spatial_merge);
  out.patch_width = static_cast<double>(v.channels * std::max<std::int64_t>(v.temporal_patch, 1) *
                                        v.patch_size * v.patch_size);
  const bool to_lm_width = v.kind == VisionKind::kSiglip || v.kind == VisionKind::kMllama;
  out.out_hidden = static_cast<double>(to_lm_width ? job.model.architecture->hidden : v.out_hidden);
  out.full_layers = out.layers;
  out.mergers = 1.0 + static_cast<double>(v.deepstack_mergers);
  if (v.kind == VisionKind::kMllama) {
    const ModelArchitecture& arch = *job.model.architecture;
    out.layers = out.full_layers = static_cast<double>(v.layers + v.global_layers);
    const double side = static_cast<double>(v.image_size / v.patch_size);
    out.cross_tokens = static_cast<double>(v.max_tiles) * (side * side + 1.0);
    out.projector_in = static_cast<double>(v.output_dim);
    out.projector_rows = out.cross_tokens;
    out.cross_layers = static_cast<double>(v.cross_attention_layers.size());
    out.cross_kv = 2.0 * static_cast<double>(arch.attention.num_kv_heads * arch.attention.head_dim);
    out.lm_hidden = static_cast<double>(arch.hidden);
    out.lm_heads = static_cast<double>(arch.attention.num_heads);
    out.lm_head_dim = static_cast<double>(arch.attention.head_dim);
    out.cross_weight_gradients = !uses_adapters(job.method) && job.method != Method::kFreeze;
  }
  if (v.kind == VisionKind::kQwen25Vl && v.window > 0) {
    const double side = std::max(1.0, static_cast<double>(v.window / v.patch_size));
    out.window = side * side;
    out.full_layers = static_cast<double>(v.full_attention_layers.size());
  }
  bool adapted = false;  // adapters in the encoder need its backward (their inputs' gradients)
  if (uses_adapters(job.method)) {
    for (const AdaptedLinear& a : lora_adapters(*job.model.architecture, job.lora)) {
      adapted = adapted || a.layer.place == LinearPlace::kVision;
    }
  }
  out.weight_gradients = in.train_encoder && !uses_adapters(job.method);
  out.backward = out.weight_gradients || adapted;
}

void add_architecture(const TrainingJob& job, ModelProfile& p) {
  const ModelArchitecture& arch = *job.model.architecture;
  p.has_architecture = true;
  p.shape = with_kernels(shape_dims(arch), job_setup(job, arch.max_positions));
  p.moe_layers = moe_layer_count(arch);
  p.dense_layers = arch.num_layers - p.moe_layers;
  p.layer_is_moe.reserve(static_cast<std::size_t>(arch.num_layers));
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    p.layer_is_moe.push_back(is_moe_layer(arch, i) ? 1 : 0);
  }
  p.max_positions = arch.max_positions;
  p.adapters_only = uses_adapters(job.method);
  if (p.adapters_only) p.adapters = adapter_shapes(arch, job.lora);
  // Preference and RL trainers reduce the logits to per-token log-probs inside the loss step
  // and let them go (TRL's DPOTrainer.concatenated_forward returns the log-probs and scalar
  // means; GRPOTrainer._get_per_token_logps_and_entropies the log-probs): what the loss saved
  // stays, the logits are not held through backward (measured: tests/realstep, --trainer dpo).
  if (job.objective != Objective::kSft) p.shape.keep_logits = false;
  // TRL's online trainers scale the logits by the temperature in place on a slice (step_dims.hpp).
  p.shape.logits_scaled_in_place =
      online_rl(job.objective) && job.setup.framework == Framework::kHf;
  p.shape.adapter_ranks = adapter_rank_sum(p.adapters);
  p.shape.lora_dropout = p.adapters_only && job.lora.dropout > 0.0;
  p.shape.adapter_inputs = p.shape.lora_dropout ? adapter_input_sum(p.adapters) : 0.0;
  p.shape.dora_outputs = dora_output_sum(p.adapters);
  if (frozen_inputs_dropped(job)) keep_adapted_inputs(arch, job.lora, p.shape);
  gradient_shares(arch, p);
  parameter_layout(arch, p);
  p.layer_gradient_prefix.assign(1, 0.0);
  for (const double g : p.layer_gradient_share) {
    p.layer_gradient_prefix.push_back(p.layer_gradient_prefix.back() + g);
  }
  p.moe_layer_prefix.assign(1, 0);
  for (const std::uint8_t m : p.layer_is_moe)
    p.moe_layer_prefix.push_back(p.moe_layer_prefix.back() + m);
  p.uniform_layers = std::all_of(p.layer_is_moe.begin(), p.layer_is_moe.end(),
                                 [&](std::uint8_t m) { return m == p.layer_is_moe.front(); }) &&
                     std::all_of(p.layer_gradient_share.begin(), p.layer_gradient_share.end(),
                                 [&](double g) { return g == p.layer_gradient_share.front(); });
  p.largest_trainable_tensor = largest_trainable(arch, p);
  p.trainable_tensors = trainable_tensor_count(arch, p);
  p.flops = flop_shape(arch, p.adapters_only, p.adapters);
  p.kernels = kernel_inventory(arch, p.adapters_only || job.method == Method::kFreeze,
                               job.method == Method::kQlora ? &job.qlora : nullptr, p.adapters);
  // PEFT's modules_to_save: a trained copy of the head computes its weight gradient.
  if (p.adapters_only && saves_head(job.lora)) p.kernels.head.trained = true;
  const FrameworkProfile& fw = framework_profile(job.setup.framework);
  p.dispatch = job.setup.compile ? Dispatch::kCompiled : fw.dispatch;
  p.attention_kernel = resolved_setup(job.setup, 0).attention_kernel.value_or(fw.attention_kernel);
  p.dp_bucket_bytes = dp_bucket_bytes(job.setup.framework);
  p.sp_linear_keeps_shard = sp_linear_keeps_shard(job.setup.framework);
  p.tp_beyond_kv_heads = tp_beyond_kv_heads(job.setup.framework);
  if (arch.vision && job.setup.images.encoder_sequences() > 0) vision_load(job, p);
}

}  // namespace

Params trainable_params(const TrainingJob& job) {
  const auto& arch = job.model.architecture;
  const Params params{job.params};
  switch (job.method) {
    case Method::kFull:
      // A vision encoder trains only when asked (LLaMA-Factory's freeze_vision_tower default).
      if (arch && arch->vision && !job.setup.images.train_encoder && job.model.counts) {
        return params - Params{static_cast<double>(job.model.counts->vision)};
      }
      return params;
    case Method::kLora:
    case Method::kQlora:
      // With an architecture the adapters are counted exactly (PEFT); otherwise the fraction.
      if (arch) return Params{static_cast<double>(lora_trainable_params(*arch, job.lora))};
      return params * job.trainable_fraction;
    case Method::kFreeze:
      return params * job.trainable_fraction;
  }
  return params;
}

bool frozen_inputs_dropped(const TrainingJob& job) {
  if (job.method == Method::kLora) return true;
  return job.method == Method::kQlora && !framework_profile(job.setup.framework).qlora_saves_inputs;
}

ModelProfile make_profile(const TrainingJob& job, const Recipe& recipe) {
  ModelProfile p;
  p.method = job.method;
  p.params = Params{job.params};
  // Per token an MoE model runs only its active parameters (shared + top-k experts).
  p.params_active =
      job.model.counts ? Params{static_cast<double>(job.model.counts->active)} : p.params;
  p.trainable = trainable_params(job);
  p.tokens = Tokens{job.tokens};
  const bool adapters = uses_adapters(job.method);
  for (const StateComponent& c : recipe.components) {
    std::string label{c.label};
    if (adapters && c.kind == StateKind::kWeights) label = "adapter " + label;
    const BytesPerParam width{c.bytes_per_param};
    p.states.push_back({key_of(c.kind), std::move(label), width, p.trainable, width * p.trainable,
                        shard_stage(c)});
  }
  // GaLore keeps a share of the moments (model/galore.hpp).
  if (job.galore_rank > 0 && job.method == Method::kFull && job.model.architecture) {
    const double share = galore_state_share(*job.model.architecture, job.galore_rank);
    for (StateTerm& t : p.states) {
      if (t.key != StateKey::kOptimizerStates) continue;
      t.bytes_per_param = t.bytes_per_param * share;
      t.bytes = t.bytes * share;
      t.label +=
          fmt::format(" (GaLore rank {}: {:.0f} % of AdamW's)", job.galore_rank, share * 100.0);
    }
  }
  add_frozen_base(job, recipe, p.trainable, p.states);
  // A full or partly frozen policy's reference: a frozen copy of the base in the compute dtype,
  // sharded as the frozen weights are (TRL prepares it with the same ZeRO-3 config).
  if (reference_weights(job)) {
    const BytesPerParam storage{recipe.frozen_weight_bytes};
    p.states.push_back(
        {StateKey::kFrozenWeights,
         fmt::format("reference model ({}, frozen)", enum_name(recipe.compute_dtype)), storage,
         p.params, storage * p.params, 3});
  }
  // Online RL computes the reference's log-probs with the rollout, once per generation batch
  // (eval/rollout.hpp), not in every micro-batch of the update.
  p.reference_forward = reference_forward(job) && !online_rl(job.objective);
  p.optimizer_kernel =
      resolved_setup(job.setup, 0).optimizer_kernel.value_or(OptimizerKernel::kPerTensor);
  // Stepped inside the backward, each gradient is consumed and freed as it is produced (the
  // PyTorch tutorial "How to save memory by fusing the optimizer step into the backward pass";
  // torchtune's optimizer_in_bwd): no gradient buffer is kept.
  if (p.optimizer_kernel == OptimizerKernel::kInBackward) {
    for (StateTerm& t : p.states) {
      if (t.key != StateKey::kGradients) continue;
      t.label += " (freed per tensor: stepped in backward)";
      t.bytes_per_param = BytesPerParam{0.0};
      t.bytes = Bytes{0.0};
    }
  }
  p.grad_accumulation = resolved_setup(job.setup, 0)
                            .grad_accumulation_kernel.value_or(GradAccumulationKernel::kFused);
  // NeMo RL's Megatron policy (the megatron profile's online RL, as pack_sequences and
  // offload_between_phases read it) accumulates unfused: its environment has no APEX, and
  // Megatron-Bridge at the commit NeMo RL v0.5.0 pins (1e9a459) enables the fusion only when
  // APEX's fused_weight_gradient_mlp_cuda imports (utils/fusions.py
  // can_enable_gradient_accumulation_fusion), NeMo's GPTConfig at v0.3 likewise; v0.6's
  // grpo_math_1B.yaml sets gradient_accumulation_fusion false. Megatron-Core's DDP then adds
  // each micro-batch's weight gradient into the buffer (main_grad.add_).
  if (!job.setup.grad_accumulation_kernel && job.setup.framework == Framework::kMegatron &&
      online_rl(job.objective)) {
    p.grad_accumulation = GradAccumulationKernel::kAdd;
  }
  p.moment_bytes = adam_moment_bytes(recipe);
  if (job.model.architecture) add_architecture(job, p);
  // Transformer Engine saves a trainable linear's input for its weight gradient in FP8 under an
  // fp8 recipe (transformer_engine/pytorch/module/linear.py: the quantized input is what
  // ctx.save_for_backward keeps; layernorm_mlp.py likewise for fc2's input). A frozen base
  // (LoRA) saves none, and its adapters run in 16 bits.
  if (p.has_architecture && recipe.compute_dtype == DType::kFp8 && !p.adapters_only) {
    p.shape.fp8_inputs = true;
  }
  return p;
}

}  // namespace tb
