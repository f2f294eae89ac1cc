// A colocated engine's refit (include/trainbudget/eval/refit.hpp; docs/rl.md, "Refit").
#include "trainbudget/eval/refit.hpp"

#include "trainbudget/eval/comm.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {
namespace {

// The converted weights handed to the engine by CUDA IPC and loaded with load_weights, tensor by
// tensor, per device: NeMo RL v0.3's published step breakdown (NeMo RL blog, 2025-07-21, "NeMo
// RL v0.3", Llama 3.1 8B Instruct, Megatron backend, 8 GPUs, data parallel only, vLLM tp 1, so
// no gather): 16.06 GB of bf16 weights refit in 5 s, 3.2 GB/s. Informed by that row only.
constexpr BytesPerSecond kColocatedRefit{3.2e9};

// The trainer's weights in 16 bits while they are gathered (NeMo RL's Megatron policy refits
// in its bf16 dtype).
constexpr double kGatheredBytes = 2.0;

}  // namespace

// Megatron-Core's refit (nemo_rl/models/megatron/refit_utils.py at v0.3.0, gather_params):
// every parameter, one after another, is all-gathered over the tensor-parallel group (an
// expert's over the expert-tensor-parallel group), broadcast from the pipeline stage that holds
// it to the others, and an expert's all-gathered over the expert-parallel group, so every
// device holds each whole tensor before converting it. Priced as one collective of each kind
// over all the bytes it moves, at its group's link (pipeline stages tp x cp x dp devices apart,
// expert-parallel ranks etp apart, Megatron-Core's order); each tensor's own calls' latency is
// not counted.
Seconds refit_gather(const TrainingJob& job, const Layout& layout, const Fabric& fabric) noexcept {
  if (job.setup.framework != Framework::kMegatron || !job.model.architecture) return Seconds{0.0};
  const ModelArchitecture& arch = *job.model.architecture;
  const int tp = layout.parallel.tp;
  const int pp = layout.parallel.pp;
  const int ep = layout.parallel.ep;
  const int etp = layout.expert_tp();
  double experts = 0.0;
  if (arch.moe) {
    experts = static_cast<double>(expert_params(arch)) *
              static_cast<double>(arch.moe->num_experts) *
              static_cast<double>(moe_layer_count(arch)) * kGatheredBytes;
  }
  const Bytes dense{std::max(0.0, job.params * kGatheredBytes - experts)};
  const Bytes expert_shard{experts / ep};
  const CommModel& comm = default_comm_model();
  const int stage_stride = std::max(1, layout.devices / pp);
  return comm.time(Collective::kAllGather, dense, Group{tp, 1}, fabric) +
         comm.time(Collective::kAllGather, expert_shard, Group{etp, 1}, fabric) +
         comm.time(Collective::kBroadcast, dense + expert_shard, Group{pp, stage_stride}, fabric) +
         comm.time(Collective::kAllGather, Bytes{experts}, Group{ep, etp}, fabric);
}

Seconds colocated_refit(const TrainingJob& job, const Layout& layout, const Fabric& fabric,
                        Bytes engine_weights) noexcept {
  return engine_weights / kColocatedRefit + refit_gather(job, layout, fabric);
}

}  // namespace tb
