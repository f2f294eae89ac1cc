// A plan's step from a request that counts it as an estimate does (plan_batch.hpp).
#include "plan_batch.hpp"

#include <fmt/format.h>

namespace tb::api {

std::int64_t accumulation_as_global_batch(EstimateRequest& r, std::vector<Problem>& notes) {
  const bool rl = online_rl(r.job.objective);
  const std::int64_t spg = r.job.rollout.steps_per_generation;
  if (!r.has("grad_accum")) {
    if (rl && spg > 0) {
      throw InvalidRequest(
          "steps_per_generation",
          "a plan derives the accumulation it counts in; give grad_accum beside it "
          "(a generation batch of steps_per_generation / grad_accum optimizer steps)",
          "steps_per_generation with grad_accum");
    }
    return 0;
  }
  if (r.plan.global_batch) {
    throw InvalidRequest("grad_accum",
                         "a plan derives it: global_batch / (dp x micro_batch) for each layout",
                         "global_batch (sequences per step) alone");
  }
  const std::int64_t accum = r.job.setup.grad_accumulation;
  r.plan.global_batch = r.job.setup.micro_batch * accum * r.job.devices;
  notes.push_back({"grad_accum",
                   fmt::format("{} read as {{global_batch}} {} = {{micro_batch}} {} x "
                               "{{grad_accum}} x {} devices; the plan derives each layout's "
                               "accumulation",
                               accum, *r.plan.global_batch, r.job.setup.micro_batch, r.job.devices),
                   ""});
  if (!rl || spg <= 0) return 0;
  if (spg % accum != 0) {
    throw InvalidRequest("steps_per_generation",
                         fmt::format("{} is not a multiple of grad_accum {}: a plan keeps a "
                                     "generation batch a whole number of optimizer steps",
                                     spg, accum),
                         fmt::format("a multiple of {}", accum));
  }
  return spg / accum;
}

}  // namespace tb::api
