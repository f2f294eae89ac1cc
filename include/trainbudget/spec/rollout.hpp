// An online RL job's rollout (GRPO, RLOO): how completions are generated and how often they are
// reused, with TRL's GRPOConfig names and defaults (trl/trainer/grpo_config.py at 006d32c;
// docs/rl.md). Values only; eval/rollout.hpp prices them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/parallel.hpp"

namespace tb {

// Where completions are generated: the training model's own generate() (TRL's default,
// use_vllm False), a vLLM engine inside each training process sharing its device (colocate), or
// a separate vLLM server on devices of its own (TRL's default vllm_mode, `trl vllm-serve`).
enum class RolloutEngine : std::uint8_t { kGenerate, kColocate, kServer };

template <>
struct EnumNames<RolloutEngine> {
  static constexpr std::array<std::pair<RolloutEngine, std::string_view>, 3> kNames{
      {{RolloutEngine::kGenerate, "generate"},
       {RolloutEngine::kColocate, "colocate"},
       {RolloutEngine::kServer, "server"}}};
};

struct RolloutSpec {
  std::int64_t num_generations{8};          // completions sampled per prompt
  std::int64_t max_prompt_length{512};      // TRL's earlier default; prompts are padded to it
  std::int64_t max_completion_length{256};  // the longest a completion may run
  // The completions' mean length as the run logs it (TRL's completions/mean_length, verl's
  // response_length/mean); 0: every completion at max_completion_length. Decode runs until the
  // longest completion of a batch; the cache, the log-prob passes and the update follow the mean.
  std::int64_t mean_completion_length{0};
  double beta{0.0};                // KL coefficient: > 0 loads and runs a reference model
  std::int64_t num_iterations{1};  // updates per generation batch (mu)
  // Micro-batches each generation batch feeds (TRL >= 0.18); 0: gradient_accumulation_steps,
  // TRL's default, so one generation batch per optimizer step.
  std::int64_t steps_per_generation{0};
  // vLLM only (TRL >= 0.23, default True): the old policy's log-probs are recomputed for every
  // generation batch, to weigh the engine's sampling against the trainer's.
  bool vllm_importance_sampling_correction{true};
  RolloutEngine engine{RolloutEngine::kGenerate};
  double vllm_gpu_memory_utilization{0.3};  // the colocated engine's share of the device
  int vllm_tensor_parallel_size{1};
  bool vllm_enable_sleep_mode{false};  // the colocated engine releases its pool while training
  int vllm_server_devices{1};          // devices the server runs on (server mode)
  // The share of each server device the engine takes for its weights and KV cache (vLLM's
  // --gpu-memory-utilization, default 0.9; NeMo RL's non-colocated
  // vllm_cfg.gpu_memory_utilization).
  double vllm_server_gpu_memory_utilization{0.9};
  // How many trainer steps the server's generation may run ahead (NeMo RL's async GRPO,
  // grpo.async_grpo.max_trajectory_age_steps): 0, generation and training take turns; k >= 1, the
  // server generates the next batch while the trainer trains on the last (eval/rollout.hpp,
  // round_seconds).
  int off_policy_steps{0};
  // Dynamic sampling (DAPO: NeMo RL's grpo.use_dynamic_sampling, verl's algorithm.filter_groups):
  // a generation batch holds generation_batch_multiplier x the prompts a step trains on (NeMo
  // RL's grpo.batch_multiplier; verl's data.gen_batch_size over data.train_batch_size), and a
  // step generates generation_batches of them one after another until enough groups have
  // rewards that differ (the count a run logs: NeMo RL's dynamic_sampling_num_gen_batches,
  // verl's num_gen_batches). The passes after generation run on the step's batch alone.
  double generation_batch_multiplier{1.0};
  int generation_batches{1};
  // Multi-turn rollouts (an agent calling tools: NeMo RL's grpo.max_rollout_turns with NeMo Gym
  // environments, verl's multi_turn): a completion is rollout_turns turns of the model's tokens
  // (max_ and mean_completion_length count them all), each turn but the last followed by
  // observation_tokens the environment returns, prefilled into the sequence, after
  // environment_seconds of its work (a tool call, a sandbox's tests).
  int rollout_turns{1};
  // ReMax's baseline (Li et al. 2023, "ReMax: A Simple, Effective, and Efficient Reinforcement
  // Learning Method for Aligning Large Language Models"; verl's algorithm.adv_estimator remax):
  // after the sampled batch, one greedy completion per prompt, generated as a batch of its own
  // (verl's ray_trainer.py: gen_baseline_batch with do_sample false) and scored, never trained on.
  bool greedy_baseline{false};
  std::int64_t observation_tokens{0};
  double environment_seconds{0.0};
  // The vLLM release the engine runs, {major, minor}; unset: a V1 release in the trainer's own
  // process (TRL >= 0.23, NeMo RL). Decides which of the engine's host work between decode
  // steps the device waits for (eval/rollout.cpp, host_split).
  std::optional<std::array<int, 2>> vllm_version;
  // The engine's V1 core runs in its own process beside the trainer's (NeMo RL's
  // vllm_cfg.async_engine: vLLM's AsyncLLM), so the outputs are processed in the trainer's
  // process while the core runs the next step (eval/rollout.cpp, host_split).
  bool vllm_async_engine{false};
  // The engine's linear weights in fp8 (e4m3, vLLM's fp8 quantization: NeMo RL's
  // vllm_cfg.precision "fp8"), the embeddings and the LM head in bf16; the trainer's stay as its
  // recipe has them, and the cache in bf16.
  bool vllm_fp8{false};
  // PPO's reward scored by a function, not a model (verl's reward_model.enable false, its
  // rule-based reward): no reward model is loaded or run.
  bool reward_function{false};
  // Whether the LM head computes logits for the completion's positions alone in every pass over
  // the batch (TRL's GRPO and RLOO pass logits_to_keep = completion + 1: grpo_trainer.py) or over
  // prompt and completion (TRL's PPO, verl's actor, NeMo RL); unset: by the trainer.
  std::optional<bool> completion_logits;
  // Whether the passes after generation (log-probs, update) run on the completions unpadded, so
  // at their mean length (NeMo RL's policy.sequence_packing, default on in its GRPO configs;
  // verl's use_remove_padding, default on in HFModelConfig; OpenRLHF's --ds.packing_samples), or
  // on the generation batch padded to its longest completion (TRL's GRPO and RLOO trainers pad
  // completion_ids right to the batch's longest, grpo_trainer.py `_generate_and_score_completions`;
  // verl without remove_padding pads to response_length), priced at max_completion_length, the
  // longest a completion may be. Unset: by the framework (pack_sequences_default).
  std::optional<bool> pack_sequences;
  // The actor's states that wait in host memory while the engine generates and return for the
  // update (verl's FSDP actor under param_offload / optimizer_offload: fsdp_workers.py moves
  // them between phases, not layer by layer): optimizer, the optimizer states and master
  // weights; params, the weights too. The update runs with everything on the device. Unset: by
  // the framework (offload_between_phases() in eval/rollout.hpp).
  std::optional<Offload> offload_between_phases;
  // Whether the reference's weights wait in host memory and come onto the device for its pass
  // (NeMo RL's use_reference_model: the policy's weights saved to the host, the reference's loaded
  // over them, the policy's back; verl's ref.megatron.param_offload) rather than sit on the
  // device beside the policy's (verl's Megatron reference by default, TRL). Unset: by the
  // framework (reference_on_host() in spec/job.hpp).
  std::optional<bool> reference_on_host;
  // Whether, under pipeline parallelism, every packed micro-batch is padded to the batch's longest
  // pack, the pipeline passing one static shape between stages (NeMo RL), rather than each its
  // own (Megatron-Core's variable_seq_lengths, which verl sets). Unset: by the framework
  // (packs_padded_to_longest() in eval/rollout.hpp).
  std::optional<bool> pipeline_pads_packs;
};

// PPOConfig's num_ppo_epochs default (trl/experimental/ppo/ppo_config.py at f2cd577): the
// updates over each batch of rollouts.
inline constexpr std::int64_t kPpoEpochs = 4;
// PPOTrainer generates and scores its rollouts in chunks of local_rollout_forward_batch_size
// (default 64, the same file): the KV cache holds one chunk, and the chunks decode one after
// another.
inline constexpr std::int64_t kPpoRolloutChunk = 64;

// The micro-batches one generation batch feeds: steps_per_generation, or the accumulation.
[[nodiscard]] constexpr std::int64_t generation_steps(const RolloutSpec& r,
                                                      std::int64_t grad_accum) noexcept {
  return r.steps_per_generation > 0 ? r.steps_per_generation : grad_accum;
}

// Whether the old policy's log-probs are computed for each generation batch
// (trl/trainer/grpo_trainer.py at f2cd577, `_generate_and_score_completions`): when generation
// and the optimizer steps do not line up (gradient_accumulation_steps is not a multiple of
// steps_per_generation x num_iterations) the samples can come from an earlier policy, and with
// vLLM's importance-sampling correction always.
[[nodiscard]] constexpr bool old_policy_logprobs(const RolloutSpec& r,
                                                 std::int64_t grad_accum) noexcept {
  const std::int64_t every = generation_steps(r, grad_accum) * r.num_iterations;
  const bool vllm = r.engine != RolloutEngine::kGenerate;
  return grad_accum % every != 0 || (vllm && r.vllm_importance_sampling_correction);
}

// The completions' mean length: the given mean, or every completion at its maximum.
[[nodiscard]] constexpr std::int64_t mean_completion(const RolloutSpec& r) noexcept {
  return r.mean_completion_length > 0 && r.mean_completion_length < r.max_completion_length
             ? r.mean_completion_length
             : r.max_completion_length;
}

// The positions of a trained sequence that get logits: the completion's and the one before it
// (TRL's logits_to_keep + 1, grpo_trainer.py: the last prompt position predicts the first
// completion token) when `completion_logits`, else 0 (every position).
[[nodiscard]] constexpr std::int64_t logits_positions(const RolloutSpec& r, bool ppo,
                                                      std::int64_t completion) noexcept {
  return r.completion_logits.value_or(!ppo) ? completion + 1 : 0;
}

// The environment's tokens in a multi-turn completion: observation_tokens after every turn but
// the last (0 for one turn).
[[nodiscard]] constexpr std::int64_t observation_total(const RolloutSpec& r) noexcept {
  return r.rollout_turns > 1 ? (r.rollout_turns - 1) * r.observation_tokens : 0;
}

// The sequence online RL trains on: each prompt, its completion and, over several turns, the
// environment's observations between them (masked from the loss, not from the passes).
[[nodiscard]] constexpr std::int64_t trained_seq_len(const RolloutSpec& r) noexcept {
  return r.max_prompt_length + r.max_completion_length + observation_total(r);
}

}  // namespace tb
