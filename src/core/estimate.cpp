// Memory, compute and time of a training job; the verdict per machine.
#include "trainbudget/core/estimate.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tb {

Bytes MemoryEstimate::by_key(std::string_view key) const {
  Bytes sum{0.0};
  for (const MemoryComponent& c : components) {
    if (c.key == key) sum += c.bytes;
  }
  return sum;
}

std::string_view fit_key(Fit fit) {
  switch (fit) {
    case Fit::kFits:
      return "fits";
    case Fit::kNeedsLora:
      return "needs_lora";
    case Fit::kNeedsSharding:
      return "needs_sharding";
  }
  return "fits";
}

double flops_per_token_full(double params) { return 6.0 * params; }

double flops_per_token_lora(double base_params, double adapter_params) {
  return 4.0 * base_params + 6.0 * adapter_params;
}

double flops_per_token_freeze(double params, double trained_params) {
  return 2.0 * params + 4.0 * trained_params;
}

double trainable_params(const TrainingJob& job) {
  switch (job.method) {
    case Method::kFull:
      return job.params;
    case Method::kLora:
    case Method::kFreeze:
      return job.params * job.trainable_fraction;
  }
  return job.params;
}

MemoryEstimate estimate_memory(const TrainingJob& job, const Recipe& recipe) {
  MemoryEstimate out;
  const double trainable = trainable_params(job);
  const bool adapters = job.method == Method::kLora;
  for (const StateComponent& c : recipe.components) {
    std::string label{c.label};
    if (adapters && c.kind == StateKind::kWeights) label = "adapter " + label;
    out.components.push_back({std::string{state_kind_key(c.kind)}, std::move(label),
                              c.bytes_per_param, trainable, Bytes{c.bytes_per_param * trainable}});
  }
  // LoRA keeps the whole base frozen; freeze keeps the untrained share frozen.
  const double frozen = adapters ? job.params : job.params - trainable;
  if (frozen > 0.0) {
    out.components.push_back(
        {"frozen_weights", fmt::format("frozen weights ({})", dtype_name(recipe.compute_dtype)),
         recipe.frozen_weight_bytes, frozen, Bytes{recipe.frozen_weight_bytes * frozen}});
  }
  for (const MemoryComponent& c : out.components) out.total += c.bytes;
  return out;
}

ComputeEstimate estimate_compute(const TrainingJob& job) {
  ComputeEstimate out;
  const double trainable = trainable_params(job);
  switch (job.method) {
    case Method::kFull:
      out.flops_per_token = flops_per_token_full(job.params);
      out.formula = "6 x N per token (forward 2N + backward 4N)";
      break;
    case Method::kLora:
      out.flops_per_token = flops_per_token_lora(job.params, trainable);
      out.formula = "4 x N_base + 6 x N_adapter per token (no weight gradients for the base)";
      break;
    case Method::kFreeze:
      out.flops_per_token = flops_per_token_freeze(job.params, trainable);
      out.formula = "2 x N + 4 x N_trained per token (backward stops at the lowest trained layer)";
      break;
  }
  out.flops_per_token_6n = flops_per_token_full(job.params);
  out.total = Flops{out.flops_per_token * job.tokens};
  return out;
}

MachineEstimate estimate_on(const MachineChoice& choice, const Recipe& recipe,
                            const TrainingJob& job, const MemoryEstimate& memory,
                            const ComputeEstimate& compute,
                            const std::optional<Bytes>& lora_total) {
  MachineEstimate m;
  m.device = choice.device;
  m.wanted = choice.dtype.value_or(recipe.compute_dtype);
  m.dtype_overridden = choice.dtype.has_value();
  m.recipe_dtype = recipe.compute_dtype;
  m.rate = select_rate(*choice.device, m.wanted);
  m.utilization = job.utilization;
  m.devices = job.devices;
  if (m.rate != nullptr) {
    m.dtype = m.rate->dtype;
    // Ideal data-parallel scaling: N devices finish N times sooner (no communication cost).
    const FlopsPerSecond aggregate = m.rate->dense * static_cast<double>(job.devices);
    m.at_peak = compute.total / aggregate;
    m.at_utilization = compute.total / (aggregate * job.utilization);
    if (choice.device->price) {
      m.cost_usd = hours(m.at_utilization) * job.devices * choice.device->price->usd_per_hour;
    }
  }
  const Bytes capacity = choice.device->memory_capacity;
  m.fits = memory.total <= capacity;
  m.devices_to_fit = static_cast<int>(std::ceil(memory.total / capacity));
  if (m.fits) {
    m.fit = Fit::kFits;
  } else if (lora_total && *lora_total <= capacity) {
    m.fit = Fit::kNeedsLora;
  } else {
    m.fit = Fit::kNeedsSharding;
  }
  return m;
}

namespace {

Scenario make_scenario(std::string label, const TrainingJob& job, const Recipe& recipe,
                       const std::vector<MachineChoice>& machines,
                       const std::optional<Bytes>& lora_total) {
  Scenario s;
  s.label = std::move(label);
  s.method = job.method;
  s.params_total = job.params;
  s.params_trainable = trainable_params(job);
  s.memory = estimate_memory(job, recipe);
  s.compute = estimate_compute(job);
  for (const MachineChoice& choice : machines) {
    s.machines.push_back(estimate_on(choice, recipe, job, s.memory, s.compute, lora_total));
  }
  return s;
}

std::string scenario_label(const TrainingJob& job) {
  switch (job.method) {
    case Method::kFull:
      return "full fine-tune";
    case Method::kLora:
      return fmt::format("LoRA ({:g} % trainable)", job.trainable_fraction * 100.0);
    case Method::kFreeze:
      return fmt::format("partial freeze ({:g} % trained)", job.trainable_fraction * 100.0);
  }
  return "full fine-tune";
}

}  // namespace

Estimate estimate(const TrainingJob& job, const std::vector<MachineChoice>& machines) {
  validate(job);
  Estimate out;
  out.job = job;
  out.recipe = &find_recipe(job.recipe_id);
  std::optional<Bytes> lora_total;
  if (job.method == Method::kFull) {
    TrainingJob lora = job;
    lora.method = Method::kLora;
    out.lora_alternative =
        make_scenario(scenario_label(lora), lora, *out.recipe, machines, std::nullopt);
    lora_total = out.lora_alternative->memory.total;
  }
  out.primary = make_scenario(scenario_label(job), job, *out.recipe, machines, lora_total);
  return out;
}

}  // namespace tb
