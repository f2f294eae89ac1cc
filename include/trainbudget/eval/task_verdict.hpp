// The verdict by task: one model laid against machines for each thing one might do with it —
// serve it, fine-tune it with QLoRA, LoRA or every weight, pretrain it at a Chinchilla-style
// token count — and which machine wins each, by what factor. Built from the serving estimate
// and the training estimate; docs/inference.md, "The verdict by task". Numbers only: the labels,
// lines and sentences are report/task_words.hpp's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainbudget/eval/inference.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/machine_choice.hpp"

namespace tb {

enum class Task : std::uint8_t { kServe, kQlora, kLora, kDpo, kGrpo, kFull, kPretrain };

template <>
struct EnumNames<Task> {
  static constexpr std::array<std::pair<Task, std::string_view>, 7> kNames{
      {{Task::kServe, "serve"},
       {Task::kQlora, "qlora"},
       {Task::kLora, "lora"},
       {Task::kDpo, "dpo"},
       {Task::kGrpo, "grpo"},
       {Task::kFull, "full"},
       {Task::kPretrain, "pretrain"}}};
};

// Chinchilla's compute-optimal tokens per parameter (Hoffmann et al. 2022, Table 3: 20.0
// tokens per parameter for a 70B at 1.4T; "Chinchilla-style").
inline constexpr double kChinchillaTokensPerParam = 20.0;
// The largest device count the fewest-devices search tries.
inline constexpr int kMaxTaskDevices = 4096;

struct TaskMachine {
  std::string id;
  std::string name;
  bool fits{false};             // on `devices`
  bool fits_one_device{false};  // on one device
  int devices{1};  // what the numbers are for: serve its tp; training the fewest (powers of
                   // two, ZeRO-3 beyond one) that hold the task, or the pretraining devices
                   // given (0: none up to kMaxTaskDevices)
  std::optional<double> decode_tokens_per_s;  // serve: on `devices`, only where it fits
  std::optional<double> hours;                // training tasks, at `devices`
  std::optional<double> cost_usd;             // where a price is known
  // serve: dollars per million generated tokens at the full concurrency, where a price is known
  std::optional<double> usd_per_million_tokens;
  int tp{1}, pp{1};     // serve: the layout on `devices`
  bool has_rate{true};  // training: the device has a compute rate
  Bytes memory;         // serve: needed per device; training: the allocated peak per device
  Bytes capacity;       // what it is held against
  // training: when the search stopped at a node of a system without a network between nodes,
  // the devices a node holds and the system's id (devices 0 then: none up to a node holds it).
  int node_limit{0};
  std::string system_id;
  // online RL with the policy's generate(): no device count fits because generation gathers the
  // whole model's 16-bit weights on every device under ZeRO-3 (TRL's ds3_gather_for_generation)
  // and they alone exceed one device; `memory` is then those weights.
  bool gathers_whole_model{false};
};

struct TaskResult {
  Task task{Task::kServe};
  double tokens{0.0};  // training tasks
  std::vector<TaskMachine> machines;
  std::optional<std::string> winner;  // id; none when no machine fits
  std::optional<double> factor;       // winner over the runner-up that also fits
};

struct TaskComparison {
  std::string model;  // display name
  double params{0.0};
  ServingSetup serving;       // what serve was asked (weights, context, concurrency)
  std::int64_t lora_rank{0};  // with an architecture; 0: the fraction below
  double trainable_fraction{0.0};
  RolloutSpec rollout;  // the GRPO task's generation (TRL's defaults)
  std::vector<TaskResult> tasks;
};

struct CompareInputs {
  TrainingJob training;  // the model, fine-tuning tokens, LoRA rank, framework
  ServingJob serving;
  std::optional<double> pretrain_tokens;  // default kChinchillaTokensPerParam x params
  std::optional<int> pretrain_devices;    // default: the fewest (powers of two) that fit
};

[[nodiscard]] TaskComparison compare_tasks(const CompareInputs& in,
                                           const std::vector<MachineChoice>& machines);

}  // namespace tb
