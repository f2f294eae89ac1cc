// Sequence parallelism's tensor-parallel traffic (docs/time.md, "Communication as it runs"):
// per layer two all-reduces' volume forward and two backward, plus the two column-parallel
// inputs gathered again in backward (one all-reduce's volume) where the linear keeps only its
// shard (Megatron-LM, Transformer Engine) or where torchtitan's per-op checkpointing reruns the
// gathers; DTensor's linear otherwise keeps the gathered input. Hand-derived: a message is
// b x s x h x 2 bytes.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb {
namespace {

using testing_models::job_for;

// Llama 3 8B (32 layers, h 4096) on 8 H100 at tp 8: one micro-batch of 4,096 tokens.
double tensor_bytes(Framework framework, bool sequence_parallel, Recompute recompute) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.framework = framework;
  job.setup.seq_len = 4096;
  job.setup.seq_len_given = true;
  job.setup.micro_batch = 1;
  job.setup.grad_accumulation = 1;
  job.setup.recompute = recompute;
  job.devices = 8;
  job.parallel.tp = 8;
  job.parallel.sequence_parallel = sequence_parallel;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const StepCost cost = evaluate(make_profile(job, r), layout_of(job, r), c);
  return cost.time.comm[static_cast<std::size_t>(CommKind::kTensor)].bytes.value();
}

constexpr double kMessage = 4096.0 * 4096.0 * 2.0;  // b x s x h x bf16
constexpr double kLayers = 32.0;

TEST(SequenceParallelComm, MegatronGathersTheColumnInputsAgainInBackward) {
  using enum Recompute;
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kMegatron, false, kNone), 4.0 * kMessage * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kMegatron, true, kNone), 5.0 * kMessage * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kGeneric, true, kSelective), 5.0 * kMessage * kLayers);
  // Full recomputation reruns the forward's two as well; the backward still gathers again.
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kMegatron, true, kFull), 7.0 * kMessage * kLayers);
}

TEST(SequenceParallelComm, DTensorKeepsTheGatheredInputUnlessPerOpCheckpointingRerunsIt) {
  using enum Recompute;
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kTorchtitan, true, kNone), 4.0 * kMessage * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kTorchtitan, true, kFull), 6.0 * kMessage * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kTorchtitan, true, kSelectiveOp),
                   5.0 * kMessage * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kTorchtitan, false, kSelectiveOp),
                   4.0 * kMessage * kLayers);
}

}  // namespace
}  // namespace tb
