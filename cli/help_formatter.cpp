// CLI11's help wrapped to the terminal's width (help_formatter.hpp).
#include "help_formatter.hpp"

#include <sstream>

#include "common.hpp"
#include "trainbudget/report/text_table.hpp"

namespace tb::cli {

std::string wrap_help(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    for (const std::string& l : report::wrap_line(line, width)) out += l + '\n';
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::string WrappingFormatter::make_help(const CLI::App* app, std::string name,
                                         CLI::AppFormatMode mode) const {
  return wrap_help(CLI::Formatter::make_help(app, std::move(name), mode), text_width());
}

}  // namespace tb::cli
