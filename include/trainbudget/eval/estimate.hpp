// The training budget: memory, FLOPs, hours per machine, and a verdict. Pure functions only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/step_analysis.hpp"
#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/machine_choice.hpp"
#include "trainbudget/spec/recipe.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

struct MemoryComponent {
  std::string
      key;  // JSON key: weights, gradients, optimizer_states, master_weights, frozen_weights
  std::string label;  // human label with dtype
  double bytes_per_param{0.0};
  double params{0.0};   // how many parameters this component is kept for
  Bytes bytes;          // per device
  int sharded_over{1};  // devices it is partitioned over (ZeRO), 1 = replicated
};

struct MemoryEstimate {
  std::vector<MemoryComponent> components;
  Bytes total;
  bool activations_included{false};

  // Sum of the components with this key (a recipe may split one kind over two rows).
  [[nodiscard]] Bytes by_key(std::string_view key) const;
  // What one device would hold without ZeRO partitioning (a full replica).
  [[nodiscard]] Bytes replica_total() const;
};

struct ComputeEstimate {
  double flops_per_token{0.0};
  double flops_per_token_6n{0.0};  // the seed's 6N reference, always shown beside
  Flops total;
  std::string formula;  // e.g. "6 x N x D"
};

// Why a job does or does not fit one device's memory.
enum class Fit {
  kFits,           // the model states fit
  kNeedsLora,      // full fine-tune does not fit, the LoRA alternative does
  kNeedsSharding,  // neither fits one device: shard over devices_to_fit (ZeRO-3/FSDP)
};

[[nodiscard]] std::string_view fit_key(Fit fit);

struct MachineEstimate {
  const Device* device{nullptr};
  DType dtype{DType::kBf16};   // the rate actually used
  DType wanted{DType::kBf16};  // recipe's compute dtype, or the user's :dtype override
  bool dtype_overridden{false};
  DType recipe_dtype{DType::kBf16};  // what the recipe computes in
  const ComputeRate* rate{nullptr};
  double utilization{0.0};
  int devices{1};
  Seconds at_peak{0.0};         // 100 % utilization, ideal scaling over `devices`
  Seconds at_utilization{0.0};  // at `utilization`
  bool fits{false};
  Fit fit{Fit::kFits};
  int devices_to_fit{1};           // devices needed if model states are fully sharded (ZeRO-3)
  std::optional<double> cost_usd;  // at_utilization x devices x price, where a price is known

  [[nodiscard]] bool dtype_fell_back() const { return dtype != wanted; }
};

struct Scenario {
  std::string label;  // "full fine-tune", "LoRA (2 % trainable)", ...
  Method method{Method::kFull};
  double params_total{0.0};
  double params_trainable{0.0};
  MemoryEstimate memory;
  ComputeEstimate compute;
  std::vector<MachineEstimate> machines;
  std::optional<StepAnalysis> step;  // with an architecture: activations, peak, arch FLOPs
};

struct Estimate {
  TrainingJob job;
  const Recipe* recipe{nullptr};
  Scenario primary;
  std::optional<Scenario> lora_alternative;  // present when the job is a full fine-tune
};

// --- named formulas -----------------------------------------------------------------------

// Trainable parameters of the job (adapters for LoRA, the trained share for freeze).
[[nodiscard]] double trainable_params(const TrainingJob& job);

// Model states of the job under the recipe, per device: the recipe's bytes for every trainable
// parameter, its frozen-weight bytes for every frozen one, each component divided over the
// devices when the job's ZeRO stage partitions it (zero_partition). Activations not included.
[[nodiscard]] MemoryEstimate estimate_memory(const TrainingJob& job, const Recipe& recipe);

[[nodiscard]] ComputeEstimate estimate_compute(const TrainingJob& job);

// Hours on one machine, the rate chosen by dtype, and whether the states fit.
[[nodiscard]] MachineEstimate estimate_on(const MachineChoice& choice, const Recipe& recipe,
                                          const TrainingJob& job, const MemoryEstimate& memory,
                                          const ComputeEstimate& compute,
                                          const std::optional<Bytes>& lora_total);

// With an architecture (docs/activations.md): adds the activations as a memory component, makes
// the memory total the peak over the step's phases, and replaces the 6N compute by the
// architecture's count (full, LoRA, QLoRA; freeze keeps its parameter formula). Fills
// scenario.step. Called before the machines are estimated.
void apply_step_analysis(const TrainingJob& job, const Recipe& recipe,
                         const std::vector<MachineChoice>& machines, Scenario& scenario);

// The whole budget for the job on the given machines (validated first).
[[nodiscard]] Estimate estimate(const TrainingJob& job, const std::vector<MachineChoice>& machines);

}  // namespace tb
