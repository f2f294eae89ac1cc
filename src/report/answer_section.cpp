// The estimate's opening section (issue 21, "Answer first").
#include <fmt/format.h>

#include <algorithm>

#include "estimate_sections.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

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
               m.rate ? duration(m.at_utilization) : "-",
               m.cost_usd && m.fits ? dollars(m.cost_usd->value()) : "-"});
    if (!m.fits && !m.advice.empty()) {
      // The one change: the planner's smallest change that fits, as flags to paste.
      const Advice& a = m.advice.front();
      std::vector<std::string> flags;
      for (const auto& [key, value] : a.changes) {
        flags.push_back(value == "true" ? fmt::format("{{{}}}", key)
                                        : fmt::format("{{{}}} {}", key, value));
      }
      changes.push_back(fmt::format(
          "{}: to fit, add {} ({} per device, {}{})", id,
          flags.empty() ? a.summary : fmt::format("{}", fmt::join(flags, " ")), gb(a.memory),
          duration(Seconds{a.hours * 3600.0}),
          a.devices != m.devices ? fmt::format(", {} devices", a.devices) : std::string{}));
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
  for (const std::string& c : changes) answer.text(c);
  for (const std::string& l : legend) answer.text(l);
  return answer;
}

}  // namespace tb::report
