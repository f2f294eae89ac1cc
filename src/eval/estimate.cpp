// The estimate view: evaluate() per machine, and the words of every row.
#include "trainbudget/eval/estimate.hpp"

#include <fmt/format.h>

#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/memory_margin.hpp"
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
  for (const MemoryComponent& c : components) sum += c.replica;
  return sum;
}

Layout layout_of(const TrainingJob& job, const Recipe& recipe) {
  const std::int64_t max_positions =
      job.model.architecture ? job.model.architecture->max_positions : 0;
  const TrainingSetup s = resolved_setup(job.setup, max_positions);
  Layout l;
  l.devices = job.devices;
  l.parallel = job.parallel;
  l.zero_stage = job.zero_stage;
  // A pairwise objective puts a chosen and a rejected row through the model per example.
  l.micro_batch = s.micro_batch * rows_per_example(job.objective);
  l.grad_accum = s.grad_accumulation;
  // Online RL trains on each prompt and its completion.
  l.seq_len = online_rl(job.objective) ? trained_seq_len(job.rollout) : s.seq_len;
  if (online_rl(job.objective)) {
    l.logits_positions = logits_positions(job.rollout, job.objective == Objective::kPpo,
                                          job.rollout.max_completion_length);
  }
  l.attention = s.attention;
  l.recompute = s.recompute;
  l.recompute_layers = s.recompute_layers;
  l.offload_activations = s.offload_activations;
  l.activation_dtype = activation_dtype(s, recipe);
  l.dropout = s.dropout;
  l.causal_flops = s.causal_flops;
  return l;
}

MemoryEstimate states_view(const ModelProfile& p, const Layout& l, int stage) {
  MemoryEstimate out;
  out.stage = stage;
  const StageSpan span = stage_at(p, l, stage);
  for (const StateTerm& t : p.states) {
    const StateOnDevice on = state_on_device(p, l, t, span);
    out.components.push_back({std::string{enum_name(t.key)}, t.label, t.bytes_per_param.value(),
                              t.params.value(), on.device, on.zero_shards, t.bytes, on.host});
    out.total += on.device;
    out.host_total += on.host;
  }
  return out;
}

namespace {

// How the FLOPs per token are counted: by the count formula, or from the architecture.
FlopsBasis flops_basis(Method method, bool from_architecture) {
  if (from_architecture && method != Method::kFreeze) {
    return uses_adapters(method) ? FlopsBasis::kArchitectureFrozen : FlopsBasis::kArchitecture;
  }
  switch (method) {
    case Method::kFull:
      return FlopsBasis::kSixN;
    case Method::kLora:
    case Method::kQlora:
      return FlopsBasis::kAdaptersN;
    case Method::kFreeze:
      return FlopsBasis::kFreezeN;
  }
  return FlopsBasis::kSixN;
}

// The step's rows: activations, FLOP terms and phases, from the same tables.
StepAnalysis step_view(const TrainingJob& job, const ModelProfile& p, const Layout& l,
                       const StepCost& cost) {
  const ModelArchitecture& arch = *job.model.architecture;
  StepAnalysis out;
  out.setup = job_setup(job, arch.max_positions);
  out.activation_dtype = l.activation_dtype;
  if (arch.max_positions > 0 && l.seq_len > arch.max_positions) {
    out.notes.push_back(Note::of(NoteCode::kPastPositions, {}, {l.seq_len, arch.max_positions}));
  }
  ActivationOptions options;
  options.adapters = p.adapters;
  if (p.adapters_only) options.lora_dropout = job.lora.dropout;
  if (frozen_inputs_dropped(job)) options.lora = job.lora;
  options.keep_logits = p.shape.keep_logits;
  options.logits_scaled_in_place = p.shape.logits_scaled_in_place;
  options.head_share = l.logits_share();
  // The rows the step runs (a preference pair is two), as evaluate() counts them.
  TrainingSetup rows = out.setup;
  rows.micro_batch = l.micro_batch;
  rows.seq_len = l.seq_len;
  // Block recomputation: how many layers of each kind recompute, stage by stage.
  if (l.recompute == Recompute::kFull && l.recompute_layers >= 0) {
    options.recomputed_dense = options.recomputed_moe = 0;
    for (int i = 0; i < l.parallel.pp; ++i) {
      const StageSpan st = stage_at(p, l, i);
      const std::int64_t rerun = st.begin + l.recomputed_layers(st.end - st.begin);
      const std::int64_t moe = p.moe_layer_prefix[static_cast<std::size_t>(rerun)] -
                               p.moe_layer_prefix[static_cast<std::size_t>(st.begin)];
      options.recomputed_moe += moe;
      options.recomputed_dense += (rerun - st.begin) - moe;
    }
  }
  out.activations = estimate_activations(arch, rows, l.activation_dtype, options);
  const FlopsSetup flops{l.seq_len, l.attention, l.recompute, l.causal_flops, l.logits_share()};
  out.flops = describe_flops(arch, p.flops, flops);  // the profile's shape, not a rebuilt one
  out.peak = describe_peak(cost);
  return out;
}

ScenarioName scenario_name(const TrainingJob& job) {
  ScenarioName n;
  n.objective = job.objective;
  n.method = job.method;
  n.kind = job_kind(job);
  n.lora_rank = job.lora.rank;
  n.by_targets = job.model.architecture.has_value();
  n.lora_targets = job.lora.targets;
  n.modules_to_save = job.lora.modules_to_save;
  n.dora = job.lora.dora;
  n.qlora_bits = job.qlora.bits;
  n.galore_rank = job.method == Method::kFull ? job.galore_rank : 0;
  n.trainable_fraction = job.trainable_fraction;
  return n;
}

// The LoRA alternative's peak on the i-th machine: with online RL its own there (the engine and
// PPO's critics beside the step), else the scenario's.
Bytes lora_peak_on(const Scenario& lora, std::size_t i) {
  return i < lora.machines.size() && lora.machines[i].rollout ? lora.machines[i].numbers.allocated
                                                              : lora.memory.total;
}

Scenario make_scenario(const TrainingJob& job, const Recipe& recipe,
                       const std::vector<MachineChoice>& machines, const Scenario* lora) {
  Scenario s;
  s.name = scenario_name(job);
  s.method = job.method;
  s.params_total = job.params;
  s.profile = make_profile(job, recipe);
  s.layout = layout_of(job, recipe);
  s.params_trainable = s.profile.trainable.value();
  // Memory and compute do not depend on the device; evaluate once for the rows.
  if (std::vector<Problem> bad = layout_problems(s.profile, s.layout); !bad.empty()) {
    throw InvalidRequest(std::move(bad));
  }
  const StepCost base = evaluate(s.profile, s.layout, ClusterProfile{});
  s.memory = states_view(s.profile, s.layout, base.stage);
  s.memory.total = base.memory;
  // Activation offload's host share beside the states' (states_view counts those).
  s.memory.host_total = base.host;
  const MemoryBand band = framework_band(job, recipe, s.layout, base.memory);
  s.numbers = memory_numbers(base.memory, band.low, band.high, true, job.devices);
  s.numbers.moves_most = band.moves_most;
  s.comm_buffers = base.comm_buffers;
  s.host_per_device = base.host;
  s.host_per_node = base.host * static_cast<double>(job.devices);  // refined per machine below
  s.compute.flops_per_token = base.flops_per_token.value();
  s.compute.flops_per_token_6n = base.reference_6n.value();
  s.compute.total = base.total;
  s.compute.basis = flops_basis(job.method, s.profile.has_architecture);
  if (s.profile.has_architecture) {
    StepAnalysis step = step_view(job, s.profile, s.layout, base);
    Bytes states_replica{0.0};
    for (const StateTerm& t : s.profile.states) states_replica += t.bytes;
    s.memory.components.push_back({"activations", "", 0.0, 0.0, base.saved, 1,
                                   replica_bytes(s.profile, s.layout) - states_replica,
                                   Bytes{0.0}});
    s.memory.activations_included = true;
    s.step = std::move(step);
  }
  for (const MachineChoice& choice : machines) {
    MachineEstimate m;
    m.device = *choice.device;
    m.wanted = choice.dtype.value_or(recipe.compute_dtype);
    m.dtype_overridden = choice.dtype.has_value();
    m.recipe_dtype = recipe.compute_dtype;
    const ComputeRate* rate = select_rate(*choice.device, m.wanted);
    const ClusterProfile cluster = cluster_of(job, choice, rate, &m.assumptions);
    StepCost cost = evaluate(s.profile, s.layout, cluster);
    // Online RL: a generation round per step; its peak and its time are the job's.
    if (online_rl(job.objective) && s.profile.has_architecture && rate != nullptr) {
      RolloutCost r = apply_rollout(job, recipe, s.profile, s.layout, cluster, choice, cost);
      m.assumptions.insert(m.assumptions.end(), r.assumptions.begin(), r.assumptions.end());
      m.rollout = std::move(r);
    }
    // Offload's host memory: per process x the processes (devices) of a node, held against
    // the node's RAM (cluster_of: the given, the system's or the measured machine's).
    const int per_node = choice.system != nullptr && choice.system->fabric.devices_per_node > 0
                             ? std::min(job.devices, choice.system->fabric.devices_per_node)
                             : job.devices;
    m.host_per_node = cost.host * static_cast<double>(per_node);
    m.host_memory = cluster.host_capacity * static_cast<double>(per_node);
    if (choice.system != nullptr) {
      m.system_id = choice.system->id;
      m.system_name = choice.system->name;
      m.node_devices = choice.system->fabric.devices_per_node;
    }
    if (m.host_memory.value() > 0.0 && m.host_per_node > m.host_memory) {
      m.assumptions.push_back(
          Note::of(NoteCode::kHostMemoryShort,
                   choice.system != nullptr ? choice.system->id : choice.device->id, {},
                   {m.host_per_node.value(), m.host_memory.value()}));
    }
    if (rate != nullptr && job.method == Method::kQlora && s.profile.has_architecture &&
        !job.utilization) {
      m.assumptions.push_back(Note::of(NoteCode::kQloraDequantRange));
    }
    if (rate != nullptr) {
      m.rate = *rate;
      m.dtype = rate->dtype;
      const GemmEfficiency eff = gemm_efficiency_of(*rate, job.gemm_efficiency);
      m.gemm = eff;
      m.time = cost.time;
      m.time_band = time_band(s.profile, s.layout, cluster);
      if (m.rollout && m.time_band.present && cost.time.step.count() > 0.0) {
        // The step's band moves the update and the log-prob passes (the same layout's passes)
        // in proportion; generation takes its own (the engine's host work between decode
        // steps, RolloutCost::generation_low/high); the sync stays as priced.
        const RolloutCost& r = *m.rollout;
        const double low = m.time_band.low / cost.time.step;
        const double high = m.time_band.high / cost.time.step;
        m.time_band.low = std::min(r.round, round_seconds(r, r.generation_low, low));
        m.time_band.high = std::max(r.round, round_seconds(r, r.generation_high, high));
      }
      if (cluster.price.value() > 0.0) {
        // (hours x devices) x price, in that order: device-hours at the hourly price.
        m.cost_usd = Dollars{hours(cost.at_utilization) * job.devices * cluster.price.value()};
        m.price_given = job.price_usd_per_hour.has_value();
      }
      if (cluster.power.value() > 0.0) {
        // devices x TDP x hours x PUE, in kWh.
        m.energy_kwh =
            job.devices * cluster.power.value() * hours(cost.at_utilization) * cluster.pue / 1000.0;
      }
    }
    // The scaling table prices training steps alone: not for online RL's rounds.
    if (rate != nullptr && !m.rollout) {
      for (int k = 1; k <= 32; k *= 2) {
        Layout more = s.layout;
        const long long n = static_cast<long long>(job.devices) * k;
        if (n > 1000000) break;
        more.devices = static_cast<int>(n);
        // Past a node of a fabric with no network between nodes, more devices cannot run; a
        // device with no system and no link (this machine, measured) has nothing to scale over.
        if (k > 1 && crosses_missing_network(cluster.fabric, more.devices)) break;
        if (k > 1 && cluster.fabric.devices_per_node == 0 &&
            cluster.fabric.scale_up.bandwidth.value() <= 0.0) {
          break;
        }
        const StepCost c = evaluate(s.profile, more, cluster);
        m.scaling.push_back({more.devices, c.time.step, c.time.exposed_comm, c.time.mfu,
                             c.time.tokens_per_second, hours(c.at_utilization), c.time.bound});
      }
    }
    m.utilization = rate != nullptr ? cost.time.mfu : 0.0;
    m.devices = job.devices;
    m.at_peak = cost.at_peak;
    m.at_utilization = cost.at_utilization;
    if (rate != nullptr) {
      // One checkpoint: a replica's weights, master weights and optimizer states (not its
      // gradients), written by the job's nodes.
      Bytes checkpoint{0.0};
      for (const StateTerm& t : s.profile.states) {
        if (t.key != StateKey::kGradients) checkpoint += t.bytes;
      }
      const int node_size = choice.system != nullptr ? choice.system->fabric.devices_per_node : 0;
      const int nodes = node_size > 0 ? (job.devices + node_size - 1) / node_size : 1;
      m.goodput = goodput_of(m.at_utilization, job.devices, nodes, checkpoint, job.goodput);
    }
    m.fits = cost.status == Status::kFits;
    // The scenario's band scaled to this machine's peak; a peak of nothing on the device
    // (every state offloaded) has no band to scale.
    const double scale = s.memory.total.value() > 0.0 ? cost.memory / s.memory.total : 1.0;
    m.numbers =
        memory_numbers(cost.memory, s.numbers.band_low * scale, s.numbers.band_high * scale,
                       cuda_like(*choice.device), job.devices, caching_allocator(*choice.device));
    m.numbers.moves_most = s.numbers.moves_most;
    m.usable = usable_capacity(*choice.device);
    m.allocatable = cluster.capacity;
    m.fits_device_total = m.numbers.device_total <= m.usable;
    m.margin = margin_factor(m.numbers.allocated, m.numbers.band_high, job.headroom);
    m.limit = margin_limit(m.allocatable, m.margin);
    m.verdict = cost.status == Status::kNoNetwork                       ? Verdict::kNoNetwork
                : !m.fits                                               ? Verdict::kDoesNotFit
                : !s.memory.activations_included                        ? Verdict::kStatesFit
                : !m.fits_device_total || m.numbers.allocated > m.limit ? Verdict::kFitsTightly
                                                                        : Verdict::kFits;
    m.devices_to_fit = devices_to_fit(replica_bytes(s.profile, s.layout), cluster.capacity);
    if (lora != nullptr) m.lora_peak = lora_peak_on(*lora, s.machines.size());
    if (m.fits) {
      m.fit = Fit::kFits;
    } else if (m.lora_peak && *m.lora_peak <= cluster.capacity) {
      m.fit = Fit::kNeedsLora;
    } else {
      m.fit = Fit::kNeedsSharding;
    }
    s.machines.push_back(std::move(m));
  }
  return s;
}

}  // namespace

Estimate estimate(const TrainingJob& job, const std::vector<MachineChoice>& machines) {
  validate(job);
  Estimate out;
  out.job = job;
  out.recipe = find_recipe(job.recipe_id);
  // A fine-tune may switch to adapters; a model trained from scratch has nothing to adapt.
  if (job.method == Method::kFull && job_kind(job) == JobKind::kFineTuning) {
    TrainingJob lora = job;
    lora.method = Method::kLora;
    out.lora_alternative = make_scenario(lora, out.recipe, machines, nullptr);
  }
  out.primary = make_scenario(job, out.recipe, machines,
                              out.lora_alternative ? &*out.lora_alternative : nullptr);
  return out;
}

}  // namespace tb
