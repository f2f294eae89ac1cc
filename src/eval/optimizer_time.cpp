// The optimizer step's time on the device (optimizer_time.hpp; docs/time.md, "The optimizer
// step").
#include "trainbudget/eval/optimizer_time.hpp"

#include <algorithm>

#include "trainbudget/eval/kernel_cost.hpp"

namespace tb {
namespace {

// Passes of one optimizer-step over a state row, each a read or a write of every element.
// A fused kernel (apex FusedAdam, torch fused=True, bitsandbytes' 8-bit kernels) reads every
// row once and writes all but the gradients once. torch.optim's Adam(W) without fused=True
// (_single_tensor_adamw and _multi_tensor_adamw, torch/optim/adamw.py: the same ops, looped or
// over tensor lists) runs them one op at a time: param.mul_(1 - lr wd), exp_avg.lerp_(grad),
// exp_avg_sq.mul_(b2).addcmul_(grad, grad), denom = (exp_avg_sq.sqrt() / bc2).add_(eps),
// param.addcdiv_(exp_avg, denom): the updated weights 4 passes, the gradients 2, the two
// moments 3 and 5, and 6 passes over the moment-sized temporaries (sqrt written; div read and
// written; add_ read and written; addcdiv read), 20 passes in all against the fused 7. The
// moments' and temporaries' 14 passes over the two moments' bytes are 7 per state byte.
double optimizer_passes(StateKey key, bool unfused_adam, bool master) {
  switch (key) {
    case StateKey::kGradients:
      return unfused_adam ? 2.0 : 1.0;
    case StateKey::kOptimizerStates:
      return unfused_adam ? 7.0 : 2.0;
    case StateKey::kMasterWeights:
      return unfused_adam ? 4.0 : 2.0;
    case StateKey::kWeights:
      // Updated in place (4 passes unfused) unless a master copy is updated and cast into it.
      return unfused_adam && !master ? 4.0 : 2.0;
    default:
      return 0.0;
  }
}

// Kernels one optimizer step launches per trainable tensor: torch's single-tensor AdamW
// (torch/optim/adamw.py, _single_tensor_adamw) runs 8 ops on each (the five updates above, the
// sqrt, the division and the step count).
constexpr double kPerTensorAdamOps = 8.0;

// The share of the memory bandwidth an element-wise pass reaches: the kernel class's figure on a
// device with compute units, all of it on a measured CPU profile (its bandwidth is measured).
double elementwise_share(const ClusterProfile& c) {
  return c.kernels.elementwise_efficiency > 0.0 && c.kernels.compute_units > 0
             ? c.kernels.elementwise_efficiency
             : 1.0;
}

}  // namespace

// The optimizer step on the device (element-wise over its shard of the states): every state row
// read and written as optimizer_passes() says, at the memory bandwidth, plus the launches of a
// per-tensor loop. On the host when the optimizer is offloaded (not timed: docs/scale.md,
// "Not modeled").
Seconds optimizer_time(const ModelProfile& p, const Layout& l, const StageSpan& st,
                       const ClusterProfile& c) {
  if (c.memory_bandwidth.value() <= 0.0 || l.parallel.offload != Offload::kNone) {
    return Seconds{0.0};
  }
  // In backward, torchtune steps each tensor with a fused kernel (bitsandbytes' 8-bit and paged
  // optimizers, torch's fused AdamW): the fused traffic.
  const bool unfused_adam = p.optimizer_kernel != OptimizerKernel::kFused &&
                            p.optimizer_kernel != OptimizerKernel::kInBackward &&
                            p.moment_bytes > 0.0;
  const bool master = std::any_of(p.states.begin(), p.states.end(), [](const StateTerm& t) {
    return t.key == StateKey::kMasterWeights;
  });
  Bytes traffic{0.0};
  for (const StateTerm& t : p.states) {
    if (t.key == StateKey::kFrozenWeights) continue;
    const Bytes on = state_on_device(p, l, t, st).device;
    // ZeRO-1/2 keep whole weights and gradients but update only their partition.
    const double shards = l.zero_stage >= 1 && t.shard_stage > l.zero_stage
                              ? static_cast<double>(l.zero_shards())
                              : 1.0;
    traffic += on / shards * optimizer_passes(t.key, unfused_adam, master);
  }
  Seconds launches{0.0};
  if (unfused_adam && p.optimizer_kernel == OptimizerKernel::kPerTensor) {
    launches = Seconds{kPerTensorAdamOps * p.trainable_tensors * c.kernels.launch_gap_s *
                       c.knobs.overhead};
  }
  // Unfused Adam's two temporaries per tensor (sqrt's output and the division's) are new
  // tensors: where the allocator maps them afresh (fresh_tensor_time: tensors this large only
  // arise as the vocabulary tables), the embedding's and an untied head's are written at the
  // first-touch rate.
  Seconds fresh{0.0};
  if (unfused_adam && p.has_architecture && !p.adapters_only) {
    const double shards = l.zero_stage >= 1 ? static_cast<double>(l.zero_shards()) : 1.0;
    const double table = p.shape.V / l.parallel.tp * p.shape.h * p.moment_bytes / shards;
    const double tables = (st.embedding ? 1.0 : 0.0) + (st.head && !p.tied_embeddings ? 1.0 : 0.0);
    fresh = fresh_tensor_time(table, 2.0 * tables, c);
  }
  return traffic / (c.memory_bandwidth * elementwise_share(c)) + launches + fresh;
}

// Gradient accumulation through autograd (grad_accumulation_kernel add): each micro-batch's
// weight gradients are a new tensor added in place into the buffer, `variable.grad +=
// new_grad` (torch/csrc/autograd/functions/accumulate_grad.h; 2021 Megatron-LM's local DDP the
// same, megatron/model/distributed.py at de7dc40): the buffer read, the new gradient read and
// the sum written, 3 passes over the device's gradient bytes for every micro-batch after the
// first (the first's tensor becomes the buffer). Fused accumulation (the weight-gradient GEMM
// writes into the buffer with beta = 1) adds nothing.
Seconds grad_accumulation_time(const ModelProfile& p, const Layout& l, const StageSpan& st,
                               const ClusterProfile& c) {
  if (p.grad_accumulation != GradAccumulationKernel::kAdd || l.grad_accum <= 1 ||
      c.memory_bandwidth.value() <= 0.0) {
    return Seconds{0.0};
  }
  Bytes gradients{0.0};
  for (const StateTerm& t : p.states) {
    if (t.key == StateKey::kGradients) gradients += state_on_device(p, l, t, st).device;
  }
  return gradients * (3.0 * static_cast<double>(l.grad_accum - 1)) /
         (c.memory_bandwidth * elementwise_share(c) * c.knobs.kernel);
}

}  // namespace tb
