// The memory table of a scenario: one row per state term (and the activations), the peak.
#include <fmt/format.h>

#include "estimate_sections.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {

TextTable memory_table(const Scenario& s, const MemoryEstimate& memory) {
  TextTable t({{"component"},
               {"bytes/param", Align::kRight},
               {"params", Align::kRight},
               {"total", Align::kRight}});
  for (const MemoryComponent& c : memory.components) {
    std::string label = component_label(s, c);
    if (c.sharded_over > 1) label += fmt::format(" / {} devices", c.sharded_over);
    const bool per_param = c.params > 0.0;
    t.add_row({label, per_param ? bytes_per_param(c.bytes_per_param) : "",
               per_param ? count(c.params) : "", gb(c.bytes)});
  }
  t.add_row({memory.activations_included ? "peak over the step (not the sum)" : "total", "", "",
             gb(memory.total)});
  return t;
}

}  // namespace tb::report
