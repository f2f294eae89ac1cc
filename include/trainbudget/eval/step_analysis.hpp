// One training step of a known architecture: activations, FLOPs from the architecture, peak
// memory over the phases and, on request, what fits each machine. Joins activation_memory,
// arch_flops, peak_memory and fit_search for the estimate; docs/activations.md.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/eval/activation_memory.hpp"
#include "trainbudget/eval/arch_flops.hpp"
#include "trainbudget/eval/peak_memory.hpp"
#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/plan/fit_search.hpp"
#include "trainbudget/spec/recipe.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

// What is trained and what the model states weigh on one device.
struct StepInputs {
  bool adapters_only{false};           // LoRA/QLoRA: a frozen base, gradients for adapters only
  std::vector<AdapterShape> adapters;  // their shapes (empty for full training)
  double trainable_params{0.0};
  Bytes resident;   // per device: weights, master weights, optimizer states, frozen weights
  Bytes gradients;  // per device: the recipe's gradient buffer
  std::vector<Bytes> capacities;  // per machine, for the fit search (setup.search_fit)
};

struct MachineFit {
  FitResult micro_batch;  // at the setup's sequence length
  FitResult seq_len;      // at the setup's micro-batch
};

struct StepAnalysis {
  TrainingSetup setup;  // resolved (the default sequence length capped by the model's)
  DType activation_dtype{DType::kBf16};
  ActivationEstimate activations;
  ArchFlops flops;
  PeakMemory peak;
  OptimizerKernel optimizer_kernel{OptimizerKernel::kPerTensor};
  std::vector<MachineFit> fits;    // one per capacity when setup.search_fit
  std::vector<std::string> notes;  // e.g. a sequence longer than the model was built for
};

// Micro-batch search limit for --fit: 2^16 sequences.
inline constexpr std::int64_t kFitMicroBatchLimit = std::int64_t{1} << 16;
// Sequence search limit for a model that states no context length: 2^20 tokens.
inline constexpr std::int64_t kFitSeqLenLimit = std::int64_t{1} << 20;

// The step for `setup` on `arch` under `recipe`. The architecture must be valid.
[[nodiscard]] StepAnalysis analyze_step(const ModelArchitecture& arch, const TrainingSetup& setup,
                                        const Recipe& recipe, const StepInputs& inputs);

}  // namespace tb
