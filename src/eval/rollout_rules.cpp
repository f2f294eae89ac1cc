// Each framework's rules for the passes after generation (docs/rl.md, "Which length prices what",
// "Colocated engine"): whether the batch is packed, whether a pipeline pads its packs, and what
// waits on the host while the engine generates; and how a round's parts add up.
#include <algorithm>

#include "trainbudget/eval/rollout.hpp"

namespace tb {

bool pack_sequences(const RolloutSpec& rl, Framework framework) noexcept {
  // NeMo RL (Megatron-Core policy) packs by default; the generic profile is the unpadded best
  // case; TRL, and the frameworks that run their RL through it, pad.
  return rl.pack_sequences.value_or(framework == Framework::kMegatron ||
                                    framework == Framework::kGeneric);
}

// NeMo RL's colocated Megatron policy moves its grad buffers and optimizer to the host before
// the refit and its weights after it, and back before training
// (nemo_rl/models/policy/workers/megatron_policy_worker.py at v0.5.0: offload_before_refit,
// offload_after_refit, `move_model(self.model, "cpu")`).
Offload offload_between_phases(const RolloutSpec& rl, Framework framework) noexcept {
  if (rl.offload_between_phases) return *rl.offload_between_phases;
  const bool nemo_rl = framework == Framework::kMegatron && rl.engine == RolloutEngine::kColocate;
  return nemo_rl ? Offload::kParams : Offload::kNone;
}

// NeMo RL under pipeline parallelism pads every packed micro-batch to the batch's longest pack,
// the pipeline needing one static shape (nemo_rl/models/megatron/data.py at v0.6.0,
// _get_pack_sequence_parameters_for_megatron: `if pp_size > 1: pad_packed_seq_to =
// max_seq_len_in_batch`; megatron_policy_worker.py at v0.3.0, `pad_full_seq_to`). A pack holds
// train_mb_tokens = micro_batch x (prompt + max completion) tokens; where two sequences of the mean
// overflow it, each pack holds one sequence, and the longest pack is the longest sequence, the
// completion that decode runs to max_completion_length. Shorter means fill their packs: those run
// at the mean.
// verl's Megatron actor sets Megatron-Core's variable_seq_lengths (verl/models/mcore/
// config_converter.py at b178a3c), so its stages pass each micro-batch at its own length.
bool packs_padded_to_longest(const RolloutSpec& rl, const Layout& layout,
                             Framework framework) noexcept {
  const bool pads = rl.pipeline_pads_packs.value_or(framework == Framework::kMegatron);
  if (!pads || layout.parallel.pp <= 1) return false;
  const std::int64_t mean = rl.max_prompt_length + mean_completion(rl) + observation_total(rl);
  const std::int64_t pack = layout.micro_batch * trained_seq_len(rl);
  return 2 * mean > pack;
}

Seconds round_seconds(const RolloutCost& r, Seconds generation, double passes_scale) noexcept {
  const Seconds trainer = (r.logprobs + r.update) * passes_scale + r.idle_offload;
  if (r.off_policy_steps > 0) return r.sync + std::max(generation, trainer);
  return generation + trainer + r.sync;
}

// A multi-turn completion's path holds each turn's wait for the environment (a tool call, the
// sandbox running the tests) and its observations' prefill between turns: the longest
// completion's path, with its decode, is the generation's (NeMo RL's
// run_async_multi_turn_rollout, nemo_rl/experience/rollouts.py at v0.5.0: each sample through its
// turns on its own, the engine batching their steps; its run_multi_turn_rollout steps a batch's
// turns together, each turn as long as the batch's longest, which this leaves out). Under dynamic
// sampling the step's generation batches run one after another (NeMo RL's grpo_train at v0.5.0:
// `dynamic_sampling_num_gen_batches` batches from the dataloader, each generated whole before its
// groups are filtered; verl's recipe/dapo dapo_ray_trainer.py `num_gen_batches`).
void finish_generation(RolloutCost& r, const RolloutSpec& rl) noexcept {
  r.rollout_turns = rl.rollout_turns;
  r.observation_tokens = observation_total(rl);
  r.environment = Seconds{rl.environment_seconds * static_cast<double>(rl.rollout_turns)};
  r.generation_batches = rl.generation_batches;
  r.generation_batch_multiplier = rl.generation_batch_multiplier;
  const Seconds turns = r.observation_prefill + r.environment;
  const double batches = rl.generation_batches;
  r.generation = (r.generation + turns) * batches;
  r.generation_low = (r.generation_low + turns) * batches;
  r.generation_high = (r.generation_high + turns) * batches;
}

}  // namespace tb
