// A plan of an online RL job: the update searched beside the colocated engine, the candidates
// ranked by the whole generation round (plan_rollout.hpp; docs/rl.md, "Planning").
#include "plan_rollout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/spec/error.hpp"

namespace tb::api {

std::int64_t rollout_global_batch(const EstimateRequest& r, const Layout& base) {
  const std::int64_t given =
      r.plan.global_batch.value_or(base.micro_batch * base.grad_accum * base.dp());
  const std::int64_t g = r.job.rollout.num_generations;
  if (g > 0 && given % g != 0) {
    throw InvalidRequest(
        r.plan.global_batch ? "global_batch" : "micro_batch",
        fmt::format("{} completions a step is not a multiple of num_generations {}: TRL samples "
                    "each prompt's {} completions into the same generation batch",
                    given, g, g),
        fmt::format("a multiple of {} (global_batch = prompts x num_generations)", g));
  }
  return given;
}

ClusterProfile update_cluster(const TrainingJob& job, ClusterProfile c) {
  const RolloutSpec& rl = job.rollout;
  if (rl.engine == RolloutEngine::kColocate && !rl.vllm_enable_sleep_mode) {
    c.capacity = c.capacity * (1.0 - rl.vllm_gpu_memory_utilization);
  }
  return c;
}

void rank_by_round(plan::PlanReport& rep) {
  const auto round_fits = [](const plan::PlanCandidate& c) {
    return !c.estimate.primary.machines.empty() && c.estimate.primary.machines.front().fits;
  };
  const std::size_t searched = rep.candidates.size();
  // The best layout whose round does not fit, for the note: its peak, phase and the bound.
  std::string dropped;
  for (const plan::PlanCandidate& c : rep.candidates) {
    if (round_fits(c) || c.estimate.primary.machines.empty()) continue;
    const MachineEstimate& m = c.estimate.primary.machines.front();
    if (!m.rollout) continue;
    dropped = fmt::format(
        "; the best dropped peaks at {:.1f} GB in its {} phase, over the {:.1f} "
        "GB a device allows",
        m.rollout->peak.value() / 1e9, enum_name(m.rollout->peak_phase),
        m.allocatable.value() / 1e9);
    break;
  }
  std::erase_if(rep.candidates, [&](const plan::PlanCandidate& c) { return !round_fits(c); });
  for (plan::PlanCandidate& c : rep.candidates) {
    const MachineEstimate& m = c.estimate.primary.machines.front();
    c.hours = m.at_utilization.count() / 3600.0;
    c.usd = m.cost_usd ? m.cost_usd->value() : 0.0;
    c.kwh = m.energy_kwh.value_or(0.0);
  }
  std::stable_sort(
      rep.candidates.begin(), rep.candidates.end(),
      [](const plan::PlanCandidate& a, const plan::PlanCandidate& b) { return a.hours < b.hours; });
  int rank = 1;
  for (plan::PlanCandidate& c : rep.candidates) c.rank = rank++;
  rep.notes.push_back(fmt::format(
      "online RL: layouts searched on the update beside the colocated engine's pool, then ranked "
      "by the whole step (generation, log-prob forwards and updates); {} of {} fit their "
      "generation round too{}",
      rep.candidates.size(), searched, dropped));
}

}  // namespace tb::api
