// Online RL (GRPO, RLOO): the generation round beside the training step (docs/rl.md, "Online
// RL"). Each optimizer step's completions are generated first (prefill of the prompts, then
// decode at the batch of completions, priced by the serving model of eval/inference.hpp), their
// log-probs computed under the reference and the old policy where the job needs them, then
// trained on num_iterations times, and the new weights handed to the engine. Memory: the
// engine's pool or the generation's KV cache beside the training states.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/note.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/machine_choice.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {

enum class RolloutPhase : std::uint8_t { kGeneration, kUpdate };

template <>
struct EnumNames<RolloutPhase> {
  static constexpr std::array<std::pair<RolloutPhase, std::string_view>, 2> kNames{
      {{RolloutPhase::kGeneration, "generation"}, {RolloutPhase::kUpdate, "update"}}};
};

// PPO's two other models on one training device (docs/rl.md, "PPO"; TRL's PPOTrainer): the
// value model trained beside the policy in the same forward and backward (PolicyAndValueWrapper,
// one optimizer), and the reward model's frozen weights and no-grad forward.
struct CriticCost {
  double value_params{0.0};
  double reward_params{0.0};
  Bytes value_states;       // weights, gradients and optimizer states, sharded as the policy's
  Bytes value_gradients;    // of which its gradients
  Bytes value_activations;  // what its forward saves for the shared backward, one micro-batch
  Bytes reward_weights;     // frozen in the compute dtype, ZeRO-3 sharded (stage 0 otherwise)
  Seconds value_forward;    // one micro-batch without gradients
  Seconds value_step;       // its forwards and backwards over the step's micro-batches, its update
  Seconds reward_forward;   // one micro-batch
};

// What fits an online RL job on one machine with everything else as given (0: nothing does):
// the longest max_completion_length, and the most completions a micro-batch (a multiple that
// keeps whole groups of num_generations in the generation batch).
struct RolloutLimits {
  std::int64_t max_completion_length{0};
  std::int64_t micro_batch{0};
};

struct RolloutCost {
  RolloutEngine engine{RolloutEngine::kGenerate};
  // Per engine: the completions it decodes together, their prompts, and its devices.
  std::int64_t completions{0};
  std::int64_t prompts{0};
  int engine_tp{1};
  int engines{1};
  // Memory per training device (server: per server device for the engine's own terms).
  Bytes kv_needed;         // every completion's prompt and completion in the cache
  Bytes pool;              // colocate: the engine's share of the device
  Bytes engine_weights;    // the engine's copy of the weights (colocate, server)
  Bytes kv_capacity;       // the pool (server: the server's share) less the engine's weights
  bool kv_fits{true};      // all completions at once; else some wait for blocks to free
  bool engine_fits{true};  // at least one full sequence fits the engine (vLLM refuses otherwise)
  Bytes generation_peak;   // training states (no gradients) + the pool or the KV cache
  Bytes update_peak;       // the training step's peak + the pool when it stays awake
  Bytes peak;
  RolloutPhase peak_phase{RolloutPhase::kUpdate};
  // Colocate: the vllm_gpu_memory_utilization range that works: from the share whose pool holds
  // the engine's weights and every completion's cache, to the share that leaves the trainer its
  // peak (while training, or while generating with sleep mode). min > max: none does.
  double utilization_min{0.0};
  double utilization_max{0.0};
  // Time of one generation round (one optimizer step's completions), per device.
  Seconds prefill{0.0};
  Seconds decode{0.0};
  // The host's time a decode step waits for: generate() issuing its kernels one by one (the
  // step takes the longer of it and the device's), vLLM's engine work between steps (added).
  Seconds decode_host{0.0};
  // vLLM's host work that runs while the device runs the next step (V0's async output
  // processing, 0.6 and 0.7): the step takes the longer of it and the device's.
  Seconds decode_host_beside{0.0};
  // The band's high end of the host work a step waits for (RFC #6854's 13 ms, its waiting share).
  Seconds decode_host_high{0.0};
  Seconds generation{0.0};
  // The generation's band: vLLM's host work between decode steps from none (overlapped, as
  // async scheduling does) to the high end of its measured range; generate() as priced.
  Seconds generation_low{0.0};
  Seconds generation_high{0.0};
  int logprob_passes{0};  // no-grad forwards: the reference (beta > 0), the old policy
  Seconds logprobs{0.0};
  std::int64_t generation_steps{1};  // micro-batches a generation batch feeds, per process
  double updates{1.0};  // optimizer steps a round: num_iterations x generation_steps / grad_accum
  Seconds update{0.0};  // updates x the training step
  Seconds sync{0.0};    // the new weights into the engine
  Seconds sync_gather{0.0};  // of which the trainer gathers them whole (Megatron-Core's refit)
  // offload_between_phases: the actor's states on this device that go to the host before
  // generation and come back before the update, and the time of both moves over its host link.
  Bytes idle_offloaded{0.0};
  Seconds idle_offload{0.0};
  // reference_on_host: this device's weights moved three times a round for the reference's
  // pass (the policy's to the host, the reference's in, the policy's back), in logprobs.
  Bytes reference_swapped{0.0};
  Seconds reference_swap{0.0};
  Seconds round{0.0};
  // Off-policy generation (RolloutSpec::off_policy_steps): the steps the server may run ahead,
  // and the generation the trainer waits for beyond its own passes (0 when they hide it).
  int off_policy_steps{0};
  Seconds exposed_generation{0.0};
  // Dynamic sampling (RolloutSpec::generation_batches): the generation batches a step runs, each
  // of generation_batch_multiplier x the step's prompts; generation counts them all.
  int generation_batches{1};
  double generation_batch_multiplier{1.0};
  // Multi-turn rollouts (RolloutSpec::rollout_turns): the observations' prefill and the
  // environment's turns on the longest completion's path, both in generation; the tokens a
  // sequence holds after generation (prompt, the model's tokens and the observations).
  int rollout_turns{1};
  Seconds observation_prefill{0.0};
  Seconds environment{0.0};
  std::int64_t observation_tokens{0};
  // ReMax (RolloutSpec::greedy_baseline): the greedy batch's prefill and decode, one completion
  // per prompt after the sampled batch; in generation (and its band's ends, each at its own).
  Seconds baseline_generation{0.0};
  double decode_tokens_per_s{0.0};  // per engine, all its completions together
  std::int64_t chunks{1};           // PPO: the generation batch in chunks, one after another
  // Which length priced what: decode steps run to the longest (max_completion_length); the
  // cache, the decode step's context, the log-prob passes and the update use the mean.
  std::int64_t decode_length{0};
  std::int64_t decode_steps_run{
      0};  // decode steps over every chunk (queued: at the narrower width)
  std::int64_t mean_length{0};
  // The completion length the log-prob passes and the update were priced at: the mean where the
  // passes are packed (pack_sequences), the longest where the batch is padded.
  std::int64_t passes_length{0};
  std::optional<CriticCost> critics;  // PPO
  std::vector<Note> assumptions;
};

// The rollout of `job` on one machine, beside the training step `step` its layout costs there
// (and, for PPO, its value and reward models' `critics`). Throws InvalidRequest naming
// vllm_tensor_parallel_size when it does not divide the heads.
[[nodiscard]] RolloutCost rollout_cost(const TrainingJob& job, const Layout& layout,
                                       const ClusterProfile& cluster, const MachineChoice& machine,
                                       const StepCost& step,
                                       const std::optional<CriticCost>& critics = std::nullopt,
                                       const StepCost* at_mean = nullptr,
                                       Bytes idle_offloaded = Bytes{0.0});

// Whether the passes after generation run packed, at the completions' mean length: the given
// pack_sequences, else packed under the Megatron-Core (NeMo RL) and generic profiles, padded to
// the longest under the rest (TRL's trainers; docs/rl.md, "Which length prices what").
[[nodiscard]] bool pack_sequences(const RolloutSpec& rl, Framework framework) noexcept;

// What waits in host memory while the engine generates: the given offload_between_phases, else
// params (the weights, master weights and optimizer states) for a colocated engine under the
// Megatron-Core (NeMo RL) profile, nothing otherwise (docs/rl.md, "Colocated engine").
[[nodiscard]] Offload offload_between_phases(const RolloutSpec& rl, Framework framework) noexcept;

// Whether the passes after generation run on packs padded to the batch's longest sequence: under
// pipeline parallelism where pipeline_pads_packs says so (unset: the megatron profile, NeMo RL),
// where two sequences of the mean overflow a pack of micro_batch (docs/rl.md, "Which length
// prices what").
[[nodiscard]] bool packs_padded_to_longest(const RolloutSpec& rl, const Layout& layout,
                                           Framework framework) noexcept;

// A round from its parts, with `generation` for the engine's time and the trainer's passes (the
// log-probs and the update) scaled by `passes_scale` (the step's band; 1 as priced). In turn, the
// sum of generation, the passes, the offload between phases and the sync. Off policy
// (off_policy_steps > 0, a server of its own), NeMo RL's async GRPO loop: after each sync the
// server starts the next batch while the trainer trains on the one it generated a step earlier,
// so a round is the sync and the longer of the two (nemo_rl/algorithms/grpo.py at v0.5.0,
// async_grpo_train; async_utils.py, AsyncTrajectoryCollector: targets weight version + 1 ..
// + max_trajectory_age_steps, a batch at a time).
// The generation's last terms, added to its priced prefill and decode (and to their band): the
// observations' prefill and the environment's turns of a multi-turn rollout, then the step's
// generation batches under dynamic sampling, one after another.
void finish_generation(RolloutCost& r, const RolloutSpec& rl) noexcept;

[[nodiscard]] Seconds round_seconds(const RolloutCost& r, Seconds generation,
                                    double passes_scale = 1.0) noexcept;

// The job's round on one machine (PPO's critics priced for PPO) folded into its step: the step's
// memory becomes the round's peak, its time the rounds, and it no longer fits when the peak
// passes the device or the engine cannot hold a sequence. What the estimate and the advice both
// price an online RL job with.
[[nodiscard]] RolloutCost apply_rollout(const TrainingJob& job, const Recipe& recipe,
                                        const ModelProfile& profile, const Layout& layout,
                                        const ClusterProfile& cluster, const MachineChoice& machine,
                                        StepCost& step);

// PPO's value and reward models priced on the policy's layout and cluster: each a full model of
// its own architecture (a score head of one output), the value model trained with the job's
// recipe, the reward model frozen.
[[nodiscard]] CriticCost ppo_critics(const TrainingJob& job, const Recipe& recipe,
                                     const Layout& layout, const ClusterProfile& cluster);

}  // namespace tb
