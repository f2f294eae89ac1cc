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
  const std::int64_t mean = rl.max_prompt_length + mean_completion(rl);
  const std::int64_t pack = layout.micro_batch * (rl.max_prompt_length + rl.max_completion_length);
  return 2 * mean > pack;
}

Seconds round_seconds(const RolloutCost& r, Seconds generation, double passes_scale) noexcept {
  const Seconds trainer = (r.logprobs + r.update) * passes_scale + r.idle_offload;
  if (r.off_policy_steps > 0) return r.sync + std::max(generation, trainer);
  return generation + trainer + r.sync;
}

}  // namespace tb
