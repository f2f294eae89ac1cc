// A fabric measurement's report (`measure --fabric`): every collective, tier and size as
// nccl-tests prints them (median time, spread, algorithm and bus bandwidth), and, for a saved
// system, the estimate's collective time beside each measured one.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/eval/fabric_check.hpp"
#include "trainbudget/measure/fabric.hpp"
#include "trainbudget/report/document.hpp"

namespace tb::report {

struct FabricReport {
  measure::FabricMeasurement measurement;
  std::string saved_id;            // the system it was saved as; empty: not saved
  std::vector<FabricCheck> check;  // measured sizes above 1 MiB, when saved
};

[[nodiscard]] Document fabric_document(const FabricReport& report);
// docs/json.md, section "fabric".
[[nodiscard]] std::string fabric_json(const FabricReport& report);

}  // namespace tb::report
