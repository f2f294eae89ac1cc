// CLI11's help, wrapped to the terminal: CLI11 2.1 lays options out in a name column and a
// description column but never breaks a line, so a description ran to 500 columns.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace tb::cli {

// `text` with every line longer than `width` broken as report::wrap_line breaks it: an option's
// description continues under its description column, a list of values after a '|'.
[[nodiscard]] std::string wrap_help(const std::string& text, std::size_t width);

// CLI11's formatter, its output passed through wrap_help at text_width().
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
};

}  // namespace tb::cli
