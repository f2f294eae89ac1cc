// The verdict sentence of one machine (docs/memory-numbers.md, "The verdict"): fits, tightly,
// does not fit (the device, or the host's RAM), no network between nodes, with the planner's
// smallest change when there is one.
#include <fmt/format.h>

#include "estimate_sections.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

namespace {

// A tight fit's advice: the smallest change that leaves the margin.
std::string room_advice(const MachineEstimate& m) {
  if (m.advice.empty()) return {};
  const Advice& a = m.advice.front();
  return fmt::format(
      "; for room: {} ({} per device{})", a.summary, gb(a.memory),
      a.devices != m.devices ? fmt::format(" on {} devices", a.devices) : std::string{});
}

}  // namespace

std::string verdict_sentence(const MachineEstimate& m, const Scenario& s,
                             const std::optional<Scenario>& lora) {
  // Online RL: this device's peak with the engine's pool (eval/rollout.hpp).
  const Bytes peak = m.rollout ? m.numbers.allocated : s.memory.total;
  // What the allocated peak is held against (docs/memory-numbers.md, "The verdict").
  const std::string room =
      fmt::format("{} allocatable of {}", gb(m.allocatable), gb(m.device.memory_capacity));
  std::string time;
  if (m.rate.has_value()) {
    time = fmt::format("{} at {} MFU{}", duration(m.at_utilization), percent(m.utilization),
                       m.time.modeled ? fmt::format(" ({}-bound)", enum_name(m.time.bound))
                                      : std::string{" (given)"});
    if (m.cost_usd)
      time += fmt::format(", about {} at {} hourly price", dollars(m.cost_usd->value()),
                          m.price_given ? "the given" : "the catalog's");
  } else {
    time = "no compute figure for this device";
  }
  if (m.verdict == Verdict::kNoNetwork) {
    // Not memory: the devices cannot be one job (docs/systems.md, "No network").
    return fmt::format(
        "{} x {} cannot run as one job: {} holds {} devices a node and has no network between "
        "nodes. Use at most {} devices, or a system file with a network between nodes "
        "(docs/systems.md).",
        m.devices, m.device.id, m.system_id, m.node_devices, m.node_devices);
  }
  if (!m.fits && m.host_memory.value() > 0.0 && m.host_per_node > m.host_memory &&
      (m.rollout ? m.numbers.allocated : s.memory.total) <= m.allocatable) {
    return fmt::format(
        "{} does not fit the host: it offloads {} per node to a host with {}{}.",
        scenario_label(s.name), gb(m.host_per_node), gb(m.host_memory),
        m.advice.empty() ? std::string{}
                         : fmt::format("; the smallest change that fits: {} ({} per device{})",
                                       m.advice.front().summary, gb(m.advice.front().memory),
                                       m.advice.front().devices != m.devices
                                           ? fmt::format(" on {} devices", m.advice.front().devices)
                                           : std::string{}));
  }
  if (!m.fits && !m.advice.empty()) {
    // The planner's answer replaces the rule of thumb (docs/scale.md, "Advice").
    const Advice& a = m.advice.front();
    return fmt::format(
        "{} does not fit ({} > {}); the smallest change that fits: {} ({} per "
        "device{}).",
        scenario_label(s.name), gb(peak), room, a.summary, gb(a.memory),
        a.devices != m.devices ? fmt::format(" on {} devices", a.devices) : std::string{});
  }
  switch (m.fit) {
    case Fit::kFits:
      if (!s.memory.activations_included) {
        // No verdict without activations (docs/memory-numbers.md).
        return fmt::format(
            "{}: the model states fit ({} of {}); activations not counted (they need the model's "
            "architecture); {}.",
            scenario_label(s.name), gb(peak), room, time);
      }
      if (!m.fits_device_total) {
        return fmt::format(
            "{} fits, tightly (allocated peak {} + {} runtime within {} usable; with the "
            "allocator's usual cache the device would show about {}){}; {}.",
            scenario_label(s.name), gb(peak), gb(m.numbers.runtime), gb(m.usable),
            gb(m.numbers.device_total), room_advice(m), time);
      }
      if (m.verdict == Verdict::kFitsTightly) {
        return fmt::format(
            "{} fits, tightly (allocated peak {} of {}, over the {} that leaves a {:.0f} % "
            "margin for the framework's heavier kernels and the allocator's cache){}; {}.",
            scenario_label(s.name), gb(peak), room, gb(m.limit), (m.margin - 1.0) * 100.0,
            room_advice(m), time);
      }
      return fmt::format("{} fits (allocated peak {}, device total about {} of {} usable); {}.",
                         scenario_label(s.name), gb(peak), gb(m.numbers.device_total), gb(m.usable),
                         time);
    case Fit::kNeedsLora:
      return fmt::format(
          "{} does not fit ({} > {}); {} fits in {} -- or {}.", scenario_label(s.name), gb(peak),
          room, lora ? scenario_label(lora->name) : "LoRA", m.lora_peak ? gb(*m.lora_peak) : "?",
          shard_clause(m, "the full fine-tune "));
    case Fit::kNeedsSharding:
      return fmt::format("{} does not fit ({} > {}){}; {} or use a card with >= {}.",
                         scenario_label(s.name), gb(peak), room, lora ? ", nor does LoRA" : "",
                         shard_clause(m, ""), gb(peak));
  }
  return {};
}

}  // namespace tb::report
