// The estimate as sections: model and job, memory, compute, time and fit, LoRA, verdict.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimate_sections.hpp"
#include "step_document.hpp"
#include "trainbudget/build_info.hpp"
#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

// The fit column's words and the CSV's fits cell, from the one verdict (eval's Verdict).
std::string verdict_words(Verdict v) {
  switch (v) {
    case Verdict::kFits:
      return "fits";
    case Verdict::kFitsTightly:
      return "fits, tightly";
    case Verdict::kDoesNotFit:
      return "does not fit";
    case Verdict::kStatesFit:
      return "states fit (no activations)";
    case Verdict::kNoNetwork:
      return "no network";
  }
  return {};
}
std::string dtype_cell(const MachineEstimate& m) {
  if (!m.rate) return "-";
  std::string cell{enum_name(m.dtype)};
  if (m.dtype_fell_back()) cell += fmt::format(" (no {})", enum_name(m.wanted));
  if (m.dtype_overridden && m.wanted != m.recipe_dtype) cell += "*";
  return cell;
}

namespace {

// true, false, or empty when it could not be judged (activations not counted).
std::string fits_value(Verdict v) {
  if (v == Verdict::kStatesFit) return "";
  return v == Verdict::kDoesNotFit || v == Verdict::kNoNetwork ? "false" : "true";
}

TextTable machines_table(const Scenario& s, const std::optional<double>& utilization) {
  TextTable t({{"machine"},
               {"dtype"},
               {"TFLOP/s", Align::kRight},
               {"rate"},
               {"at 100 %", Align::kRight},
               {utilization ? fmt::format("at {}", percent(*utilization)) : std::string{"modeled"},
                Align::kRight},
               {"MFU", Align::kRight},
               {"memory", Align::kRight},
               {"fit"}});
  for (const MachineEstimate& m : s.machines) {
    const bool has_rate = m.rate.has_value();
    std::string at_util = "-";
    if (has_rate) {
      at_util = hours_text(m.at_utilization);
      if (hours(m.at_utilization) >= 48.0)
        at_util += fmt::format(" ({})", duration(m.at_utilization));
    }
    t.add_row({machine_label(m), dtype_cell(m), has_rate ? tflops(m.rate->dense) : "-",
               has_rate ? (m.rate->kind == RateKind::kMeasured ? "measured" : "spec, dense") : "-",
               has_rate ? hours_text(m.at_peak) : "-", at_util,
               has_rate ? percent(m.utilization) : "-",
               fmt::format("{} / {}", gb(m.rollout ? m.numbers.allocated : s.memory.total),
                           gb(m.device.memory_capacity)),
               verdict_words(m.verdict)});
  }
  return t;
}

std::string seconds_text(Seconds t) {
  if (t.count() >= 1.0) return fmt::format("{:.3g} s", t.count());
  if (t.count() >= 1e-3) return fmt::format("{:.3g} ms", t.count() * 1e3);
  if (t.count() > 0.0) return fmt::format("{:.3g} us", t.count() * 1e6);
  return "0";
}

// One optimizer step per machine: what the step-time model adds up (docs/scale.md).
TextTable step_table(const Scenario& s) {
  TextTable t({{"machine"},
               {"step", Align::kRight},
               {"compute", Align::kRight},
               {"bubble", Align::kRight},
               {"comm", Align::kRight},
               {"exposed", Align::kRight},
               {"tokens/s", Align::kRight},
               {"bound"},
               {"cost", Align::kRight},
               {"energy", Align::kRight}});
  for (const MachineEstimate& m : s.machines) {
    if (!m.rate) continue;
    const StepTime& st = m.time;
    t.add_row(
        {machine_label(m), seconds_text(st.step), seconds_text(st.compute), seconds_text(st.bubble),
         seconds_text(st.comm_total),
         seconds_text(st.exposed_comm +
                      st.comm[static_cast<std::size_t>(CommKind::kOffload)].exposed),
         count(st.tokens_per_second), st.modeled ? std::string{enum_name(st.bound)} : "given MFU",
         m.cost_usd ? dollars(m.cost_usd->value()) : "-", m.energy_kwh ? kwh(*m.energy_kwh) : "-"});
  }
  return t;
}

// Each communicator of the first machine: bytes, link, total and exposed time per step.
TextTable comm_table(const MachineEstimate& m) {
  TextTable t({{"traffic"},
               {"per step", Align::kRight},
               {"link", Align::kRight},
               {"time", Align::kRight},
               {"exposed", Align::kRight}});
  for (std::size_t k = 0; k < kCommKinds; ++k) {
    const CommTerm& c = m.time.comm[k];
    if (c.total.count() <= 0.0) continue;
    t.add_row({std::string{enum_name(static_cast<CommKind>(k))}, gb(c.bytes),
               fmt::format("{:.0f} GB/s", c.link.bandwidth.value() / kGiga), seconds_text(c.total),
               seconds_text(c.exposed)});
  }
  return t;
}

std::string layout_line(const TrainingJob& job) {
  const Parallelism& x = job.parallel;
  const int dp = job.devices / std::max(1, x.tp * x.pp * x.cp);
  std::string line = fmt::format("layout    {} devices = dp {} x tp {} x pp {} x cp {}",
                                 job.devices, dp, x.tp, x.pp, x.cp);
  if (x.ep > 1) line += fmt::format(", ep {}", x.ep);
  if (x.etp > 0 && x.etp != x.tp) line += fmt::format(", expert tp {}", x.etp);
  if (x.virtual_stages > 1) line += fmt::format(", {} virtual stages", x.virtual_stages);
  if (given_edge_stages(x)) {
    // Megatron-Core's uneven split: the edge stages' layers as given.
    if (x.first_stage_layers > 0)
      line += fmt::format(", first stage {} layers", x.first_stage_layers);
    if (x.last_stage_layers > 0) line += fmt::format(", last stage {} layers", x.last_stage_layers);
  } else if (const std::int64_t layers =
                 job.model.architecture ? job.model.architecture->num_layers : 0;
             edge_weighted_stages(layers, x)) {
    const StageBounds first = stage_bounds(layers, x, 0);
    const StageBounds last = stage_bounds(layers, x, x.pp - 1);
    line += fmt::format(", torchtitan's split: first stage {} layers, last stage {}",
                        first.end - first.begin, last.end - last.begin);
  }
  if (x.sequence_parallel) line += ", sequence parallel";
  if (x.pp_scatter_gather) line += ", pipeline sends scattered over tp";
  if (job.zero_stage > 0) line += fmt::format(", ZeRO-{}", job.zero_stage);
  if (x.shard_group > 0) line += fmt::format(" in shard groups of {}", x.shard_group);
  if (x.offload != Offload::kNone) line += fmt::format(", offload {}", enum_name(x.offload));
  return line;
}

}  // namespace

std::string machine_label(const MachineEstimate& m) {
  std::string label = m.device.name;
  if (m.rate.has_value() && m.rate->kind == RateKind::kMeasured && !m.rate->method.empty()) {
    label += fmt::format(" ({})", m.rate->method);
  }
  if (m.devices > 1) label = fmt::format("{} x {}", m.devices, label);
  return label;
}

Document estimate_document(const Estimate& e) {
  Document doc;
  const TrainingJob& job = e.job;
  doc.title =
      fmt::format("trainbudget {} -- training budget (GB = 1e9 bytes, TFLOP/s = 1e12 FLOP/s)",
                  build_info::kVersion);
  doc.sections.push_back(answer_section(e));

  Section job_section;
  job_section.title = "Job";
  for (std::string& line : model_lines(job)) job_section.text(std::move(line));
  job_section.text(fmt::format("training  {} tokens, {}, {}", count(job.tokens),
                               scenario_label(e.primary.name),
                               counted(job.devices, "device", "devices")));
  if (job.devices > 1) job_section.text(layout_line(job));
  job_section.text(fmt::format("recipe    {}: {}, computing in {}", e.recipe.id, e.recipe.title,
                               enum_name(e.recipe.compute_dtype)));
  job_section.text(fmt::format("          source: {}", e.recipe.source));
  doc.sections.push_back(std::move(job_section));

  Section memory;
  memory.title = fmt::format(
      "Memory {}{} -- {} ({} B per trainable parameter{})", job.devices > 1 ? "per device " : "",
      e.primary.step ? "with activations" : "before activations", scenario_label(e.primary.name),
      bytes_per_param(e.recipe.bytes_per_trainable_param()),
      job.zero_stage > 0 ? fmt::format(", ZeRO-{} over {} data-parallel ranks", job.zero_stage,
                                       e.primary.layout.zero_shards())
                         : std::string{});
  memory.table(memory_table(e.primary, e.primary.memory));
  {
    const MemoryNumbers& n = e.primary.numbers;
    const bool any_cuda = std::any_of(e.primary.machines.begin(), e.primary.machines.end(),
                                      [](const MachineEstimate& m) { return cuda_like(m.device); });
    if (e.primary.memory.activations_included && !any_cuda) {
      // CPUs and Apple silicon: no CUDA context or caching allocator to add.
      memory.text(fmt::format(
          "allocated peak {} (docs/memory-numbers.md); on these devices (no CUDA runtime) there is "
          "no context or caching allocator to add: the device total is the allocated peak",
          gb(n.allocated)));
    } else if (e.primary.memory.activations_included) {
      std::string band =
          n.band_low == n.band_high
              ? std::string{"framework fields all given"}
              : fmt::format("band {} - {} over the framework's kernels; moves most: {}",
                            gb(n.band_low), gb(n.band_high), n.moves_most);
      memory.text(fmt::format(
          "three numbers (docs/memory-numbers.md): allocated peak {} ({}); reserved {} (+{:g} % "
          "allocator cache, {} - {}); device total {} on a CUDA device (+ {} context, cuBLAS "
          "workspace{})",
          gb(n.allocated), band, gb(n.reserved), kReservedFraction * 100.0, gb(n.reserved_low),
          gb(n.reserved_high), gb(n.device_total), gb(n.runtime),
          job.devices > 1 ? ", NCCL buffers" : ""));
    } else {
      memory.text(
          "model states only: activations are not counted without the model's architecture "
          "(docs/models.md)");
    }
  }
  if (job.parallel.pp > 1) {
    memory.text(fmt::format("pipeline stage {} of {} (the most loaded)", e.primary.memory.stage,
                            job.parallel.pp));
  }
  if (e.primary.comm_buffers.value() > 0.0) {
    memory.text(fmt::format("of the peak, {} are ZeRO's buffers (gathered layers, buckets)",
                            gb(e.primary.comm_buffers)));
  }
  if (e.primary.memory.host_total.value() > 0.0) {
    memory.text(
        fmt::format("offloaded to host memory: {} per device", gb(e.primary.memory.host_total)));
  }
  if (!e.primary.step) {
    memory.text(
        "Activations are not included: they depend on the architecture, micro-batch and "
        "sequence length, which a bare parameter count does not give.");
  }
  doc.sections.push_back(std::move(memory));
  for (Section& section : step_sections(e)) doc.sections.push_back(std::move(section));

  Section compute;
  compute.title = fmt::format("Compute -- {}", flops_formula_text(e.primary));
  compute.text(fmt::format("{}/token x {} tokens = {}",
                           flops(Flops{e.primary.compute.flops_per_token}), count(job.tokens),
                           flops(e.primary.compute.total)));
  if (e.primary.method != Method::kFull) {
    compute.text(fmt::format("reference 6N: {}/token = {}",
                             flops(Flops{e.primary.compute.flops_per_token_6n}),
                             flops(Flops{e.primary.compute.flops_per_token_6n * job.tokens})));
  }
  doc.sections.push_back(std::move(compute));

  Section time;
  time.title = fmt::format("Time and fit -- {}", scenario_label(e.primary.name));
  time.table(machines_table(e.primary, job.utilization));
  if (job.utilization) {
    time.text(fmt::format(
        "at 100 %: the dense peak rate, which no real run reaches; at {}: the given utilization, "
        "which replaces the step-time model. * = dtype chosen with ID:dtype instead of the "
        "recipe's {}.",
        percent(*job.utilization), enum_name(e.recipe.compute_dtype)));
  } else {
    time.text(fmt::format(
        "at 100 %: the dense peak rate, which no real run reaches; modeled: GEMMs at the device's "
        "measured matmul efficiency, plus exposed communication and the pipeline bubble "
        "(docs/scale.md; {{utilization}} replaces it). * = dtype chosen with ID:dtype instead of "
        "the recipe's {}.",
        enum_name(e.recipe.compute_dtype)));
  }
  time.table(step_table(e.primary));
  for (const MachineEstimate& m : e.primary.machines) {
    if (!m.rate || !m.time.modeled) continue;
    const StepTime& st = m.time;
    if (st.attention.count() > 0.0 || st.kernels > 0.0) {
      // Short lines (the device id, not its name): they sit under a wide table already.
      time.text(fmt::format(
          "{}: micro-batch {} = GEMMs {} + attention {} + memory {} + launches {}", m.device.id,
          seconds_text(st.micro_batch), seconds_text(st.gemm), seconds_text(st.attention),
          seconds_text(st.memory_bound), seconds_text(st.overhead)));
    }
    if (m.time_band.present) {
      // Online RL: the band is the whole round's (generation and all), beside the update step.
      time.text(fmt::format("{}: step {}, {}band {} to {} (moves most: {})", m.device.id,
                            seconds_text(st.step), m.rollout ? "round with generation " : "",
                            seconds_text(m.time_band.low), seconds_text(m.time_band.high),
                            enum_name(m.time_band.moves_most)));
    }
  }
  if (!e.primary.machines.empty() && e.primary.machines.front().time.comm_total.count() > 0.0) {
    time.text(
        fmt::format("communication of one step on {}:", machine_label(e.primary.machines.front())));
    time.table(comm_table(e.primary.machines.front()));
  }
  if (!e.primary.machines.empty() && !e.primary.machines.front().scaling.empty()) {
    const MachineEstimate& m = e.primary.machines.front();
    time.text(fmt::format("scaling on {} ({}): the same per-device work on more devices",
                          m.system_id.empty() ? std::string{"its interconnect"} : m.system_id,
                          m.device.id));
    TextTable t({{"devices", Align::kRight},
                 {"step", Align::kRight},
                 {"exposed comm", Align::kRight},
                 {"MFU", Align::kRight},
                 {"tokens/s", Align::kRight},
                 {"time", Align::kRight},
                 {"bound"}});
    for (const ScalePoint& p : m.scaling) {
      t.add_row({std::to_string(p.devices), seconds_text(p.step), seconds_text(p.exposed_comm),
                 percent(p.mfu), count(p.tokens_per_second), duration(Seconds{p.hours * 3600.0}),
                 std::string{enum_name(p.bound)}});
    }
    time.table(std::move(t));
  }
  std::vector<std::string> said;  // a device named twice (two dtypes) is described once per line
  const auto once = [&](std::string line) {
    if (std::find(said.begin(), said.end(), line) != said.end()) return;
    said.push_back(line);
    time.text(std::move(line));
  };
  for (const MachineEstimate& m : e.primary.machines) {
    if (m.rate) {
      once(fmt::format("{} {}: GEMM efficiency {} ({})", m.device.id, enum_name(m.dtype),
                       percent(m.gemm.value), gemm_source_text(m.gemm)));
    }
    if (!m.system_id.empty()) {
      once(fmt::format("{}: system {} ({})", m.device.id, m.system_id, m.system_name));
    }
    for (const std::string& a : note_texts(m.assumptions))
      once(fmt::format("{}: {}", m.device.id, a));
  }
  doc.sections.push_back(std::move(time));
  if (std::optional<Section> rollout = rollout_section(e)) doc.sections.push_back(*rollout);

  if (e.lora_alternative) {
    const Scenario& lora = *e.lora_alternative;
    Section alt;
    alt.title = fmt::format("Alternative -- {}: {} trainable of {}", scenario_label(lora.name),
                            count(lora.params_trainable), count(lora.params_total));
    alt.table(memory_table(lora, lora.memory));
    alt.text(fmt::format("compute: {} = {}/token, {} in all", flops_formula_text(lora),
                         flops(Flops{lora.compute.flops_per_token}), flops(lora.compute.total)));
    alt.table(machines_table(lora, job.utilization));
    doc.sections.push_back(std::move(alt));
  }

  Section verdict;
  verdict.title = "Verdict";
  for (const MachineEstimate& m : e.primary.machines) {
    verdict.text(fmt::format("{} [{}]: {}", machine_label(m), dtype_cell(m),
                             verdict_sentence(m, e.primary, e.lora_alternative)));
    for (const Advice& a : m.advice) {
      std::string flags;
      for (const auto& [key, value] : a.changes) {
        flags +=
            value == "true" ? fmt::format(" {{{}}}", key) : fmt::format(" {{{}}} {}", key, value);
      }
      const std::string kind =
          a.kind == "same_method" ? "faster, same method:" : fmt::format("{} change:", a.kind);
      verdict.text(fmt::format(
          "  {} {} -> {} per device, {}{}; add:{}", kind, a.summary, gb(a.memory),
          duration(Seconds{a.hours * 3600.0}),
          a.devices != m.devices ? fmt::format(" on {} devices", a.devices) : std::string{},
          flags));
    }
  }
  doc.sections.push_back(std::move(verdict));
  for (Section& section : explain_sections(e)) doc.sections.push_back(std::move(section));
  return doc;
}

TextTable estimate_rows(const Estimate& e) {
  TextTable t({{"scenario"},
               {"method"},
               {"machine_id"},
               {"machine"},
               {"dtype"},
               {"dtype_requested"},
               {"rate_flops_per_s"},
               {"rate_kind"},
               {"utilization_given"},
               {"devices"},
               {"hours_at_peak"},
               {"hours"},
               {"memory_total_bytes"},
               {"allocated_peak_bytes"},
               {"reserved_peak_bytes"},
               {"device_total_bytes"},
               {"band_low_bytes"},
               {"band_high_bytes"},
               {"usable_bytes"},
               {"memory_capacity_bytes"},
               {"fits"},
               {"verdict"},
               {"cost_usd"},
               {"step_seconds"},
               {"mfu"},
               {"bound"},
               {"exposed_comm_seconds"},
               {"energy_kwh"}});
  const auto add = [&](const Scenario& s) {
    for (const MachineEstimate& m : s.machines) {
      const bool r = m.rate.has_value();
      t.add_row({scenario_label(s.name),
                 std::string{enum_name(s.method)},
                 m.device.id,
                 machine_label(m),
                 r ? std::string{enum_name(m.dtype)} : "",
                 std::string{enum_name(m.wanted)},
                 r ? fmt::format("{:.6g}", m.rate->dense.value()) : "",
                 r ? (m.rate->kind == RateKind::kMeasured ? "measured" : "spec") : "",
                 e.job.utilization ? fmt::format("{:g}", *e.job.utilization) : "",
                 fmt::format("{}", m.devices),
                 r ? fmt::format("{:.6g}", hours(m.at_peak)) : "",
                 r ? fmt::format("{:.6g}", hours(m.at_utilization)) : "",
                 fmt::format("{:.6g}", s.memory.total.value()),
                 fmt::format("{:.6g}", m.numbers.allocated.value()),
                 fmt::format("{:.6g}", m.numbers.reserved.value()),
                 fmt::format("{:.6g}", m.numbers.device_total.value()),
                 fmt::format("{:.6g}", m.numbers.band_low.value()),
                 fmt::format("{:.6g}", m.numbers.band_high.value()),
                 fmt::format("{:.6g}", m.usable.value()),
                 fmt::format("{:.6g}", m.device.memory_capacity.value()),
                 fits_value(m.verdict),
                 std::string{enum_name(m.verdict)},
                 m.cost_usd ? fixed(m.cost_usd->value(), 2) : "",
                 r ? fmt::format("{:.6g}", m.time.step.count()) : "",
                 r ? fmt::format("{:.6g}", m.time.mfu) : "",
                 r ? std::string{enum_name(m.time.bound)} : "",
                 r ? fmt::format("{:.6g}", m.time.exposed_comm.count()) : "",
                 m.energy_kwh ? fmt::format("{:.6g}", *m.energy_kwh) : ""});
    }
  };
  add(e.primary);
  if (e.lora_alternative) add(*e.lora_alternative);
  return t;
}

}  // namespace tb::report
