// The views of every result type, and the one renderer by format.
#include "trainbudget/report/view.hpp"

#include "trainbudget/report/json_output.hpp"
#include "trainbudget/report/measurement_report.hpp"
#include "trainbudget/report/plan_output.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::report {
namespace {

// The document with its prose's {key} references spelled for the front end.
Document with_names(Document doc, const FieldNamer& names) {
  const FieldNamer bare = [](const std::string& key) { return key; };
  const FieldNamer& name = names ? names : bare;
  for (Section& s : doc.sections) {
    for (auto& block : s.blocks) {
      if (auto* p = std::get_if<std::string>(&block)) {
        *p = render_refs(*p, name);
      } else {
        std::get<TextTable>(block).map_cells(
            [&](const std::string& cell) { return render_refs(cell, name); });
      }
    }
  }
  return doc;
}

}  // namespace

Document document_of(const Estimate& e) {
  Document doc = estimate_document(e);
  doc.rows = estimate_rows(e);
  return doc;
}
Document document_of(const DeviceList& list) {
  Document doc = devices_document(list.devices);
  doc.rows = device_rows(list.devices);
  return doc;
}
Document document_of(const Device& device) {
  Document doc = device_document(device);
  doc.rows = device_rows({device});
  return doc;
}
Document document_of(const RecipeComparison& r) {
  Document doc = recipes_document(r.params);
  doc.rows = recipe_rows(r.params);
  return doc;
}
Document document_of(const measure::Measurement& m) {
  Document doc = measurement_document(m);
  doc.rows = measurement_rows(m);
  return doc;
}

Document document_of(const FabricReport& f) { return fabric_document(f); }
Document document_of(const SystemList& list) { return systems_document(list.systems); }
Document document_of(const System& system) { return system_document(system); }
Document document_of(const plan::PlanReport& p) { return plan_document(p); }

std::string json_of(const Estimate& e) { return estimate_json(e); }
std::string json_of(const plan::PlanReport& p) { return plan_json(p); }
std::string json_of(const DeviceList& list) { return devices_json(list.devices); }
std::string json_of(const Device& device) { return device_json(device); }
std::string json_of(const RecipeComparison& r) { return recipes_json(r.params); }
std::string json_of(const measure::Measurement& m) { return measurement_json(m); }
std::string json_of(const FabricReport& f) { return fabric_json(f); }
std::string json_of(const SystemList& list) { return systems_json(list.systems); }
std::string json_of(const System& system) { return system_json(system); }

void render(const Document& doc, Format format, std::ostream& out, const FieldNamer& names,
            std::size_t width) {
  switch (format) {
    case Format::kTable:
      render_text(with_names(doc, names), out, width);
      return;
    case Format::kMarkdown:
      render_markdown(with_names(doc, names), out);
      return;
    case Format::kCsv:
      doc.rows.render_csv(out);
      return;
    case Format::kHtml:
      render_html(doc, {}, out, names);
      return;
    case Format::kJson:
      return;  // JSON is a view of its own (json_of)
  }
}

void render_html(const Document& doc, const std::string& charts, std::ostream& out,
                 const FieldNamer& names) {
  render_html_page(with_names(doc, names), charts, out);
}

}  // namespace tb::report
