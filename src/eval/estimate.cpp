// The estimate view: evaluate() per machine, and the words of every row.
#include "trainbudget/eval/estimate.hpp"

#include <fmt/format.h>

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

Layout layout_of(const TrainingJob& job, const Recipe& recipe) {
  const std::int64_t max_positions =
      job.model.architecture ? job.model.architecture->max_positions : 0;
  const TrainingSetup s = resolved_setup(job.setup, max_positions);
  Layout l;
  l.devices = job.devices;
  l.zero_stage = job.zero_stage;
  l.micro_batch = s.micro_batch;
  l.grad_accum = s.grad_accumulation;
  l.seq_len = s.seq_len;
  l.attention = s.attention;
  l.recompute = s.recompute;
  l.activation_dtype = activation_dtype(s, recipe);
  l.dropout = s.dropout;
  l.causal_flops = s.causal_flops;
  return l;
}

MemoryEstimate states_view(const ModelProfile& p, const Layout& l) {
  MemoryEstimate out;
  for (const StateTerm& t : p.states) {
    const int sharded = zero_partition(l.zero_stage, t.shard_stage, l.devices);
    const Bytes bytes = t.bytes / static_cast<double>(sharded);
    out.components.push_back({std::string{enum_name(t.key)}, t.label, t.bytes_per_param.value(),
                              t.params.value(), bytes, sharded});
    out.total += bytes;
  }
  return out;
}

namespace {

std::string compute_formula(Method method) {
  switch (method) {
    case Method::kFull:
      return "6 x N per token (forward 2N + backward 4N)";
    case Method::kLora:
    case Method::kQlora:
      return "4 x N_base + 6 x N_adapter per token (no weight gradients for the base)";
    case Method::kFreeze:
      return "2 x N + 4 x N_trained per token (backward stops at the lowest trained layer)";
  }
  return "";
}

std::string arch_flops_formula(Method method, const Layout& l) {
  const std::string attention =
      fmt::format("attention at s={}{}", l.seq_len, l.causal_flops ? ", causal" : "");
  if (uses_adapters(method)) {
    return fmt::format(
        "from the architecture: frozen GEMMs x 2 (forward + activation gradient), {} and "
        "adapters x 3 (forward + backward)",
        attention);
  }
  return fmt::format("from the architecture: GEMMs + {}, x 3 (forward + backward)", attention);
}

std::string activation_label(const StepAnalysis& step) {
  const TrainingSetup& s = step.setup;
  return fmt::format("activations ({}; b={}, s={}, {} attention, recompute {})",
                     enum_name(step.activation_dtype), s.micro_batch, s.seq_len,
                     enum_name(s.attention), enum_name(s.recompute));
}

// The words of the step: activation rows, FLOP terms and phases, from the same tables.
StepAnalysis step_view(const TrainingJob& job, const ModelProfile& p, const Layout& l,
                       const StepCost& cost) {
  const ModelArchitecture& arch = *job.model.architecture;
  StepAnalysis out;
  out.setup = resolved_setup(job.setup, arch.max_positions);
  out.activation_dtype = l.activation_dtype;
  if (arch.max_positions > 0 && l.seq_len > arch.max_positions) {
    out.notes.push_back(fmt::format(
        "the sequence length {} is longer than the {} positions the model was built for", l.seq_len,
        arch.max_positions));
  }
  ActivationOptions options;
  options.adapters = p.adapters;
  out.activations = estimate_activations(arch, out.setup, l.activation_dtype, options);
  const FlopsSetup flops{l.seq_len, l.attention, l.recompute, l.causal_flops};
  out.flops = describe_flops(arch, p.flops, flops);  // the profile's shape, not a rebuilt one
  out.peak = describe_peak(cost);
  return out;
}

Scenario make_scenario(std::string label, const TrainingJob& job, const Recipe& recipe,
                       const std::vector<MachineChoice>& machines,
                       const std::optional<Bytes>& lora_total) {
  Scenario s;
  s.label = std::move(label);
  s.method = job.method;
  s.params_total = job.params;
  s.profile = make_profile(job, recipe);
  s.layout = layout_of(job, recipe);
  s.params_trainable = s.profile.trainable.value();
  // Memory and compute do not depend on the device; evaluate once for the rows.
  const StepCost base = evaluate(s.profile, s.layout, ClusterProfile{});
  s.memory = states_view(s.profile, s.layout);
  s.memory.total = base.memory;
  s.compute.flops_per_token = base.flops_per_token.value();
  s.compute.flops_per_token_6n = base.reference_6n.value();
  s.compute.total = base.total;
  s.compute.formula = compute_formula(job.method);
  if (s.profile.has_architecture) {
    StepAnalysis step = step_view(job, s.profile, s.layout, base);
    s.memory.components.push_back({"activations", activation_label(step), 0.0, 0.0, base.saved, 1});
    s.memory.activations_included = true;
    if (job.method != Method::kFreeze) s.compute.formula = arch_flops_formula(job.method, s.layout);
    s.step = std::move(step);
  }
  for (const MachineChoice& choice : machines) {
    MachineEstimate m;
    m.device = *choice.device;
    m.wanted = choice.dtype.value_or(recipe.compute_dtype);
    m.dtype_overridden = choice.dtype.has_value();
    m.recipe_dtype = recipe.compute_dtype;
    const ComputeRate* rate = select_rate(*choice.device, m.wanted);
    const StepCost cost = evaluate(s.profile, s.layout,
                                   {choice.device->memory_capacity,
                                    rate ? rate->dense : FlopsPerSecond{0.0}, job.utilization});
    if (rate != nullptr) {
      m.rate = *rate;
      m.dtype = rate->dtype;
      if (choice.device->price) {
        // (hours x devices) x price, in that order: device-hours at the hourly price.
        m.cost_usd = Dollars{hours(cost.at_utilization) * job.devices *
                             choice.device->price->usd_per_hour.value()};
      }
    }
    m.utilization = job.utilization;
    m.devices = job.devices;
    m.at_peak = cost.at_peak;
    m.at_utilization = cost.at_utilization;
    m.fits = cost.status == Status::kFits;
    m.devices_to_fit = cost.devices_to_fit;
    if (m.fits) {
      m.fit = Fit::kFits;
    } else if (lora_total && *lora_total <= choice.device->memory_capacity) {
      m.fit = Fit::kNeedsLora;
    } else {
      m.fit = Fit::kNeedsSharding;
    }
    s.machines.push_back(std::move(m));
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
  out.recipe = find_recipe(job.recipe_id);
  std::optional<Bytes> lora_total;
  if (job.method == Method::kFull) {
    TrainingJob lora = job;
    lora.method = Method::kLora;
    out.lora_alternative =
        make_scenario(scenario_label(lora), lora, out.recipe, machines, std::nullopt);
    lora_total = out.lora_alternative->memory.total;
  }
  out.primary = make_scenario(scenario_label(job), job, out.recipe, machines, lora_total);
  return out;
}

}  // namespace tb
