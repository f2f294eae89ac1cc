// The rollout tests' shared job: Llama 3 8B under GRPO, 8 completions a micro-batch, estimated
// on one named device.
#pragma once

#include <string>

#include "test_models.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/spec/error.hpp"

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

// The field a request's first problem names, or "" when it parses.
inline std::string first_key(const api::FieldMap& values) {
  try {
    (void)api::parse_estimate_request(values);
  } catch (const InvalidRequest& e) {
    return e.problems().front().field;
  }
  return "";
}

}  // namespace tb::rollout_jobs
