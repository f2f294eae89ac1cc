// What the user wants to train: the inputs of an estimate, validated at construction.
#pragma once

#include <string>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/lora_spec.hpp"
#include "trainbudget/spec/model_source.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

// full: every weight trained. lora: adapters on a frozen 16-bit base. qlora: adapters on a base
// stored in NF4 (Dettmers et al. 2023). freeze: only the top fraction of the network trained.
enum class Method { kFull, kLora, kQlora, kFreeze };

template <>
struct EnumNames<Method> {
  static constexpr std::array<std::pair<Method, std::string_view>, 4> kNames{
      {{Method::kFull, "full"},
       {Method::kLora, "lora"},
       {Method::kQlora, "qlora"},
       {Method::kFreeze, "freeze"}}};
};

// "full" | "lora" | "qlora" | "freeze"; throws InvalidRequest naming the method field otherwise.
[[nodiscard]] Method parse_method(std::string_view text);

// Utilization (model-FLOPs utilization) assumed when the user gives none. Published large runs
// report 38-56 % MFU: Llama 3 405B on H100 38-43 % (Dubey et al. 2024, Table 4), Megatron-Core
// 41-48 % on H100 (Megatron-LM README), PaLM 46.2 % (Chowdhery et al. 2022), Korthikanti et al.
// 2022 up to 56 %. 0.40 sits at the low end of that range, which single-node fine-tunes rarely
// beat. It is a choice, not a measurement: --utilization overrides it.
inline constexpr double kDefaultUtilization = 0.40;

// LoRA's trainable share when only a parameter count is known: the seed document's "2 %".
inline constexpr double kDefaultTrainableFraction = 0.02;

struct TrainingJob {
  double params{7e9};  // parameters of the base model
  ModelSource model;   // where `params` came from; an architecture with --model
  double tokens{1e9};  // training tokens (all epochs)
  Method method{Method::kFull};
  // lora: adapter parameters as a fraction of `params` (added on top of the frozen base);
  // freeze: the fraction of `params` that is trained (the rest is frozen below it).
  double trainable_fraction{kDefaultTrainableFraction};
  // lora/qlora with an architecture: exact adapters (rank, targets) instead of the fraction.
  LoraSpec lora;
  QloraOptions qlora;
  std::string recipe_id{"amp-adam"};
  double utilization{kDefaultUtilization};
  int devices{1};
  // ZeRO stage over the `devices` data-parallel ranks: 0 = plain data parallelism (a full
  // replica each), 1 = optimizer states, 2 = + gradients, 3 = + weights partitioned (FSDP's
  // FULL_SHARD is stage 3, SHARD_GRAD_OP stage 2).
  int zero_stage{0};
  // Micro-batch, sequence, attention, recompute, ...: used with an architecture only
  // (activations, peak memory, FLOPs from the architecture; docs/activations.md).
  TrainingSetup setup;
};

// Throws InvalidRequest for a field out of range, naming its key.
void validate(const TrainingJob& job);

// LoRA or QLoRA: adapters on a frozen base.
[[nodiscard]] inline bool uses_adapters(Method m) {
  return m == Method::kLora || m == Method::kQlora;
}

}  // namespace tb
