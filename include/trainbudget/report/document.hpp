// A report as titled sections of paragraphs and tables, plus its CSV rows, so that the table,
// Markdown and CSV renderings (report/view.hpp) show the same content.
#pragma once

#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/report/text_table.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::report {

struct Section {
  std::string title;
  std::vector<std::variant<std::string, TextTable>> blocks;  // paragraph or table

  void text(std::string paragraph) { blocks.emplace_back(std::move(paragraph)); }
  void table(TextTable t) { blocks.emplace_back(std::move(t)); }
};

struct Document {
  std::string title;
  std::vector<Section> sections;
  TextTable rows{
      std::vector<TextTable::Column>{}};  // the CSV view: one flat table of the same numbers
  std::size_t answer{0};  // the section that answers the question (--brief prints it alone)
};

[[nodiscard]] Document estimate_document(const Estimate& estimate);
[[nodiscard]] Document devices_document(const std::vector<Device>& devices);
[[nodiscard]] Document device_document(const Device& device);
[[nodiscard]] Document recipes_document(double params);

// The machine rows of an estimate (both scenarios), as CSV-ready columns.
[[nodiscard]] TextTable estimate_rows(const Estimate& estimate);
// One row per device.
[[nodiscard]] TextTable device_rows(const std::vector<Device>& devices);
// One row per recipe: bytes per parameter by kind and the total for `params`.
[[nodiscard]] TextTable recipe_rows(double params);

// Text for a terminal `width` columns wide (0: no limit): long lines wrapped, wide tables stacked.
void render_text(const Document& doc, std::ostream& out, std::size_t width = 0);
void render_markdown(const Document& doc, std::ostream& out);
// A whole HTML page: title, `charts` (SVG markup, may be empty), then each section's paragraphs
// and tables, escaped; inline style, nothing fetched.
void render_html_page(const Document& doc, const std::string& charts, std::ostream& out);

// The Job section's model lines: a bare count, or name, family, exact counts and sources.
[[nodiscard]] std::vector<std::string> model_lines(const TrainingJob& job);

// The machine's display name, with the measurement method for measured rates.
[[nodiscard]] std::string machine_label(const MachineEstimate& m);
// One sentence: does it fit, how long, what to change.
[[nodiscard]] std::string verdict_sentence(const MachineEstimate& m, const Scenario& scenario,
                                           const std::optional<Scenario>& lora);

}  // namespace tb::report
