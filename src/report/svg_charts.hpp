// Two chart kinds as standalone SVG text, for the HTML report (--format html): stacked bars
// against a capacity mark, and bars on a log axis. Private to the report library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb::report {

struct StackedRow {
  std::string label;
  std::vector<std::pair<std::string, double>> parts;  // name, bytes
  double capacity{0.0};                               // 0: no mark
};
[[nodiscard]] std::string svg_stacked(const std::string& title,
                                      const std::vector<StackedRow>& rows);

struct LogRow {
  std::string label;
  double value{0.0};  // <= 0: not drawn
  std::string text;   // printed after the bar
  bool muted{false};  // drawn grey: a time for a job that cannot run there (does not fit)
};
[[nodiscard]] std::string svg_log_bars(const std::string& title, const std::vector<LogRow>& rows);

// &, <, >, " and ' as entities.
[[nodiscard]] std::string html_escape(std::string_view text);

}  // namespace tb::report
