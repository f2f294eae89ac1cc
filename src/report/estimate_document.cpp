// The estimate as sections: model and job, memory, compute, time and fit, LoRA, verdict.
#include <fmt/format.h>

#include "step_document.hpp"
#include "trainbudget/build_info.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {
namespace {

TextTable memory_table(const MemoryEstimate& memory) {
  TextTable t({{"component"},
               {"bytes/param", Align::kRight},
               {"params", Align::kRight},
               {"total", Align::kRight}});
  for (const MemoryComponent& c : memory.components) {
    std::string label = c.label;
    if (c.sharded_over > 1) label += fmt::format(" / {} devices", c.sharded_over);
    const bool per_param = c.params > 0.0;
    t.add_row({label, per_param ? bytes_per_param(c.bytes_per_param) : "",
               per_param ? count(c.params) : "", gb(c.bytes)});
  }
  t.add_row({memory.activations_included ? "peak over the step (not the sum)" : "total", "", "",
             gb(memory.total)});
  return t;
}

std::string dtype_cell(const MachineEstimate& m) {
  if (!m.rate) return "-";
  std::string cell{enum_name(m.dtype)};
  if (m.dtype_fell_back()) cell += fmt::format(" (no {})", enum_name(m.wanted));
  if (m.dtype_overridden && m.wanted != m.recipe_dtype) cell += "*";
  return cell;
}

TextTable machines_table(const Scenario& s, double utilization) {
  TextTable t({{"machine"},
               {"dtype"},
               {"TFLOP/s", Align::kRight},
               {"rate"},
               {"at 100 %", Align::kRight},
               {fmt::format("at {}", percent(utilization)), Align::kRight},
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
               fmt::format("{} / {}", gb(s.memory.total), gb(m.device.memory_capacity)),
               m.fits ? "fits" : "does not fit"});
  }
  return t;
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

std::string verdict_sentence(const MachineEstimate& m, const Scenario& s,
                             const std::optional<Scenario>& lora) {
  const Bytes capacity = m.device.memory_capacity;
  std::string time;
  if (m.rate.has_value()) {
    time = fmt::format("{} at {} utilization", duration(m.at_utilization), percent(m.utilization));
    if (m.cost_usd)
      time +=
          fmt::format(", about ${} at the catalog's hourly price", fixed(m.cost_usd->value(), 0));
  } else {
    time = "no compute figure for this device";
  }
  switch (m.fit) {
    case Fit::kFits:
      return fmt::format("{} fits ({} of {}); {}.", s.label, gb(s.memory.total), gb(capacity),
                         time);
    case Fit::kNeedsLora:
      return fmt::format(
          "{} does not fit ({} > {}); {} fits in {} -- or shard the full fine-tune over >= {} "
          "devices (ZeRO-3/FSDP, model states only).",
          s.label, gb(s.memory.total), gb(capacity), lora ? lora->label : "LoRA",
          lora ? gb(lora->memory.total) : "?", m.devices_to_fit);
    case Fit::kNeedsSharding:
      return fmt::format(
          "{} does not fit ({} > {}){}; shard over >= {} devices (ZeRO-3/FSDP, model states "
          "only) or use a card with >= {}.",
          s.label, gb(s.memory.total), gb(capacity), lora ? ", nor does LoRA" : "",
          m.devices_to_fit, gb(s.memory.total));
  }
  return {};
}

Document estimate_document(const Estimate& e) {
  Document doc;
  const TrainingJob& job = e.job;
  doc.title =
      fmt::format("trainbudget {} -- training budget (GB = 1e9 bytes, TFLOP/s = 1e12 FLOP/s)",
                  build_info::kVersion);

  Section job_section;
  job_section.title = "Job";
  for (std::string& line : model_lines(job)) job_section.text(std::move(line));
  job_section.text(fmt::format("training  {} tokens, {}, {} (ideal data-parallel scaling)",
                               count(job.tokens), e.primary.label,
                               counted(job.devices, "device", "devices")));
  job_section.text(fmt::format("recipe    {}: {}, computing in {}", e.recipe.id, e.recipe.title,
                               enum_name(e.recipe.compute_dtype)));
  job_section.text(fmt::format("          source: {}", e.recipe.source));
  doc.sections.push_back(std::move(job_section));

  Section memory;
  memory.title = fmt::format(
      "Memory {}{} -- {} ({} B per trainable parameter{})", job.devices > 1 ? "per device " : "",
      e.primary.step ? "with activations" : "before activations", e.primary.label,
      bytes_per_param(e.recipe.bytes_per_trainable_param()),
      job.zero_stage > 0 ? fmt::format(", ZeRO-{} over {} devices", job.zero_stage, job.devices)
                         : std::string{});
  memory.table(memory_table(e.primary.memory));
  if (!e.primary.step) {
    memory.text(
        "Activations are not included: they depend on the architecture, micro-batch and "
        "sequence length, which a bare parameter count does not give.");
  }
  doc.sections.push_back(std::move(memory));
  for (Section& section : step_sections(e)) doc.sections.push_back(std::move(section));

  Section compute;
  compute.title = fmt::format("Compute -- {}", e.primary.compute.formula);
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
  time.title = fmt::format("Time and fit -- {}", e.primary.label);
  time.table(machines_table(e.primary, job.utilization));
  time.text(fmt::format(
      "at 100 %: the dense peak rate, which no real run reaches; at {}: {} (published large runs "
      "report 38-56 % MFU; {{utilization}} sets it). * = dtype chosen with ID:dtype instead of the "
      "recipe's {}.",
      percent(job.utilization),
      job.utilization == kDefaultUtilization ? "the default utilization" : "the given utilization",
      enum_name(e.recipe.compute_dtype)));
  doc.sections.push_back(std::move(time));

  if (e.lora_alternative) {
    const Scenario& lora = *e.lora_alternative;
    Section alt;
    alt.title = fmt::format("Alternative -- {}: {} trainable of {}", lora.label,
                            count(lora.params_trainable), count(lora.params_total));
    alt.table(memory_table(lora.memory));
    alt.text(fmt::format("compute: {} = {}/token, {} in all", lora.compute.formula,
                         flops(Flops{lora.compute.flops_per_token}), flops(lora.compute.total)));
    alt.table(machines_table(lora, job.utilization));
    doc.sections.push_back(std::move(alt));
  }

  Section verdict;
  verdict.title = "Verdict";
  for (const MachineEstimate& m : e.primary.machines) {
    verdict.text(fmt::format("{} [{}]: {}", machine_label(m), dtype_cell(m),
                             verdict_sentence(m, e.primary, e.lora_alternative)));
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
               {"utilization"},
               {"devices"},
               {"hours_at_peak"},
               {"hours"},
               {"memory_total_bytes"},
               {"memory_capacity_bytes"},
               {"fits"},
               {"verdict"},
               {"cost_usd"}});
  const auto add = [&](const Scenario& s) {
    for (const MachineEstimate& m : s.machines) {
      const bool r = m.rate.has_value();
      t.add_row({s.label, std::string{enum_name(s.method)}, m.device.id, machine_label(m),
                 r ? std::string{enum_name(m.dtype)} : "", std::string{enum_name(m.wanted)},
                 r ? fmt::format("{:.6g}", m.rate->dense.value()) : "",
                 r ? (m.rate->kind == RateKind::kMeasured ? "measured" : "spec") : "",
                 fmt::format("{:g}", m.utilization), fmt::format("{}", m.devices),
                 r ? fmt::format("{:.6g}", hours(m.at_peak)) : "",
                 r ? fmt::format("{:.6g}", hours(m.at_utilization)) : "",
                 fmt::format("{:.6g}", s.memory.total.value()),
                 fmt::format("{:.6g}", m.device.memory_capacity.value()), m.fits ? "true" : "false",
                 std::string{enum_name(m.fit)}, m.cost_usd ? fixed(m.cost_usd->value(), 2) : ""});
    }
  };
  add(e.primary);
  if (e.lora_alternative) add(*e.lora_alternative);
  return t;
}

}  // namespace tb::report
