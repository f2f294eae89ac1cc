// Shared CLI options: output format and the hardware catalog's locations.
#include "common.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <string_view>

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

std::size_t text_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    std::size_t n = 0;
    const std::string_view text{columns};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc{} && end == text.data() + text.size() && n >= 20) return n;
  }
  winsize size{};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col >= 20) {
    return size.ws_col;
  }
  return 80;
}

}  // namespace tb::cli

namespace tb::cli {

api::Sources cli_sources(const std::optional<std::string>& hardware_dir) {
  api::Sources s;
  s.data_dir = io::data_dir();
  if (hardware_dir) s.hardware_dir = *hardware_dir;
  s.hub_fetch = true;
  s.fetch_progress = [](std::string_view line) { fmt::print(stderr, "{}\n", line); };
  return s;
}

}  // namespace tb::cli
