// Options every subcommand shares, and the catalog they load.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/api/session.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::cli {

struct CommonOptions {
  std::string format{"table"};
  std::optional<std::string> hardware_dir;
};

void add_common_options(CLI::App& app, CommonOptions& options);

[[nodiscard]] report::Format format_of(const CommonOptions& options);

// The CLI's sources: the data folder, an extra device folder, the user's configuration, model
// paths, and repo ids fetched from the Hugging Face Hub with a line on stderr while a fetch is
// slow.
[[nodiscard]] api::Sources cli_sources(const std::optional<std::string>& hardware_dir);

// A result's warnings and notes on stderr, one line each, fields spelled as flags.
void print_problems(const std::vector<Problem>& warnings, const std::vector<Problem>& notes);

// The columns text output may use: COLUMNS when set (20 or more), else the terminal's width when
// standard output is one, else 80 (piped); tables wider than that are stacked, lines wrapped.
[[nodiscard]] std::size_t text_width();

// Built-in devices plus the user's directory and --hardware-dir.
[[nodiscard]] HardwareCatalog load_catalog(const CommonOptions& options);

}  // namespace tb::cli
