// Online RL's advice (docs/rl.md, "What to change"): the smallest change that fits is found with
// each candidate's generation round priced, and applying it gives the memory it names.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/plan/advice.hpp"

namespace tb {
namespace {

using testing_models::builtin_machine;
using testing_models::job_for;

// The job with an advice's changes applied, as the flags would set them.
TrainingJob with(TrainingJob job, const Advice& a) {
  for (const auto& [key, value] : a.changes) {
    if (key == "micro_batch") job.setup.micro_batch = std::stoll(value);
    if (key == "grad_accum") job.setup.grad_accumulation = std::stoll(value);
    if (key == "vllm_enable_sleep_mode") job.rollout.vllm_enable_sleep_mode = value == "true";
    if (key == "vllm_gpu_memory_utilization")
      job.rollout.vllm_gpu_memory_utilization = std::stod(value);
    if (key == "method") job.method = *enum_from_name<Method>(value);
    if (key == "zero") job.zero_stage = std::stoi(value);
    if (key == "recompute") job.setup.recompute = *enum_from_name<Recompute>(value);
    if (key == "devices") job.devices = std::stoi(value);
  }
  return job;
}

const MachineEstimate& first(const Estimate& e) { return e.primary.machines.front(); }

// Llama 3 8B under LoRA, GRPO on a colocated vLLM engine, 8 completions a micro-batch.
TrainingJob colocated_grpo() {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.objective = Objective::kGrpo;
  job.rollout.engine = RolloutEngine::kColocate;
  job.setup.micro_batch = 8;
  return job;
}

TEST(RolloutAdvice, AColocatedPoolThatCrowdsTheTrainerSleeps) {
  TrainingJob job = colocated_grpo();
  job.rollout.vllm_gpu_memory_utilization = 0.7;
  const MachineChoice h100 = builtin_machine("h100-sxm");
  const Estimate e = estimate(job, {h100});
  ASSERT_FALSE(first(e).fits);
  const std::vector<Advice> advice = plan::advise_rollout(job, h100);
  ASSERT_FALSE(advice.empty());
  // One knob of distance 1: sleep mode or the pool narrowed to the trainer's room.
  ASSERT_EQ(advice.front().changes.size(), 1U);
  const std::string key = advice.front().changes.front().first;
  EXPECT_TRUE(key == "vllm_enable_sleep_mode" || key == "vllm_gpu_memory_utilization") << key;
  const Estimate after = estimate(with(job, advice.front()), {h100});
  EXPECT_TRUE(first(after).fits);
  EXPECT_DOUBLE_EQ(first(after).numbers.allocated.value(), advice.front().memory.value());
  // Sleep mode takes exactly the pool off the update's peak.
  if (key == "vllm_enable_sleep_mode") {
    EXPECT_DOUBLE_EQ(advice.front().memory.value(),
                     std::max(first(e).rollout->generation_peak,
                              first(e).rollout->update_peak - first(e).rollout->pool)
                         .value());
  }
}

TEST(RolloutAdvice, PpoSplitsTheMicroBatchBeforeChangingTheMethod) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.objective = Objective::kPpo;
  job.rollout.num_generations = 1;
  job.rollout.num_iterations = 4;
  job.devices = 8;
  job.zero_stage = 3;
  job.setup.micro_batch = 16;
  const MachineChoice h100 = builtin_machine("h100-sxm");
  ASSERT_FALSE(first(estimate(job, {h100})).fits);
  const std::vector<Advice> advice = plan::advise_rollout(job, h100);
  ASSERT_FALSE(advice.empty());
  const Advice& a = advice.front();
  EXPECT_EQ(a.kind, "smallest");
  // Kernel and batch choices (distance 1-2) come before LoRA (11).
  for (const auto& [key, value] : a.changes) EXPECT_NE(key, "method");
  const Estimate after = estimate(with(job, a), {h100});
  EXPECT_TRUE(first(after).fits);
  EXPECT_DOUBLE_EQ(first(after).numbers.allocated.value(), a.memory.value());
  // The generation batch is kept: micro-batch x grad-accum is still 16.
  const TrainingJob changed = with(job, a);
  EXPECT_EQ(changed.setup.micro_batch * changed.setup.grad_accumulation, 16);
}

TEST(RolloutAdvice, AJobThatFitsHasNone) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.objective = Objective::kGrpo;
  job.setup.micro_batch = 8;
  const MachineChoice h100 = builtin_machine("h100-sxm");
  ASSERT_TRUE(first(estimate(job, {h100})).fits);
  EXPECT_TRUE(plan::advise_rollout(job, h100).empty());
}

// Nothing on one device holds a 70B GRPO: the advice adds devices (ZeRO-3) and the changes that
// fit there, and the estimate with all of them fits at the memory it names. PPO's 70B, whose
// generate() gathers policy and value under ZeRO-3 (282 GB of bf16), fits on no count of them.
TEST(RolloutAdvice, MoreDevicesWhenNothingOnTheJobsOwnFits) {
  TrainingJob job = job_for("llama-3.1-70b.json", Method::kFull);
  job.objective = Objective::kGrpo;
  job.rollout.engine = RolloutEngine::kServer;
  job.rollout.vllm_tensor_parallel_size = 4;
  job.rollout.vllm_server_devices = 4;
  job.setup.micro_batch = 8;
  const MachineChoice h100 = builtin_machine("h100-sxm");
  const std::vector<Advice> advice = plan::advise_rollout(job, h100);
  ASSERT_FALSE(advice.empty());
  const Advice& a = advice.front();
  ASSERT_GT(a.devices, 1);
  EXPECT_EQ(a.changes.front().first, "devices");
  const Estimate after = estimate(with(job, a), {h100});
  EXPECT_TRUE(first(after).fits);
  EXPECT_DOUBLE_EQ(first(after).numbers.allocated.value(), a.memory.value());
  // One device holds nothing of the search (the 70B's bf16 base alone is 141 GB); two do.
  EXPECT_EQ(a.devices, 2);

  TrainingJob ppo = job_for("llama-3.1-70b.json", Method::kLora);
  ppo.objective = Objective::kPpo;
  ppo.rollout.num_generations = 1;
  ppo.setup.micro_batch = 8;
  EXPECT_TRUE(plan::advise_rollout(ppo, h100).empty());
  EXPECT_EQ(plan::rollout_devices_to_fit(ppo, h100), 0);
}

// The limits are the edges of what fits: at them the estimate fits, one past them it does not.
TEST(RolloutAdvice, LimitsAreTheEdgesOfWhatFits) {
  const TrainingJob job = colocated_grpo();
  const MachineChoice h100 = builtin_machine("h100-sxm");
  const RolloutLimits limits = plan::rollout_limits(job, h100);
  ASSERT_GT(limits.max_completion_length, 256);
  ASSERT_GE(limits.micro_batch, 8);
  const auto fits_at = [&](std::int64_t length, std::int64_t micro) {
    TrainingJob j = job;
    j.rollout.max_completion_length = length;
    j.setup.micro_batch = micro;
    return first(estimate(j, {h100})).fits;
  };
  EXPECT_TRUE(fits_at(limits.max_completion_length, 8));
  EXPECT_FALSE(fits_at(limits.max_completion_length + 1, 8));
  EXPECT_TRUE(fits_at(256, limits.micro_batch));
  // The next micro-batch that keeps whole groups of 8 completions.
  EXPECT_FALSE(fits_at(256, limits.micro_batch + 8));
}

}  // namespace
}  // namespace tb
