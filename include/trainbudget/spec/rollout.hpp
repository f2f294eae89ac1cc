// An online RL job's rollout (GRPO, RLOO): how completions are generated and how often they are
// reused, with TRL's GRPOConfig names and defaults (trl/trainer/grpo_config.py at 006d32c;
// docs/rl.md). Values only; eval/rollout.hpp prices them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"

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
  std::int64_t max_completion_length{256};  // every completion is timed at this length
  double beta{0.0};                         // KL coefficient: > 0 loads and runs a reference model
  std::int64_t num_iterations{1};           // updates per generation batch (mu)
  RolloutEngine engine{RolloutEngine::kGenerate};
  double vllm_gpu_memory_utilization{0.3};  // the colocated engine's share of the device
  int vllm_tensor_parallel_size{1};
  bool vllm_enable_sleep_mode{false};  // the colocated engine releases its pool while training
  int vllm_server_devices{1};          // devices the server runs on (server mode)
};

// PPOConfig's num_ppo_epochs default (trl/experimental/ppo/ppo_config.py at f2cd577): the
// updates over each batch of rollouts.
inline constexpr std::int64_t kPpoEpochs = 4;
// PPOTrainer generates and scores its rollouts in chunks of local_rollout_forward_batch_size
// (default 64, the same file): the KV cache holds one chunk, and the chunks decode one after
// another.
inline constexpr std::int64_t kPpoRolloutChunk = 64;

// The sequence online RL trains on: each prompt and its completion.
[[nodiscard]] constexpr std::int64_t trained_seq_len(const RolloutSpec& r) noexcept {
  return r.max_prompt_length + r.max_completion_length;
}

}  // namespace tb
