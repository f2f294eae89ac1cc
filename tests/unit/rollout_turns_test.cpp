// Dynamic sampling, ReMax's greedy baseline and multi-turn rollouts (docs/rl.md, "Dynamic
// sampling", "ReMax", "Multi-turn rollouts"): the generation batches a step runs and their size,
// the environment's turns and observations; against hand-derived relations between the round's
// parts.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rollout_jobs.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb {
namespace {

using rollout_jobs::first_key;
using rollout_jobs::grpo;
using rollout_jobs::on;
using rollout_jobs::run;

TrainingJob colocated() {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  job.devices = 8;
  job.rollout.vllm_gpu_memory_utilization = 0.5;
  job.rollout.vllm_enable_sleep_mode = true;
  job.rollout.max_completion_length = 1024;
  job.rollout.mean_completion_length = 512;
  return job;
}

TEST(DynamicSampling, AGenerationBatchOfMultiplierTimesThePrompts) {
  TrainingJob job = colocated();
  const RolloutCost one = *on(run(job)).rollout;
  job.rollout.generation_batch_multiplier = 3.0;
  const RolloutCost three = *on(run(job)).rollout;
  EXPECT_EQ(three.completions, 3 * one.completions);
  EXPECT_EQ(three.generation_batch_multiplier, 3.0);
  EXPECT_GT(three.generation.count(), one.generation.count());
  // The passes after generation run on the step's batch alone.
  EXPECT_DOUBLE_EQ(three.logprobs.count(), one.logprobs.count());
  EXPECT_DOUBLE_EQ(three.update.count(), one.update.count());
  EXPECT_GT(three.kv_needed.value(), one.kv_needed.value());
}

TEST(DynamicSampling, BatchesRunOneAfterAnother) {
  TrainingJob job = colocated();
  job.rollout.generation_batch_multiplier = 2.0;
  const RolloutCost one = *on(run(job)).rollout;
  job.rollout.generation_batches = 3;
  const RolloutCost three = *on(run(job)).rollout;
  EXPECT_EQ(three.generation_batches, 3);
  EXPECT_NEAR(three.generation.count(), 3.0 * one.generation.count(), 1e-9);
  EXPECT_NEAR(three.generation_low.count(), 3.0 * one.generation_low.count(), 1e-9);
  EXPECT_NEAR(three.generation_high.count(), 3.0 * one.generation_high.count(), 1e-9);
  EXPECT_NEAR((three.round - one.round).count(), 2.0 * one.generation.count(), 1e-9);
  EXPECT_DOUBLE_EQ(three.update.count(), one.update.count());
}

// ReMax (verl's adv_estimator remax): after the sampled batch, one greedy completion per prompt
// as a batch of its own. With one completion a prompt the greedy batch is the sampled one again:
// generation exactly doubles; with more, the greedy batch is narrower and costs less than it.
TEST(GreedyBaseline, OneGreedyCompletionAPromptAfterTheSampledBatch) {
  TrainingJob job = colocated();
  job.rollout.num_generations = 1;
  const RolloutCost sampled = *on(run(job)).rollout;
  job.rollout.greedy_baseline = true;
  const RolloutCost remax = *on(run(job)).rollout;
  EXPECT_DOUBLE_EQ(sampled.baseline_generation.count(), 0.0);
  EXPECT_NEAR(remax.baseline_generation.count(), sampled.generation.count(), 1e-12);
  EXPECT_NEAR(remax.generation.count(), 2.0 * sampled.generation.count(), 1e-12);
  EXPECT_NEAR(remax.generation_low.count(), 2.0 * sampled.generation_low.count(), 1e-12);
  EXPECT_NEAR(remax.generation_high.count(), 2.0 * sampled.generation_high.count(), 1e-12);
  // The baseline is scored, not trained on: the passes after generation are the same.
  EXPECT_DOUBLE_EQ(remax.logprobs.count(), sampled.logprobs.count());
  EXPECT_DOUBLE_EQ(remax.update.count(), sampled.update.count());
  job.rollout.num_generations = 8;
  job.rollout.greedy_baseline = false;
  const RolloutCost eight = *on(run(job)).rollout;
  job.rollout.greedy_baseline = true;
  const RolloutCost eight_remax = *on(run(job)).rollout;
  EXPECT_EQ(eight_remax.prompts * 8, eight_remax.completions);
  EXPECT_GT(eight_remax.baseline_generation.count(), 0.0);
  EXPECT_LT(eight_remax.baseline_generation.count(), eight.generation.count());
  EXPECT_NEAR(eight_remax.generation.count(),
              eight.generation.count() + eight_remax.baseline_generation.count(), 1e-12);
}

TEST(MultiTurn, TheEnvironmentsTurnsAndObservationsJoinTheRound) {
  TrainingJob job = colocated();
  const Estimate e1 = run(job);
  const RolloutCost single = *on(e1).rollout;
  job.rollout.rollout_turns = 4;
  job.rollout.observation_tokens = 300;
  job.rollout.environment_seconds = 2.5;
  const Estimate e4 = run(job);
  const RolloutCost& r = *on(e4).rollout;
  EXPECT_EQ(r.rollout_turns, 4);
  EXPECT_EQ(r.observation_tokens, 900);  // after each turn but the last
  EXPECT_DOUBLE_EQ(r.environment.count(), 10.0);
  EXPECT_GT(r.observation_prefill.count(), 0.0);
  // The model's tokens decode as before, over a context that grows by the observations too.
  EXPECT_EQ(r.decode_steps_run, single.decode_steps_run);
  EXPECT_GE(r.decode.count(), single.decode.count());
  EXPECT_NEAR(r.generation.count(),
              (r.prefill + r.decode + r.observation_prefill + r.environment).count(), 1e-9);
  // The sequence trained on holds the observations: the passes grow.
  EXPECT_EQ(e4.primary.layout.seq_len, e1.primary.layout.seq_len + 900);
  EXPECT_GT(r.update.count(), single.update.count());
  EXPECT_GT(r.logprobs.count(), single.logprobs.count());
}

TEST(MultiTurn, ObservationPrefillGrowsWithTheTurnsBetweenThem) {
  TrainingJob job = colocated();
  job.rollout.observation_tokens = 256;
  job.rollout.rollout_turns = 2;
  const RolloutCost two = *on(run(job)).rollout;
  job.rollout.rollout_turns = 3;
  const RolloutCost three = *on(run(job)).rollout;
  // (turns - 1) observations a completion, each the same prefill.
  EXPECT_NEAR(three.observation_prefill.count(), 2.0 * two.observation_prefill.count(), 1e-12);
  // One turn has no observation.
  job.rollout.rollout_turns = 1;
  const RolloutCost one = *on(run(job)).rollout;
  EXPECT_EQ(one.observation_tokens, 0);
  EXPECT_DOUBLE_EQ(one.observation_prefill.count(), 0.0);
}

TEST(MultiTurn, FieldsNameThemselvesWhenOutOfRange) {
  const std::string m = "llama-3.1-8b";
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "grpo"}, {"generation_batches", "0"}}),
            "generation_batches");
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "grpo"}, {"generation_batch_multiplier", "0.5"}}),
            "generation_batch_multiplier");
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "grpo"}, {"rollout_turns", "1.5"}}),
            "rollout_turns");
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "grpo"}, {"environment_seconds", "-1"}}),
            "environment_seconds");
  EXPECT_EQ(
      first_key(
          {{"model", m}, {"trainer", "grpo"}, {"micro_batch", "8"}, {"observation_tokens", "300"}}),
      "");
  // An online RL field under another trainer is refused by name.
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "sft"}, {"rollout_turns", "3"}}), "rollout_turns");
}

}  // namespace
}  // namespace tb
