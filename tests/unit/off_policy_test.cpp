// Off-policy generation (docs/rl.md, "Off-policy generation"): the server generates the next
// batch while the trainer trains on the last, so a round is the sync and the longer of the two;
// and the server's own pool share. Against hand-derived values from the round's parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "rollout_jobs.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using rollout_jobs::first_key;
using rollout_jobs::grpo;
using rollout_jobs::on;
using rollout_jobs::run;

TEST(Rollout, OffPolicyRoundIsTheLongerSide) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kServer);
  job.devices = 2;
  job.rollout.vllm_server_devices = 2;
  job.rollout.beta = 0.04;
  const RolloutCost turns = *on(run(job)).rollout;
  EXPECT_EQ(turns.off_policy_steps, 0);
  EXPECT_NEAR(turns.round.count(),
              (turns.generation + turns.logprobs + turns.update + turns.sync).count(), 1e-12);
  job.rollout.off_policy_steps = 1;
  const Estimate e = run(job);  // held: m refers into it
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  EXPECT_EQ(r.off_policy_steps, 1);
  // The parts are priced as before; only their sum changes.
  EXPECT_DOUBLE_EQ(r.generation.count(), turns.generation.count());
  EXPECT_DOUBLE_EQ(r.update.count(), turns.update.count());
  const Seconds trainer = r.logprobs + r.update;
  EXPECT_NEAR(r.round.count(), (r.sync + std::max(r.generation, trainer)).count(), 1e-12);
  EXPECT_NEAR(r.exposed_generation.count(), std::max(0.0, (r.generation - trainer).count()), 1e-12);
  EXPECT_LT(r.round.count(), turns.round.count());
  // The band: each side's own ends, then the longer.
  ASSERT_TRUE(m.time_band.present);
  EXPECT_LE(m.time_band.low.count(), r.round.count());
  EXPECT_GE(m.time_band.high.count(), r.round.count());
  EXPECT_GE(m.time_band.high.count(), (r.sync + r.generation_high).count() - 1e-12);
}

TEST(Rollout, ServerPoolTakesItsOwnShare) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kServer);
  const Estimate e = run(job);  // held: m refers into it
  const MachineEstimate& m = on(e);
  const RolloutCost& at_default = *m.rollout;
  // vLLM's default 0.9 of the device less the engine's weights.
  EXPECT_NEAR(at_default.kv_capacity.value(),
              0.9 * m.allocatable.value() - at_default.engine_weights.value(), 1.0);
  job.rollout.vllm_server_gpu_memory_utilization = 0.8;
  const RolloutCost lower = *on(run(job)).rollout;
  EXPECT_NEAR(lower.kv_capacity.value(), 0.8 * m.allocatable.value() - lower.engine_weights.value(),
              1.0);
}

TEST(Rollout, OffPolicyNeedsAServerOfItsOwn) {
  const std::string m = "llama-3.1-8b";
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "colocate"},
                       {"off_policy_steps", "1"}}),
            "off_policy_steps");
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "colocate"},
                       {"vllm_server_gpu_memory_utilization", "0.8"}}),
            "vllm_server_gpu_memory_utilization");
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "server"},
                       {"off_policy_steps", "-1"}}),
            "off_policy_steps");
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "server"},
                       {"num_generations", "1"},
                       {"off_policy_steps", "2"},
                       {"vllm_server_gpu_memory_utilization", "0.8"}}),
            "");
}

}  // namespace
}  // namespace tb
