// Options every subcommand shares, and the catalog they load.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "trainbudget/report/format.hpp"
#include "trainbudget/spec/catalog.hpp"

namespace tb::cli {

struct CommonOptions {
  std::string format{"table"};
  std::optional<std::string> hardware_dir;
};

void add_common_options(CLI::App& app, CommonOptions& options);

[[nodiscard]] report::Format format_of(const CommonOptions& options);

// Built-in devices plus the user's directory and --hardware-dir.
[[nodiscard]] HardwareCatalog load_catalog(const CommonOptions& options);

}  // namespace tb::cli
