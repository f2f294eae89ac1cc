// The profile folder's checks and housekeeping.
#include "trainbudget/io/save_dir.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace fs = std::filesystem;

namespace {
// The name write_file_atomically() gives a temporary: "." + file name + ".tmp-" + 6 characters
// from mkstemp.
bool is_temporary(const std::string& name) {
  const std::size_t tag = name.rfind(".tmp-");
  return name.starts_with('.') && tag != std::string::npos && name.size() == tag + 11 &&
         name.substr(0, tag).ends_with(".toml");
}
}  // namespace

void prepare_save_dir(const fs::path& dir, std::string_view field) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string from = xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()
                               ? fmt::format(" (from XDG_CONFIG_HOME={})", shown(xdg))
                               : std::string{};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw InvalidRequest(std::string{field}, fmt::format("cannot create the hardware folder {}{}: "
                                                         "{}",
                                                         shown(dir), from, ec.message()));
  }
  if (!fs::is_directory(dir, ec)) {
    throw InvalidRequest(std::string{field}, fmt::format("{}{} is not a folder", shown(dir), from));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw InvalidRequest(std::string{field},
                         fmt::format("cannot write to the hardware folder {}{}: {}", shown(dir),
                                     from, std::generic_category().message(errno)));
  }
}

std::size_t remove_stale_temporaries(const fs::path& dir, std::chrono::seconds age) {
  std::size_t removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code entry_ec;
    if (!is_temporary(entry.path().filename().string())) continue;
    if (!entry.is_regular_file(entry_ec) || entry_ec) continue;
    const auto written = entry.last_write_time(entry_ec);
    if (entry_ec || now - written < age) continue;
    if (fs::remove(entry.path(), entry_ec)) ++removed;
  }
  return removed;
}

}  // namespace tb::io
