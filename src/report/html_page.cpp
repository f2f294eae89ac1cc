// The HTML report (--format html): one self-contained page, the answer first (its verdicts in
// colour), then the charts, then the rest of the document.
#include <fmt/format.h>

#include <ostream>

#include "estimate_sections.hpp"
#include "svg_charts.hpp"
#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {

// A verdict cell's class: good (fits, serves), warn (fits tightly), bad (does not fit), note
// (the model states fit, activations not counted).
const char* verdict_class(std::string_view words) {
  if (words.starts_with("does not") || words.starts_with("no")) return "bad";
  if (words.find("tight") != std::string_view::npos) return "warn";
  if (words.starts_with("states")) return "note";
  return "good";
}

void render_section(const Section& s, std::ostream& out) {
  if (!s.title.empty()) out << "<h2>" << html_escape(s.title) << "</h2>\n";
  for (const auto& block : s.blocks) {
    if (const auto* p = std::get_if<std::string>(&block)) {
      out << "<p>" << html_escape(*p) << "</p>\n";
    } else {
      std::get<TextTable>(block).render_html(out);
    }
  }
}

}  // namespace

void TextTable::render_html(std::ostream& out) const {
  out << "<table><thead><tr>";
  for (const Column& c : columns_) out << "<th scope=\"col\">" << html_escape(c.header) << "</th>";
  out << "</tr></thead><tbody>\n";
  for (const auto& row : rows_) {
    out << "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool right = i < columns_.size() && columns_[i].align == Align::kRight;
      if (i < columns_.size() && columns_[i].verdict) {
        out << "<td class=\"" << verdict_class(row[i]) << "\">";
      } else {
        out << (right ? "<td class=\"n\">" : "<td>");
      }
      out << html_escape(row[i]) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void render_html_page(const Document& doc, const std::string& charts, std::ostream& out) {
  out << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
      << html_escape(doc.title)
      << "</title><style>body{font:15px/1.45 system-ui,sans-serif;color:#111;max-width:1100px;"
         "margin:1rem auto;padding:0 1rem}table{border-collapse:collapse;margin:.5rem "
         "0;font-size:.9rem}th,td{border:1px solid #bbb;padding:.2rem .45rem;text-align:left}"
         "td.n{text-align:right}svg text{font:12px system-ui,sans-serif}figcaption{font-weight:"
         "600}td.good{background:#d3f2dc;color:#0b4d1e;font-weight:600}td.warn{background:"
         "#fff1b8;color:#5c4400;font-weight:600}td.bad{background:#ffd9d9;color:#7a0000;"
         "font-weight:600}td.note{background:#e3ecfb;color:#1d3a6b}section.answer{border-left:"
         "4px solid #444;padding-left:.8rem}</style></head><body>\n<h1>"
      << html_escape(doc.title) << "</h1>\n";
  const bool has_answer = doc.answer < doc.sections.size();
  if (has_answer) {
    out << "<section class=\"answer\">\n";
    render_section(doc.sections[doc.answer], out);
    out << "</section>\n";
  }
  out << charts;
  for (std::size_t i = 0; i < doc.sections.size(); ++i) {
    if (!has_answer || i != doc.answer) render_section(doc.sections[i], out);
  }
  out << "</body></html>\n";
}

std::string charts_of(const Estimate& e) {
  const Scenario& s = e.primary;
  std::vector<StackedRow> memory;
  std::vector<LogRow> hours;
  for (const MachineEstimate& m : s.machines) {
    // Each row as the answer names it (device count, id, dtype), so two rows never read alike.
    std::string id = fmt::format("{} {}", m.device.id, dtype_cell(m));
    if (m.devices > 1) id = fmt::format("{} x {}", m.devices, id);
    StackedRow row{id, {}, m.usable.value()};
    double listed = 0.0;
    for (const MemoryComponent& c : s.memory.components) {
      row.parts.emplace_back(component_label(s, c), c.bytes.value());
      listed += c.bytes.value();
    }
    // What the peak holds beyond the model states: activations, buffers, transients.
    const double rest = m.numbers.allocated.value() - listed;
    if (rest > 0.0) row.parts.emplace_back("activations and buffers at the peak", rest);
    memory.push_back(std::move(row));
    if (m.rate) {
      const double h = tb::hours(m.at_utilization);
      // A job that does not fit is drawn grey, and says so.
      hours.push_back(
          {id, h, fmt::format("{:.1f} h{}", h, m.fits ? "" : ", does not fit"), !m.fits});
    }
  }
  return svg_stacked("Memory per device against what each machine lets it use", memory) +
         svg_log_bars("Hours per machine", hours);
}

std::string charts_of(const ServingEstimate& e) {
  std::vector<StackedRow> memory;
  std::vector<LogRow> speed;
  for (const ServingMachine& m : e.machines) {
    memory.push_back({m.device.id,
                      {{"weights", m.weights.value()},
                       {"KV cache", m.kv.value()},
                       {"workspace", m.workspace.value()},
                       {"runtime", m.runtime.value()}},
                      m.usable.value()});
    speed.push_back({m.device.id, m.decode_tokens_per_s,
                     fmt::format("{:.1f} tokens/s", m.decode_tokens_per_s)});
  }
  return svg_stacked("Memory per device", memory) +
         svg_log_bars("Decode tokens/s per sequence", speed);
}

}  // namespace tb::report
