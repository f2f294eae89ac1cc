// Advice that is right: the smallest change to a job that makes it fit its machine, found by
// the planner over the job's own knobs (recompute, micro-batch with grad-accum keeping the
// global batch, ZeRO, offload, an 8-bit optimizer, LoRA/QLoRA) and, when nothing on its devices
// fits, the fewest devices that do. "Smallest" counts the knobs changed, weighted by how much of
// the job they change (docs/scale.md, "Advice"); ties go to the faster.
#pragma once

#include <optional>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/spec/machine_choice.hpp"

namespace tb::plan {

// The smallest change that fits on `machine` and the fastest fitting one (which may be the
// same); empty when the job fits or nothing in the search does.
[[nodiscard]] std::vector<Advice> advise(const TrainingJob& job, const MachineChoice& machine);

// A job that fits but whose step waits on communication or the pipeline bubble: on its own
// devices and parallel degrees, the fastest change of the global batch (more micro-batches a
// step, up to 16x), ZeRO stage, hybrid sharding or interleaving, when it saves at least a fifth
// of the time; nullopt otherwise (or when the step is compute- or memory-bound).
[[nodiscard]] std::optional<Advice> advise_unbound(const TrainingJob& job,
                                                   const MachineChoice& machine);

// Online RL (GRPO, RLOO, PPO): the smallest change that fits, each candidate priced with its
// generation round: recompute, a chunked loss, a smaller micro-batch with more accumulation,
// the engine asleep or its pool narrowed or on a server of its own, ZeRO-3, LoRA (docs/rl.md,
// "What to change"); and the fastest fitting one when it is clearly faster.
[[nodiscard]] std::vector<Advice> advise_rollout(const TrainingJob& job,
                                                 const MachineChoice& machine);

// Online RL: the fewest devices (doubling from twice the job's, ZeRO-3) on which the job with
// its generation round fits; 0 when none up to 4096 does.
[[nodiscard]] int rollout_devices_to_fit(const TrainingJob& job, const MachineChoice& machine);

// Online RL: the longest completion and the largest micro-batch that fit on `machine` with the
// rest of the job as given (bisection over each; memory grows with both).
[[nodiscard]] RolloutLimits rollout_limits(const TrainingJob& job, const MachineChoice& machine);

}  // namespace tb::plan
