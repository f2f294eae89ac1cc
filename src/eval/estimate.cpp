// Memory, compute and time of a training job; the verdict per machine.
#include "trainbudget/eval/estimate.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trainbudget/model/lora.hpp"

namespace tb {

Bytes MemoryEstimate::by_key(std::string_view key) const {
  Bytes sum{0.0};
  for (const MemoryComponent& c : components) {
    if (c.key == key) sum += c.bytes;
  }
  return sum;
}

Bytes MemoryEstimate::replica_total() const {
  Bytes sum{0.0};
  for (const MemoryComponent& c : components) sum += c.bytes * static_cast<double>(c.sharded_over);
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

double trainable_params(const TrainingJob& job) {
  const auto& arch = job.model.architecture;
  switch (job.method) {
    case Method::kFull:
      return job.params;
    case Method::kLora:
    case Method::kQlora:
      // With an architecture the adapters are counted exactly (PEFT); otherwise the fraction.
      if (arch) return static_cast<double>(lora_trainable_params(*arch, job.lora));
      return job.params * job.trainable_fraction;
    case Method::kFreeze:
      return job.params * job.trainable_fraction;
  }
  return job.params;
}

namespace {

// QLoRA without an architecture: every parameter taken as an NF4-quantized linear weight with
// double-quantized constants (a lower bound: embeddings and norms really stay in 16 bits).
constexpr double kNf4BytesPerParam = 0.5;

void add_frozen_base(const TrainingJob& job, const Recipe& recipe, MemoryEstimate& out) {
  const std::string dtype{dtype_name(recipe.compute_dtype)};
  if (job.method == Method::kQlora) {
    if (job.model.architecture) {
      const FrozenBaseBytes base =
          qlora_base_bytes(*job.model.architecture, job.qlora, recipe.frozen_weight_bytes);
      out.components.push_back(
          {"frozen_weights", "frozen linear weights (NF4)", 0.5, base.quantized_weights, base.nf4});
      out.components.push_back({"frozen_weights",
                                job.qlora.double_quant ? "NF4 constants (double-quantized absmax)"
                                                       : "NF4 constants (fp32 absmax per 64)",
                                base.constants.value() / base.quantized_weights,
                                base.quantized_weights, base.constants});
      out.components.push_back(
          {"frozen_weights", fmt::format("embeddings, head, norms, biases ({})", dtype),
           recipe.frozen_weight_bytes, base.unquantized_params, base.unquantized});
      return;
    }
    const double constants =
        nf4_constant_bytes(static_cast<std::int64_t>(job.params), job.qlora) / job.params;
    out.components.push_back({"frozen_weights", "frozen weights (NF4, all taken as linear)",
                              kNf4BytesPerParam, job.params,
                              Bytes{kNf4BytesPerParam * job.params}});
    out.components.push_back(
        {"frozen_weights", "NF4 constants", constants, job.params, Bytes{constants * job.params}});
    return;
  }
  // LoRA keeps the whole base frozen; freeze keeps the untrained share frozen.
  const double frozen =
      job.method == Method::kLora ? job.params : job.params - trainable_params(job);
  if (frozen > 0.0) {
    out.components.push_back({"frozen_weights", fmt::format("frozen weights ({})", dtype),
                              recipe.frozen_weight_bytes, frozen,
                              Bytes{recipe.frozen_weight_bytes * frozen}});
  }
}

}  // namespace

MemoryEstimate estimate_memory(const TrainingJob& job, const Recipe& recipe) {
  MemoryEstimate out;
  const double trainable = trainable_params(job);
  const bool adapters = uses_adapters(job.method);
  for (const StateComponent& c : recipe.components) {
    std::string label{c.label};
    if (adapters && c.kind == StateKind::kWeights) label = "adapter " + label;
    out.components.push_back({std::string{state_kind_key(c.kind)}, std::move(label),
                              c.bytes_per_param, trainable, Bytes{c.bytes_per_param * trainable}});
  }
  add_frozen_base(job, recipe, out);
  for (std::size_t i = 0; i < out.components.size(); ++i) {
    MemoryComponent& c = out.components[i];
    // Recipe components carry their own stage; the frozen base is weights (stage 3).
    const int stage = i < recipe.components.size() ? shard_stage(recipe.components[i]) : 3;
    c.sharded_over = zero_partition(job.zero_stage, stage, job.devices);
    c.bytes = c.bytes / static_cast<double>(c.sharded_over);
    out.total += c.bytes;
  }
  return out;
}

ComputeEstimate estimate_compute(const TrainingJob& job) {
  ComputeEstimate out;
  const double trainable = trainable_params(job);
  // Per token an MoE model runs only its active parameters (shared + top-k experts).
  const double n = job.model.counts ? static_cast<double>(job.model.counts->active) : job.params;
  switch (job.method) {
    case Method::kFull:
      out.flops_per_token = flops_per_token_full(n);
      out.formula = "6 x N per token (forward 2N + backward 4N)";
      break;
    case Method::kLora:
    case Method::kQlora:
      out.flops_per_token = flops_per_token_lora(n, trainable);
      out.formula = "4 x N_base + 6 x N_adapter per token (no weight gradients for the base)";
      break;
    case Method::kFreeze:
      out.flops_per_token = flops_per_token_freeze(n, trainable);
      out.formula = "2 x N + 4 x N_trained per token (backward stops at the lowest trained layer)";
      break;
  }
  out.flops_per_token_6n = flops_per_token_full(n);
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
  // The ZeRO-3 lower bound: a full replica's states split evenly over enough devices.
  m.devices_to_fit = static_cast<int>(std::ceil(memory.replica_total() / capacity));
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
  if (job.model.architecture) apply_step_analysis(job, recipe, machines, s);
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
    case Method::kQlora: {
      const char* name = job.method == Method::kLora ? "LoRA" : "QLoRA";
      if (job.model.architecture) {
        return fmt::format("{} (rank {}, {})", name, job.lora.rank,
                           fmt::join(job.lora.targets, ","));
      }
      return fmt::format("{} ({:g} % trainable)", name, job.trainable_fraction * 100.0);
    }
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
