// PPO as TRL's PPOTrainer runs it (docs/rl.md, "PPO") against hand-derived values: the value
// model's full training states and the reward model's frozen weights beside the policy, the
// score head's parameter count, the three no-grad forwards, num_ppo_epochs updates of policy and
// value, generation in chunks of 64, ZeRO-3's shards and gather, and the request's checks.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/model/score_head.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::builtin_machine;
using testing_models::job_for;

TrainingJob ppo(Method method) {
  TrainingJob job = job_for("meta-llama-3-8b.json", method);
  job.objective = Objective::kPpo;
  job.rollout.num_generations = 1;
  job.rollout.num_iterations = 4;
  job.setup.micro_batch = 4;
  return job;
}

Estimate run(const TrainingJob& job) { return estimate(job, {builtin_machine("h100-sxm")}); }

TEST(Ppo, AScoreHeadReplacesTheLmHead) {
  const TrainingJob job = ppo(Method::kFull);
  const ModelSource critic = with_score_head(job.model);
  // Llama 3 8B's untied LM head (128,256 x 4,096) becomes a 4,096 x 1 score head.
  const double head = 128256.0 * 4096.0;
  EXPECT_DOUBLE_EQ(static_cast<double>(critic.counts->total),
                   static_cast<double>(job.model.counts->total) - head + 4096.0);
}

TEST(Ppo, TheValueModelTrainsBesideThePolicyAndTheRewardModelIsFrozen) {
  const TrainingJob job = ppo(Method::kFull);
  const Estimate e = run(job);  // held: m refers into it
  const MachineEstimate& m = e.primary.machines.front();
  ASSERT_TRUE(m.rollout && m.rollout->critics);
  const RolloutCost& r = *m.rollout;
  const CriticCost& c = *r.critics;
  const double critic_params = job.params - 128256.0 * 4096.0 + 4096.0;
  EXPECT_DOUBLE_EQ(c.value_params, critic_params);
  EXPECT_DOUBLE_EQ(c.reward_params, critic_params);
  // amp-adam: 2 + 2 + 12 bytes a trained parameter; the reward model frozen in bf16.
  EXPECT_DOUBLE_EQ(c.value_states.value(), 16.0 * critic_params);
  EXPECT_DOUBLE_EQ(c.value_gradients.value(), 2.0 * critic_params);
  EXPECT_DOUBLE_EQ(c.reward_weights.value(), 2.0 * critic_params);
  // The policy's own step holds a reference copy (PPO always runs its reference).
  EXPECT_DOUBLE_EQ(e.primary.memory.by_key("frozen_weights").value(), 2.0 * job.params);
  // Training: the policy's peak, the value model's states and saved activations, the reward
  // weights.
  const double policy = e.primary.memory.total.value();
  EXPECT_DOUBLE_EQ(
      r.update_peak.value(),
      policy + c.value_states.value() + c.value_activations.value() + c.reward_weights.value());
  // The value model saves what the policy saves but the vocabulary-wide fp32 loss buffer
  // (4 rows x 768 tokens x 128,256 x 4 bytes); its score head keeps one value a token.
  const double policy_saved = e.primary.memory.by_key("activations").value();
  EXPECT_NEAR(c.value_activations.value(), policy_saved - 4.0 * 768.0 * 128256.0 * 4.0, 1e5);
  EXPECT_EQ(r.peak_phase, RolloutPhase::kUpdate);
}

TEST(Ppo, ThreeForwardsAndNumPpoEpochsUpdatesOfPolicyAndValue) {
  TrainingJob job = ppo(Method::kLora);
  job.setup.grad_accumulation = 2;
  const Estimate e = run(job);
  const MachineEstimate& m = e.primary.machines.front();
  const RolloutCost& r = *m.rollout;
  const CriticCost& c = *r.critics;
  EXPECT_EQ(r.logprob_passes, 3);
  // The reference (the policy with its adapters off), the value and the reward model, each over
  // every micro-batch.
  EXPECT_NEAR(r.logprobs.count(),
              2.0 * (m.time.forward + c.value_forward + c.reward_forward).count(), 1e-12);
  EXPECT_NEAR(r.update.count(), 4.0 * (m.time.step + c.value_step).count(), 1e-12);
  // LoRA: no reference copy, but the value model is still trained in full.
  EXPECT_DOUBLE_EQ(e.primary.memory.by_key("frozen_weights").value(), 2.0 * job.params);
  EXPECT_DOUBLE_EQ(c.value_states.value(), 16.0 * c.value_params);
  // One completion per prompt; the policy's own generate(), no sync.
  EXPECT_EQ(r.prompts, r.completions);
  EXPECT_EQ(r.sync.count(), 0.0);
}

TEST(Ppo, GenerationRunsInChunksOf64) {
  TrainingJob job = ppo(Method::kLora);
  job.setup.micro_batch = 25;
  job.setup.grad_accumulation = 4;  // 100 completions: chunks of 64 and 36
  const Estimate e = run(job);
  const RolloutCost& r = *e.primary.machines.front().rollout;
  EXPECT_EQ(r.completions, 100);
  EXPECT_EQ(r.chunks, 2);
  // Llama 3 8B: 131,072 KV bytes a token, 64 rows of 512 + 256 tokens at once.
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 64.0 * 768.0 * 131072.0);
}

// PPO with a vLLM engine (verl, OpenRLHF): the batch decodes whole (no chunks of 64), the
// policy recomputes the old log-probs (a fourth forward), the reference runs for a KL term only,
// and a reward function (verl's rule-based reward) loads and runs no reward model.
TEST(Ppo, AVllmEngineTakesTheBatchWholeAndTheOldLogProbsAreRecomputed) {
  TrainingJob job = ppo(Method::kLora);
  job.setup.micro_batch = 25;
  job.setup.grad_accumulation = 4;  // 100 completions
  job.rollout.engine = RolloutEngine::kColocate;
  job.rollout.beta = 0.05;  // a KL term: the reference is loaded and run
  const Estimate e = run(job);
  const MachineEstimate& m = e.primary.machines.front();
  const RolloutCost& r = *m.rollout;
  const CriticCost& c = *r.critics;
  EXPECT_EQ(r.chunks, 1);
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 100.0 * 768.0 * 131072.0);
  EXPECT_EQ(r.logprob_passes, 4);
  EXPECT_NEAR(r.logprobs.count(),
              4.0 * (2.0 * m.time.forward + c.value_forward + c.reward_forward).count(), 1e-12);
  job.rollout.reward_function = true;
  const Estimate f = run(job);
  const MachineEstimate& fm = f.primary.machines.front();
  const RolloutCost& fr = *fm.rollout;
  EXPECT_EQ(fr.logprob_passes, 3);
  EXPECT_DOUBLE_EQ(fr.critics->reward_weights.value(), 0.0);
  EXPECT_DOUBLE_EQ(fr.critics->reward_params, 0.0);
  EXPECT_NEAR(fr.logprobs.count(),
              4.0 * (2.0 * fm.time.forward + fr.critics->value_forward).count(), 1e-12);
  // Without a KL term verl loads no reference: the old log-probs and the value model alone.
  job.rollout.beta = 0.0;
  const Estimate g = run(job);
  const MachineEstimate& gm = g.primary.machines.front();
  EXPECT_EQ(gm.rollout->logprob_passes, 2);
  EXPECT_NEAR(gm.rollout->logprobs.count(),
              4.0 * (gm.time.forward + gm.rollout->critics->value_forward).count(), 1e-12);
}

TEST(Ppo, ZeroThreeShardsTheCriticsAndGathersPolicyAndValueToGenerate) {
  TrainingJob job = ppo(Method::kFull);
  job.devices = 4;
  job.zero_stage = 3;
  const Estimate e = run(job);
  const RolloutCost& r = *e.primary.machines.front().rollout;
  const CriticCost& c = *r.critics;
  EXPECT_DOUBLE_EQ(c.reward_weights.value(), 2.0 * c.reward_params / 4.0);
  EXPECT_DOUBLE_EQ(c.value_states.value(), 16.0 * c.value_params / 4.0);
  // Generating: the states without gradients, the bf16 policy and value gathered from the other
  // three (3/4 of them), the cache and the prefill's working set.
  const double gathered = 2.0 * (job.params + c.value_params) * 3.0 / 4.0;
  EXPECT_GT(r.generation_peak.value(), gathered + r.kv_needed.value());
}

TEST(Ppo, TheRequestTakesPpoConfigDefaultsAndRefusesWhatPpoDoesNotRun) {
  const api::EstimateRequest r = api::parse_estimate_request(
      {{"model", "llama-3.1-8b"}, {"trainer", "ppo"}, {"micro_batch", "4"}});
  EXPECT_EQ(r.job.rollout.num_generations, 1);
  EXPECT_EQ(r.job.rollout.num_iterations, 4);
  const auto refused = [](api::FieldMap values, const char* field) {
    values.emplace("model", "llama-3.1-8b");
    try {
      (void)api::parse_estimate_request(values);
    } catch (const InvalidRequest& e) {
      for (const Problem& p : e.problems()) {
        if (p.field == field) return true;
      }
    }
    return false;
  };
  // verl and OpenRLHF run PPO with a vLLM engine: taken.
  EXPECT_FALSE(refused({{"trainer", "ppo"}, {"rollout_engine", "colocate"}}, "rollout_engine"));
  EXPECT_TRUE(refused({{"trainer", "ppo"}, {"num_generations", "4"}}, "num_generations"));
  EXPECT_TRUE(refused({{"trainer", "ppo"}, {"beta", "0.05"}}, "beta"));
  EXPECT_TRUE(refused({{"trainer", "grpo"}, {"value_model", "llama-3.1-8b"}}, "value_model"));
  EXPECT_TRUE(refused({{"trainer", "sft"}, {"reward_model", "llama-3.1-8b"}}, "reward_model"));
  // Mini-batches: steps_per_generation a whole number of accumulations, refused otherwise.
  EXPECT_TRUE(refused({{"trainer", "ppo"}, {"grad_accum", "2"}, {"steps_per_generation", "3"}},
                      "steps_per_generation"));
  EXPECT_FALSE(refused({{"trainer", "ppo"}, {"grad_accum", "2"}, {"steps_per_generation", "4"}},
                       "steps_per_generation"));
}

// PPOConfig's num_mini_batches (steps_per_generation = accumulation x mini-batches): one
// generation batch of micro_batch x steps_per_generation rollouts a device, trained
// num_ppo_epochs times in num_mini_batches optimizer steps each (ppo_trainer.py's
// local_batch_size and its epoch and mini-batch loops).
TEST(Ppo, MiniBatchesShareOneGenerationBatch) {
  TrainingJob job = ppo(Method::kLora);
  job.setup.grad_accumulation = 2;
  const Estimate one = run(job);
  job.rollout.steps_per_generation = 6;  // 3 mini-batches of 2 micro-batches
  const Estimate three = run(job);
  const RolloutCost& a = *one.primary.machines.front().rollout;
  const RolloutCost& b = *three.primary.machines.front().rollout;
  EXPECT_EQ(a.completions, 4 * 2);
  EXPECT_EQ(b.completions, 4 * 6);
  EXPECT_DOUBLE_EQ(a.updates, 4.0);        // 4 epochs x 1 mini-batch
  EXPECT_DOUBLE_EQ(b.updates, 4.0 * 3.0);  // 4 epochs x 3 mini-batches
  EXPECT_NEAR(b.update.count(), 3.0 * a.update.count(), 1e-9 * b.update.count());
  EXPECT_NEAR(b.logprobs.count(), 3.0 * a.logprobs.count(), 1e-9 * b.logprobs.count());
}

}  // namespace
}  // namespace tb
