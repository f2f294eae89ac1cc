// Reporters are views: every result type has one document view (document_of, for table,
// markdown and csv) and one JSON view (json_of); write() picks by format. No virtual per
// document, and no view computes a number (they arrange what eval and measure produced).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/inference.hpp"
#include "trainbudget/eval/task_verdict.hpp"
#include "trainbudget/measure/records.hpp"
#include "trainbudget/plan/plan_report.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/fabric_report.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/report/system_report.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::report {

// How a front end spells a field key in prose ({utilization} becomes the flag on the CLI).
using FieldNamer = std::function<std::string(const std::string& key)>;

// The catalog listing and the recipe comparison as result types of their own.
struct DeviceList {
  std::vector<Device> devices;
};
struct RecipeComparison {
  double params{0.0};  // the model-state bytes are shown for this many parameters
};

[[nodiscard]] Document document_of(const Estimate& estimate);
[[nodiscard]] Document document_of(const DeviceList& list);
[[nodiscard]] Document document_of(const Device& device);
[[nodiscard]] Document document_of(const RecipeComparison& recipes);
[[nodiscard]] Document document_of(const measure::Measurement& measurement);
[[nodiscard]] Document document_of(const FabricReport& fabric);
[[nodiscard]] Document document_of(const SystemList& systems);
[[nodiscard]] Document document_of(const System& system);
[[nodiscard]] Document document_of(const plan::PlanReport& plan);
[[nodiscard]] Document document_of(const ServingEstimate& serving);
[[nodiscard]] Document document_of(const TaskComparison& comparison);

[[nodiscard]] std::string json_of(const Estimate& estimate);
[[nodiscard]] std::string json_of(const DeviceList& list);
[[nodiscard]] std::string json_of(const Device& device);
[[nodiscard]] std::string json_of(const RecipeComparison& recipes);
[[nodiscard]] std::string json_of(const measure::Measurement& measurement);
[[nodiscard]] std::string json_of(const FabricReport& fabric);
[[nodiscard]] std::string json_of(const SystemList& systems);
[[nodiscard]] std::string json_of(const System& system);
[[nodiscard]] std::string json_of(const plan::PlanReport& plan);
[[nodiscard]] std::string json_of(const ServingEstimate& serving);
[[nodiscard]] std::string json_of(const TaskComparison& comparison);

// A document in one of the people formats (table, markdown) or as CSV (its rows); field
// references in its prose are spelled by `names` (the key itself when empty).
// `width`: the terminal's columns for the table format (0: no limit).
void render(const Document& doc, Format format, std::ostream& out, const FieldNamer& names = {},
            std::size_t width = 0);

// The SVG charts an HTML report draws above its document: the estimate's memory against each
// machine and its hours on a log axis; the serving estimate's memory and decode speed.
[[nodiscard]] std::string charts_of(const Estimate& estimate);
[[nodiscard]] std::string charts_of(const ServingEstimate& serving);
template <class Result>
[[nodiscard]] std::string charts_of(const Result&) {
  return {};
}

// A self-contained HTML page (--format html): the charts, then the document's sections.
void render_html(const Document& doc, const std::string& charts, std::ostream& out,
                 const FieldNamer& names = {});

// `brief`: the document's answer section only (Document::answer).
template <class Result>
void write(const Result& result, Format format, std::ostream& out, const FieldNamer& names = {},
           std::size_t width = 0, bool brief = false) {
  if (format == Format::kJson) {
    out << json_of(result);
    return;
  }
  Document doc = document_of(result);
  if (brief && doc.answer < doc.sections.size()) {
    doc.sections = {std::move(doc.sections[doc.answer])};
  }
  if (format == Format::kHtml) {
    render_html(doc, brief ? std::string{} : charts_of(result), out, names);
  } else {
    render(doc, format, out, names, width);
  }
}

// JSON schema version of every JSON document we print (docs/json.md).
inline constexpr int kJsonSchemaVersion = 2;

}  // namespace tb::report
