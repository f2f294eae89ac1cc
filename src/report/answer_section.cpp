// The estimate's opening section (issue 21, "Answer first").
#include <fmt/format.h>

#include <algorithm>

#include "estimate_sections.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

namespace {

// The run's compute time as the band's two ends when the model timed it, else the point.
std::string time_cell(const MachineEstimate& m) {
  if (!m.time_band.present || m.time.steps <= 0.0) return duration(m.at_utilization);
  return duration_range(m.time_band.low * m.time.steps, m.time_band.high * m.time.steps);
}

}  // namespace

// Per machine, by id, whether it fits, the memory, the time, the
// cost and the one change that fits; the machines' names in a legend under it.
Section answer_section(const Estimate& e) {
  const Scenario& s = e.primary;
  Section answer;
  answer.title =
      fmt::format("Answer -- {} on {} tokens", scenario_label(s.name), count(e.job.tokens));
  TextTable t({{"machine"},
               {"fit", Align::kLeft, true},
               {"memory", Align::kRight},
               {"time", Align::kRight},
               {"cost", Align::kRight}});
  std::vector<std::string> changes;
  std::vector<std::string> legend;
  for (const MachineEstimate& m : s.machines) {
    std::string id = fmt::format("{} {}", m.device.id, dtype_cell(m));
    if (m.devices > 1) id = fmt::format("{} x {}", m.devices, id);
    t.add_row({id, m.verdict == Verdict::kStatesFit ? "states fit" : verdict_words(m.verdict),
               // Online RL: this device's peak with the engine's pool (eval/rollout.hpp).
               fmt::format("{} / {}", gb(m.rollout ? m.numbers.allocated : s.memory.total),
                           gb(m.device.memory_capacity)),
               // The band, not the point: the forecast's range (docs/time.md, "Band").
               m.rate && m.verdict != Verdict::kNoNetwork ? time_cell(m) : "-",
               m.cost_usd && m.fits ? dollars(m.cost_usd->value()) : "-"});
    const bool tight = m.fits && m.verdict == Verdict::kFitsTightly;
    if ((!m.fits || tight) && !m.advice.empty()) {
      // The one change: the planner's smallest change that fits, as flags to paste.
      const Advice& a = m.advice.front();
      std::vector<std::string> flags;
      for (const auto& [key, value] : a.changes) {
        flags.push_back(value == "true" ? fmt::format("{{{}}}", key)
                                        : fmt::format("{{{}}} {}", key, value));
      }
      changes.push_back(fmt::format(
          "{}: {}, add {} ({} per device, {}{})", id,
          tight ? fmt::format("for {:.0f} % room", (m.margin - 1.0) * 100.0) : "to fit",
          flags.empty() ? a.summary : fmt::format("{}", fmt::join(flags, " ")), gb(a.memory),
          duration(Seconds{a.hours * 3600.0}),
          a.devices != m.devices ? fmt::format(", {} devices", a.devices) : std::string{}));
    }
    // A step bound by communication or the bubble: the change that frees it, with its gain.
    if (m.fits && !m.advice.empty() && m.advice.front().kind == "unbound") {
      const Advice& a = m.advice.front();
      std::vector<std::string> flags;
      for (const auto& [key, value] : a.changes)
        flags.push_back(fmt::format("{{{}}} {}", key, value));
      changes.push_back(fmt::format("{}: {}-bound at {} MFU; {} runs it in {} at {} MFU ({})", id,
                                    enum_name(m.time.bound), percent(m.utilization),
                                    fmt::join(flags, " "), duration(Seconds{a.hours * 3600.0}),
                                    percent(a.mfu), a.summary));
    }
    // Failures, restarts and checkpoints: the wall-clock time beside the compute time, when they
    // take a percent or more (eval/goodput.hpp).
    if (m.rate && m.fits && (m.goodput.fraction < 0.99 || !m.goodput.modeled)) {
      changes.push_back(fmt::format(
          "{}: compute {}; about {} wall-clock at {} goodput ({})", id, duration(m.at_utilization),
          duration(m.goodput.wall), percent(m.goodput.fraction),
          m.goodput.modeled ? fmt::format("{:.0f} failures expected, a checkpoint every {}",
                                          m.goodput.failures, duration(m.goodput.interval))
                            : std::string{"given"}));
    }
    // Offload fills the host's memory: said beside the answer, checked or not.
    if (m.host_per_node.value() > 0.0) {
      changes.push_back(
          m.host_memory.value() > 0.0
              ? fmt::format("{}: offloads {} per node to host memory ({} there{})", id,
                            gb(m.host_per_node), gb(m.host_memory),
                            m.host_per_node > m.host_memory ? ": does not fit" : "")
              : fmt::format("{}: offloads {} per node to host memory (not checked: give "
                            "{{host_memory}} or a {{system}} that states it)",
                            id, gb(m.host_per_node)));
    }
    // A measured rate names its method: the row's id then, else the device's.
    const bool method = m.rate && m.rate->kind == RateKind::kMeasured && !m.rate->method.empty();
    const std::string named = fmt::format("{}: {}", method ? id : m.device.id, machine_label(m));
    if (std::find(legend.begin(), legend.end(), named) == legend.end()) legend.push_back(named);
  }
  answer.table(std::move(t));
  const bool states_only = std::any_of(s.machines.begin(), s.machines.end(), [](const auto& m) {
    return m.verdict == Verdict::kStatesFit;
  });
  if (states_only) {
    answer.text(
        "states fit: the model states fit; activations are not counted without the "
        "model's architecture ({model})");
  }
  const bool banded = std::any_of(s.machines.begin(), s.machines.end(), [](const auto& m) {
    return m.rate && m.time_band.present && m.verdict != Verdict::kNoNetwork;
  });
  if (banded) {
    answer.text("time: a band, with the model's measured error (docs/time.md); point under Time");
  }
  for (const std::string& c : changes) answer.text(c);
  for (const std::string& l : legend) answer.text(l);
  return answer;
}

}  // namespace tb::report
