// Activation offload (torchtune's OffloadActivations, Megatron-Core's cpu_offloading) against
// hand-derived values: the device keeps two layers' saved activations, the host holds them all,
// and each micro-batch sends them out and fetches them back over the host link, exposed beyond
// the forward and the backward they hide behind.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb {
namespace {

using testing_models::job_for;

struct Trial {
  StepCost cost;
  ClusterProfile cluster;
};

Trial run(bool offload, Recompute recompute = Recompute::kNone) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.recompute = recompute;
  job.setup.seq_len = 8192;
  job.setup.seq_len_given = true;
  job.setup.micro_batch = 2;
  job.setup.offload_activations = offload;
  job.devices = 8;
  job.zero_stage = 3;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  return {evaluate(make_profile(job, r), layout_of(job, r), c), c};
}

TEST(ActivationOffload, TwoLayersStayOnTheDeviceAndTheRestGoesToTheHost) {
  const Trial kept = run(false);
  const Trial off = run(true);
  const Bytes layer = kept.cost.dense.per_layer;
  // 32 identical layers, one micro-batch in flight (no pipeline).
  EXPECT_NEAR(kept.cost.layers_saved.value(), 32.0 * layer.value(), 1.0);
  EXPECT_NEAR(off.cost.layers_saved.value(), 2.0 * layer.value(), 1.0);
  EXPECT_NEAR(off.cost.offloaded_activations.value(), 32.0 * layer.value(), 1.0);
  EXPECT_NEAR((off.cost.host - kept.cost.host).value(), 32.0 * layer.value(), 1.0);
  // The peak falls by at most the 30 layers that left (the backward's transients stay).
  EXPECT_LT(off.cost.memory, kept.cost.memory);
  EXPECT_GE(off.cost.memory.value(), kept.cost.memory.value() - 30.0 * layer.value() - 1.0);
}

TEST(ActivationOffload, UnderFullRecomputationTheDeviceKeepsTwoCheckpoints) {
  // Each layer saves only its input (the checkpoint); offloaded, two of them stay on the device
  // (unsloth's offloaded checkpointing, DeepSpeed's cpu_checkpointing). The layer that keeps
  // everything is no layer's here, so it does not set the two layers' size.
  const Trial kept = run(false, Recompute::kFull);
  const Trial off = run(true, Recompute::kFull);
  const Bytes checkpoint = kept.cost.dense.per_layer;
  // b 2 x s 8192 x h 4096 x 2 bytes: the layer's input in bf16.
  EXPECT_NEAR(checkpoint.value(), 2.0 * 8192.0 * 4096.0 * 2.0, 1.0);
  EXPECT_NEAR(kept.cost.layers_saved.value(), 32.0 * checkpoint.value(), 1.0);
  EXPECT_NEAR(off.cost.layers_saved.value(), 2.0 * checkpoint.value(), 1.0);
  EXPECT_NEAR(off.cost.offloaded_activations.value(), 32.0 * checkpoint.value(), 1.0);
  EXPECT_NEAR((kept.cost.memory - off.cost.memory).value(), 30.0 * checkpoint.value(), 1.0);
}

TEST(ActivationOffload, TheTransfersBeyondTheComputeAreExposed) {
  const Trial kept = run(false);
  const Trial off = run(true);
  const StepTime& t = off.cost.time;
  // Out under the forward, back under the backward, at the host link's rate.
  const double each = (off.cost.offloaded_activations / off.cluster.fabric.host.bandwidth).count();
  const double exposed = std::max(0.0, each - t.forward.count()) +
                         std::max(0.0, each - (t.micro_batch - t.forward).count());
  EXPECT_GT(each, 0.0);
  EXPECT_NEAR(t.step.count() - kept.cost.time.step.count(), exposed, 1e-9 + 1e-6 * exposed);
}

}  // namespace
}  // namespace tb
