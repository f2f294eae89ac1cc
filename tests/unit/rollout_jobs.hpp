// The rollout tests' shared job: Llama 3 8B under GRPO, 8 completions a micro-batch, estimated
// on one named device.
#pragma once

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb::rollout_jobs {

// Llama 3 8B: 32 layers x 8 KV heads x head dim 128 x (K, V) x 2 bytes = 131,072 bytes a token.
inline constexpr double kKvPerToken = 32.0 * 8.0 * 128.0 * 2.0 * 2.0;

inline TrainingJob grpo(Method method, RolloutEngine engine) {
  TrainingJob job = testing_models::job_for("meta-llama-3-8b.json", method);
  job.objective = Objective::kGrpo;
  job.rollout.engine = engine;
  job.setup.micro_batch = 8;
  return job;
}

inline const MachineEstimate& on(const Estimate& e) { return e.primary.machines.front(); }

inline Estimate run(const TrainingJob& job, const char* device = "h100-sxm") {
  return estimate(job, {testing_models::builtin_machine(device)});
}

}  // namespace tb::rollout_jobs
