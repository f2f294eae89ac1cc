// Preference objectives (docs/rl.md): the reference model's copy, the chosen and rejected rows
// and the reference forward, against hand-derived values.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb {
namespace {

using testing_models::builtin_machine;
using testing_models::job_for;

Estimate on_h100(const TrainingJob& job) { return estimate(job, {builtin_machine("h100-sxm")}); }

TrainingJob bare(Objective objective, Method method = Method::kFull) {
  TrainingJob job;  // 7e9 parameters, amp-adam, full
  job.objective = objective;
  job.method = method;
  return job;
}

// A full DPO policy keeps a frozen bf16 copy of the base as its reference: 16 + 2 = 18 bytes per
// parameter of model states, 7e9 x 18 = 126 GB (the seed's 112 GB plus 14 GB).
TEST(Preference, FullDpoKeepsAReferenceCopy) {
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kSft)).primary.memory.total.value(), 112e9);
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kDpo)).primary.memory.total.value(), 126e9);
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kKto)).primary.memory.total.value(), 126e9);
}

// No copy: reference-free objectives, precomputed log-probs, and adapters (the reference is the
// base with the adapters disabled).
TEST(Preference, NoCopyWithoutAReferenceOnTheDevice) {
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kOrpo)).primary.memory.total.value(), 112e9);
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kSimpo)).primary.memory.total.value(), 112e9);
  TrainingJob pre = bare(Objective::kDpo);
  pre.precompute_ref_log_probs = true;
  EXPECT_DOUBLE_EQ(on_h100(pre).primary.memory.total.value(), 112e9);
  EXPECT_DOUBLE_EQ(on_h100(bare(Objective::kDpo, Method::kLora)).primary.memory.total.value(),
                   on_h100(bare(Objective::kSft, Method::kLora)).primary.memory.total.value());
}

// Chosen and rejected go through the model together: a DPO micro-batch of one pair holds the
// activations of two SFT rows, less the logits, which the preference loss reduces to log-probs
// and lets go (measured: tests/realstep --trainer dpo); KTO's one sequence holds one row.
TEST(Preference, PairsAreTwoRows) {
  const auto saved = [](const TrainingJob& job) {
    const Recipe& r = find_recipe(job.recipe_id);
    const MachineChoice m = builtin_machine("h100-sxm");
    const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
    return evaluate(make_profile(job, r), layout_of(job, r), c).saved.value();
  };
  TrainingJob dpo = job_for("llama-3.2-1b.json", Method::kLora);
  dpo.objective = Objective::kDpo;
  TrainingJob sft = job_for("llama-3.2-1b.json", Method::kLora);
  sft.setup.micro_batch = 2;
  // Two rows x 2048 tokens x 128,256 logits x 2 bytes (bf16).
  const double logits = 2.0 * 2048.0 * 128256.0 * 2.0;
  EXPECT_DOUBLE_EQ(saved(dpo), saved(sft) - logits);
  TrainingJob kto = job_for("llama-3.2-1b.json", Method::kLora);
  kto.objective = Objective::kKto;
  EXPECT_DOUBLE_EQ(saved(kto), saved(job_for("llama-3.2-1b.json", Method::kLora)) - logits / 2.0);
}

// The reference forward is the policy's forward again. From the parameter formula a full step
// is 6N per token of which the forward is 2N: DPO's micro-batch takes (6N + 2N) / 6N = 4/3 of
// ORPO's (the same two rows, no reference).
TEST(Preference, TheReferenceForwardIsAThirdMoreOfAFullStep) {
  const StepTime dpo = on_h100(bare(Objective::kDpo)).primary.machines.front().time;
  const StepTime orpo = on_h100(bare(Objective::kOrpo)).primary.machines.front().time;
  ASSERT_GT(orpo.micro_batch.count(), 0.0);
  EXPECT_NEAR(dpo.micro_batch.count() / orpo.micro_batch.count(), 4.0 / 3.0, 1e-9);
  // With an architecture the reference adds the kernels' own forward time: more than nothing,
  // less than the whole policy step.
  TrainingJob with_model = job_for("llama-3.2-1b.json", Method::kFull);
  with_model.objective = Objective::kDpo;
  TrainingJob reference_free = with_model;
  reference_free.objective = Objective::kOrpo;
  const double a = on_h100(with_model).primary.machines.front().time.micro_batch.count();
  const double b = on_h100(reference_free).primary.machines.front().time.micro_batch.count();
  EXPECT_GT(a / b, 1.2);
  EXPECT_LT(a / b, 1.5);
}

}  // namespace
}  // namespace tb
