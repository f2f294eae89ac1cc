// Each framework's refusals (docs/frameworks.md, "Who runs the layout"), read at the commits
// named there: Megatron-LM d98e8a64, DeepSpeed edaa7221, torchtitan b5bcd76c, accelerate
// 16cb6eb8. A ZeRO stage over one data-parallel rank partitions nothing, and the planner writes
// it as 0 (plan/space.cpp): the rules that ask for a stage >= 1 hold there (a single device runs
// ZeRO-Offload at stage 1 or 2 with nothing to partition).
#include "trainbudget/eval/runner_rules.hpp"

namespace tb {
namespace {

// One refusal: whether it applies, and its words.
struct Refusal {
  bool applies;
  const char* words;
};

constexpr std::size_t kMostRefusals = 10;
using Refusals = std::array<Refusal, kMostRefusals>;

Refusals megatron(const Layout& l) noexcept {
  const Parallelism& x = l.parallel;
  return {{
      // ZeRO-1 is the distributed optimizer (docs/user-guide/features/dist_optimizer.md: 6 + 12/d
      // bytes a parameter, a full gradient buffer kept); 2 and 3 are Megatron-FSDP's optim_grads
      // and optim_grads_params, whose pipeline composition no test or doc states: not planned.
      {l.zero_stage >= 2 && x.pp > 1,
       "Megatron-Core shards gradients or weights only under Megatron-FSDP "
       "(data_parallel_sharding_strategy), not planned with pipeline parallelism; the "
       "distributed optimizer is ZeRO-1"},
      {x.offload == Offload::kParams,
       "Megatron-Core has no parameter offload for training (megatron/training/arguments.py)"},
      // megatron/core/optimizer/__init__.py: the precision-aware optimizer (its argument
      // use_precision_aware_optimizer) is "only supported with distributed optimizer";
      // arguments.py: "optimizer cpu offload must be used in conjunction with" it.
      {x.offload == Offload::kOptimizer && l.zero_stage < 1 && l.dense_shards() > 1,
       "Megatron-Core offloads the optimizer only with the distributed optimizer (ZeRO >= 1; "
       "megatron/core/optimizer/__init__.py)"},
      // megatron/core/transformer/transformer_config.py: "Currently there is no support for
      // Pipeline parallelism with CPU offloading"; "CPU offloading does not work when activation
      // recomputation is enabled".
      {l.offload_activations && (x.pp > 1 || l.recompute != Recompute::kNone),
       "Megatron-Core's activation CPU offloading refuses pipeline parallelism and recomputation "
       "(megatron/core/transformer/transformer_config.py)"},
      // arguments.py: "pipeline-model-parallel size should be greater than 2 with interleaved
      // schedule".
      {x.virtual_stages > 1 && x.pp <= 2,
       "Megatron-Core interleaves only with more than 2 pipeline stages "
       "(megatron/training/arguments.py)"},
      // --num-distributed-optimizer-instances: replicas of the distributed optimizer.
      {x.shard_group > 0 && l.zero_stage < 1,
       "Megatron-Core's partial sharding (num_distributed_optimizer_instances) needs the "
       "distributed optimizer"},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
  }};
}

Refusals deepspeed(const Layout& l) noexcept {
  const Parallelism& x = l.parallel;
  return {{
      // deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
      // parallelism".
      {x.pp > 1 && l.zero_stage > 1,
       "DeepSpeed's pipeline engine accepts ZeRO <= 1 (deepspeed/runtime/pipe/engine.py)"},
      // deepspeed/runtime/pipe/schedule.py has the 1F1B training schedule only.
      {x.virtual_stages > 1,
       "DeepSpeed's pipeline has no interleaved schedule (deepspeed/runtime/pipe/schedule.py)"},
      // deepspeed/runtime/zero/offload_config.py: offload_optimizer "Valid with stage 1, 2, and
      // 3"; at stage 0 no ZeRO optimizer is built and the offload does nothing.
      {x.offload == Offload::kOptimizer && l.zero_stage < 1 && l.dense_shards() > 1,
       "DeepSpeed offloads the optimizer with ZeRO 1-3 (deepspeed/runtime/zero/"
       "offload_config.py)"},
      // deepspeed/sequence/layer.py: DeepSpeed's sequence parallelism is Ulysses (all-to-all
      // of heads), not the ring attention `cp` prices.
      {x.cp > 1,
       "DeepSpeed splits sequences with Ulysses (deepspeed/sequence/layer.py), not ring "
       "attention"},
      // deepspeed/runtime/engine.py: "Native DeepSpeed MoE is not supported with ZeRO Stage 3."
      {x.ep > 1 && l.zero_stage == 3,
       "DeepSpeed's MoE refuses ZeRO-3 (deepspeed/runtime/engine.py)"},
      // deepspeed/runtime/activation_checkpointing/config.py: cpu_checkpointing moves the
      // checkpoints of activation checkpointing to the host.
      {l.offload_activations && l.recompute != Recompute::kFull,
       "DeepSpeed offloads activations as cpu_checkpointing, which needs full recomputation "
       "(deepspeed/runtime/activation_checkpointing/config.py)"},
      // zero_hpz_partition_size (ZeRO++) and mics_shard_size partition ZeRO-3's weights.
      {x.shard_group > 0 && l.zero_stage != 3,
       "DeepSpeed's partial sharding (ZeRO++ hpZ, MiCS) is ZeRO-3's (deepspeed/runtime/zero/"
       "config.py)"},
      {l.partial_recompute(1 << 30),
       "DeepSpeed's activation checkpointing wraps what the model checkpoints: no first-N-layers "
       "method (Megatron-Core's recompute_method block)"},
      // deepspeed/utils/groups.py, _create_expert_data_and_model_parallel: the expert-parallel
      // groups are cut from the data-parallel groups only.
      {x.ep > 1 && l.expert_tp() != x.tp,
       "DeepSpeed's MoE splits experts over data-parallel ranks only (deepspeed/utils/groups.py): "
       "no folding over the tensor-parallel ranks"},
      // deepspeed/runtime/pipe/module.py, _partition_layers: partition_method "parameters",
      // "uniform" or "type:REGEX".
      {given_edge_stages(x),
       "DeepSpeed's PipelineModule splits the layers by its partition_method (parameters, "
       "uniform, type:REGEX), not by the first and last stages' counts "
       "(deepspeed/runtime/pipe/module.py)"},
  }};
}

Refusals fsdp(const Layout& l) noexcept {
  const Parallelism& x = l.parallel;
  return {{
      // torchtitan/distributed/fsdp.py: FSDP2 shards weights, gradients and optimizer states
      // together (ZeRO-3; reshard_after_forward=False under pipelining is ZeRO-2), or DDP (0).
      {l.zero_stage == 1,
       "FSDP2 has no optimizer-only sharding: torchtitan runs DDP (ZeRO-0) or FSDP (ZeRO-2/3; "
       "torchtitan/distributed/fsdp.py)"},
      // torchtitan/distributed/fsdp.py: enable_cpu_offload is CPUOffloadPolicy(): weights,
      // gradients and optimizer states move to the host together.
      {x.offload == Offload::kOptimizer,
       "FSDP2 offloads weights, gradients and optimizer states together (CPUOffloadPolicy, "
       "torchtitan/distributed/fsdp.py): offload params with ZeRO-3"},
      {l.offload_activations, "torchtitan offloads activations only in experiments/graph_trainer"},
      {x.shard_group > 0 && l.zero_stage < 2, "HSDP replicates FSDP groups: it needs ZeRO-2/3"},
      // torchtitan's activation checkpointing: every layer (full), every N-th layer or per op
      // (selective), not the first N of a stage (Megatron's recompute_method block).
      {l.partial_recompute(1 << 30),
       "torchtitan recomputes every layer, or every N-th (selective_ac_option), not the first N"},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
  }};
}

Refusals accelerate(const Layout& l) noexcept {
  const Parallelism& x = l.parallel;
  return {{
      // accelerate accelerator.py: "Pipeline parallelism is currently not supported in
      // Accelerate."; parallelism_config.py has no expert degree; tensor and context
      // parallelism need a model split by transformers' tp_plan and SDPA: not planned here.
      {x.pp > 1 || x.ep > 1 || x.tp > 1 || x.cp > 1,
       "transformers' Trainer through accelerate runs data parallelism (DeepSpeed ZeRO or FSDP); "
       "no pipeline or expert parallelism (accelerate/accelerator.py)"},
      {x.offload == Offload::kOptimizer && l.zero_stage < 1 && l.dense_shards() > 1,
       "the Trainer offloads the optimizer through DeepSpeed ZeRO 1-3 (deepspeed/runtime/zero/"
       "offload_config.py)"},
      {l.offload_activations, "transformers' Trainer has no activation offload"},
      // transformers' gradient_checkpointing_enable wraps every decoder layer.
      {l.recompute == Recompute::kSelective || l.partial_recompute(1 << 30),
       "transformers' gradient checkpointing recomputes every layer whole (no selective or "
       "partial recomputation)"},
      {x.shard_group > 0 && l.zero_stage < 2,
       "hybrid sharding (FSDP HYBRID_SHARD, HYBRID_SHARD_ZERO2) needs ZeRO-2/3"},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
  }};
}

Refusals unsloth(const Layout& l) noexcept {
  return {{
      // unsloth/_gpu_init.py at 015bdef: "Multi-GPU is not yet supported (beta available on
      // request)."
      {l.devices > 1,
       "unsloth trains on one GPU (unsloth/_gpu_init.py: multi-GPU is not yet "
       "supported)"},
      // get_peft_model(use_gradient_checkpointing=True | "unsloth") checkpoints every decoder
      // layer (models/llama.py's decoder loop).
      {l.recompute == Recompute::kSelective || l.recompute == Recompute::kSelectiveOp ||
           l.partial_recompute(1 << 30),
       "unsloth checkpoints every decoder layer whole (use_gradient_checkpointing), no selective "
       "or partial recomputation"},
      // Its offloaded checkpointing moves the checkpoints, each layer's input, to the host.
      {l.offload_activations && l.recompute != Recompute::kFull,
       "unsloth offloads activations only as its checkpointing's layer inputs "
       "(use_gradient_checkpointing=\"unsloth\"), which needs full recomputation"},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
      {false, ""},
  }};
}

Refusals refusals(Runner runner, const Layout& l) noexcept {
  switch (runner) {
    case Runner::kMegatron:
      return megatron(l);
    case Runner::kDeepspeed:
      return deepspeed(l);
    case Runner::kFsdp:
      return fsdp(l);
    case Runner::kAccelerate:
      return accelerate(l);
    case Runner::kUnsloth:
      return unsloth(l);
  }
  return {};
}

constexpr std::array kAny{Runner::kMegatron, Runner::kFsdp, Runner::kDeepspeed,
                          Runner::kAccelerate};
constexpr std::array kAnyFineTune{Runner::kAccelerate, Runner::kFsdp, Runner::kDeepspeed,
                                  Runner::kMegatron};
constexpr std::array kMegatronOnly{Runner::kMegatron};
constexpr std::array kFsdpOnly{Runner::kFsdp};
constexpr std::array kDeepspeedOnly{Runner::kDeepspeed};
constexpr std::array kAccelerateOnly{Runner::kAccelerate};
constexpr std::array kUnslothOnly{Runner::kUnsloth};

}  // namespace

std::span<const Runner> runners_of(Framework framework, bool fine_tuning) noexcept {
  switch (framework) {
    case Framework::kGeneric:
      if (fine_tuning) return kAnyFineTune;
      return kAny;
    case Framework::kMegatron:
      return kMegatronOnly;
    case Framework::kDeepspeed:
      return kDeepspeedOnly;
    case Framework::kHf:
      return kAccelerateOnly;
    case Framework::kUnsloth:
      return kUnslothOnly;
    case Framework::kFsdp:
    case Framework::kTorchtitan:
    case Framework::kTorchtune:
    case Framework::kPytorch:
    case Framework::kLitgpt:
      return kFsdpOnly;
  }
  return kAny;
}

bool runs(Runner runner, const ModelProfile& /*profile*/, const Layout& layout) noexcept {
  for (const Refusal& r : refusals(runner, layout)) {
    if (r.applies) return false;
  }
  return true;
}

std::optional<Runner> runner_for(std::span<const Runner> runners, const ModelProfile& profile,
                                 const Layout& layout) noexcept {
  for (const Runner r : runners) {
    if (runs(r, profile, layout)) return r;
  }
  return std::nullopt;
}

std::string refusal(Runner runner, const ModelProfile& /*profile*/, const Layout& layout) {
  for (const Refusal& r : refusals(runner, layout)) {
    if (r.applies) return r.words;
  }
  return {};
}

}  // namespace tb
