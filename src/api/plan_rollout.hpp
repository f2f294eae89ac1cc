// A plan of an online RL job (GRPO, RLOO, PPO): the update's layouts searched beside the
// colocated engine's pool, then each kept one estimated with its generation round and ranked by
// the whole step. Private to the api library (plan_session.cpp); docs/rl.md, "Planning".
#pragma once

#include <cstdint>

#include "trainbudget/api/request.hpp"
#include "trainbudget/plan/plan_report.hpp"
#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb::api {

// The completions one optimizer step trains on, as the request gives them (global_batch, else
// its micro_batch x grad_accum x dp): a multiple of num_generations, since TRL samples every
// prompt's num_generations completions into the same generation batch.
[[nodiscard]] std::int64_t rollout_global_batch(const EstimateRequest& r, const Layout& base);

// The cluster the update's layouts are searched on: a colocated engine that stays awake while
// the trainer steps (no vllm_enable_sleep_mode) keeps vllm_gpu_memory_utilization of every
// device.
[[nodiscard]] ClusterProfile update_cluster(const TrainingJob& job, ClusterProfile c);

// The candidates by their whole estimate: those whose generation round or update does not fit
// dropped, the rest ordered by hours (the round's generation, log-prob forwards and updates),
// ranks renumbered, and a note that says so.
void rank_by_round(plan::PlanReport& rep);

}  // namespace tb::api
