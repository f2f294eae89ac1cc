// Shared CLI options: output format and the hardware catalog's locations.
#include "common.hpp"

#include <iostream>

#include "fields.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::cli {

void print_problems(const std::vector<Problem>& warnings, const std::vector<Problem>& notes) {
  for (const Problem& w : warnings) {
    std::cerr << "trainbudget: warning: " << one_line(render_for_cli(w)) << '\n';
  }
  for (const Problem& n : notes) {
    std::cerr << "trainbudget: note: " << one_line(render_for_cli(n)) << '\n';
  }
}

void add_common_options(CLI::App& app, CommonOptions& options) {
  app.add_option("--format", options.format,
                 "Output: table (for people), json (docs/json.md), csv, markdown, html")
      ->type_name("FORMAT")
      ->default_val("table");
  app.add_option("--hardware-dir", options.hardware_dir,
                 "Extra folder of device TOML files (docs/hardware-catalog.md); also read: "
                 "$XDG_CONFIG_HOME/trainbudget/hardware (default ~/.config/trainbudget/hardware)")
      ->type_name("DIR");
}

report::Format format_of(const CommonOptions& options) {
  return report::parse_format(options.format);
}

HardwareCatalog load_catalog(const CommonOptions& options) {
  std::optional<std::filesystem::path> dir;
  if (options.hardware_dir) dir = *options.hardware_dir;
  return io::load_catalog(io::default_catalog_sources(dir));
}

}  // namespace tb::cli
