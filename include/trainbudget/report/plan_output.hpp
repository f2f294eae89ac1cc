// The plan's views: a document (table, markdown, csv) and JSON (docs/json.md, "plan").
#pragma once

#include <string>

#include "trainbudget/plan/plan_report.hpp"
#include "trainbudget/report/document.hpp"

namespace tb::report {

[[nodiscard]] std::string plan_json(const plan::PlanReport& report);
[[nodiscard]] Document plan_document(const plan::PlanReport& report);
[[nodiscard]] TextTable plan_rows(const plan::PlanReport& report);

}  // namespace tb::report
