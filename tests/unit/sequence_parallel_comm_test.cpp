// Sequence parallelism's tensor-parallel traffic (docs/time.md, "Communication as it runs"):
// per layer two all-reduces' volume forward and two backward, plus the two column-parallel
// inputs gathered again in backward (one all-reduce's volume) where the linear keeps only its
// shard (Megatron-LM, Transformer Engine) or where torchtitan's per-op checkpointing reruns the
// gathers; DTensor's linear otherwise keeps the gathered input. Hand-derived: a message is
// b x s x h x 2 bytes.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/layout_rules.hpp"

namespace tb {
namespace {

using testing_models::job_for;

// Llama 3 8B (32 layers, h 4096) on tp H100 at tp (8 unless given): one micro-batch of 4,096
// tokens.
TrainingJob tp_job(Framework framework, bool sequence_parallel, Recompute recompute, int tp) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.framework = framework;
  job.setup.seq_len = 4096;
  job.setup.seq_len_given = true;
  job.setup.micro_batch = 1;
  job.setup.grad_accumulation = 1;
  job.setup.recompute = recompute;
  job.devices = tp;
  job.parallel.tp = tp;
  job.parallel.sequence_parallel = sequence_parallel;
  return job;
}

double tensor_bytes(Framework framework, bool sequence_parallel, Recompute recompute, int tp = 8) {
  const TrainingJob job = tp_job(framework, sequence_parallel, recompute, tp);
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

// tp 16 over Llama 3 8B's 8 key/value heads: Megatron-Core (f7dfb99) all-gathers linear_qkv's
// output, b x s x (32 + 2 x 8) x 128 x 2 bytes, in each layer's forward and reduce-scatters its
// gradient backward (a third call where full recomputation reruns the forward); the other
// profiles split the key/value projections by head, so tp must divide them.
TEST(SequenceParallelComm, TpBeyondTheKeyValueHeadsGathersTheQkvOutput) {
  using enum Recompute;
  constexpr double kQkv = 4096.0 * (32.0 + 16.0) * 128.0 * 2.0;
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kMegatron, true, kNone, 16),
                   (5.0 * kMessage + 2.0 * kQkv) * kLayers);
  EXPECT_DOUBLE_EQ(tensor_bytes(Framework::kMegatron, true, kFull, 16),
                   (7.0 * kMessage + 3.0 * kQkv) * kLayers);
  const auto rule = [](Framework framework, int tp) {
    const TrainingJob job = tp_job(framework, true, kNone, tp);
    const Recipe& r = find_recipe(job.recipe_id);
    return first_violation(make_profile(job, r), layout_of(job, r));
  };
  EXPECT_EQ(rule(Framework::kMegatron, 16), LayoutRule::kOk);
  EXPECT_EQ(rule(Framework::kTorchtitan, 16), LayoutRule::kKvHeads);
  // A multiple of the key/value heads, and a divisor of the query heads: 32 is, 24 is not.
  EXPECT_EQ(rule(Framework::kMegatron, 24), LayoutRule::kHeads);
}

}  // namespace
}  // namespace tb
