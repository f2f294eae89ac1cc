// Device files and folders, the shipped data folder, and the catalog they make.
#include "trainbudget/io/hardware_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catalog_index.hpp"
#include "embedded_catalog.hpp"
#include "trainbudget/build_info.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/io/kernel_class_toml.hpp"
#include "trainbudget/io/system_toml.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace fs = std::filesystem;

Device load_device_file(const fs::path& file) {
  return parse_device_toml(read_regular_file(file, kMaxTomlBytes), shown(file));
}

std::vector<fs::path> toml_files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".toml") continue;
    // A *.toml that is a symlink loop or a FIFO is named, not skipped or blocked on.
    std::error_code entry_ec;
    const fs::file_status status = entry.status(entry_ec);
    if (entry_ec) {
      throw DataError(shown(entry.path()), {fmt::format("cannot be read: {}", entry_ec.message())});
    }
    if (status.type() == fs::file_type::directory) continue;
    files.push_back(entry.path());
  }
  if (ec) throw DataError(shown(dir), {fmt::format("cannot be listed: {}", ec.message())});
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Device> load_device_dir(const fs::path& dir) {
  const std::vector<fs::path> files = toml_files_in(dir);
  std::vector<Device> out;
  out.reserve(files.size());
  for (const fs::path& f : files) out.push_back(load_device_file(f));
  return out;
}

fs::path data_dir() {
  if (const char* env = std::getenv("TRAINBUDGET_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  if (fs::is_directory(build_info::kSourceDataDir, ec)) return build_info::kSourceDataDir;
  return build_info::kInstallDataDir;
}

std::optional<fs::path> user_hardware_dir() {
  // XDG Base Directory Specification 0.8: "If an implementation encounters a relative path in
  // any of these variables it should consider the path invalid and ignore it" -- then the
  // default $HOME/.config applies, as when the variable is unset or empty.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME");
      xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()) {
    return fs::path(xdg) / "trainbudget" / "hardware";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".config" / "trainbudget" / "hardware";
  }
  return std::nullopt;
}

CatalogSources default_catalog_sources(const std::optional<fs::path>& hardware_dir) {
  CatalogSources s;
  // The built-in catalog compiled in (builtin_dir empty).
  if (auto user = user_hardware_dir()) s.user_dirs.push_back(*user);
  if (hardware_dir) {
    std::error_code ec;
    if (!fs::is_directory(*hardware_dir, ec)) {
      throw InvalidRequest("hardware_dir",
                           fmt::format("'{}' is not a directory", shown(*hardware_dir)));
    }
    s.user_dirs.push_back(*hardware_dir);
  }
  return s;
}

namespace {

// A built-in file as messages name it: data/hardware/h100-sxm.toml.
std::string builtin_origin(const EmbeddedFile& f) {
  return fmt::format("data/{}/{}", f.folder, f.name);
}

std::string_view file_of(const std::string& origin);

// A compiled-in device: its file read as the build's tests read it, its id its file's name.
Device read_builtin_device(std::string_view text, const std::string& origin) {
  Device d = parse_device_toml(text, origin, true);
  if (file_of(origin) != d.id + ".toml") {
    throw DataError(origin, {fmt::format("id: '{}' is not the file's name", excerpt(d.id))});
  }
  return d;
}

std::string_view file_of(const std::string& origin) {
  return std::string_view{origin}.substr(origin.rfind('/') + 1);
}

// A compiled-in system: its id its file's name, its device the one the index read.
System read_builtin_system(std::string_view text, const std::string& origin) {
  System s = parse_system_toml(text, origin, true);
  if (file_of(origin) != s.id + ".toml" || top_level_string(text, "device") != s.device) {
    throw DataError(origin, {fmt::format("id '{}' or device '{}' is not what the catalog's index "
                                         "read from the file",
                                         excerpt(s.id), excerpt(s.device))});
  }
  return s;
}

// A compiled-in kernel class: its id its file's name, its devices and categories the index's.
KernelClass read_builtin_kernel_class(std::string_view text, const std::string& origin) {
  KernelClass k = parse_kernel_class_toml(text, origin, true);
  if (file_of(origin) != k.id + ".toml" || top_level_ids(text, "devices") != k.devices ||
      top_level_ids(text, "categories") != k.categories) {
    throw DataError(origin, {fmt::format("id '{}', devices or categories are not what the "
                                         "catalog's index read from the file",
                                         excerpt(k.id))});
  }
  return k;
}

// The compiled-in systems and kernel classes, each read when a run first asks for it: what
// lookups need (a system's device, a class's devices and categories) comes from the index, and
// the catalog's rules are checked on it (a system's device exists, no device in two classes).
void builtin_sources(const std::vector<DeviceSource>& devices, std::vector<SystemSource>& systems,
                     std::vector<KernelClassSource>& classes) {
  const auto known = [&](const std::string& id) {
    return std::any_of(devices.begin(), devices.end(),
                       [&](const DeviceSource& d) { return d.id == id; });
  };
  std::vector<std::pair<std::string, std::string>> listed;  // device, class
  for (const EmbeddedFile& f : embedded_catalog_files()) {
    const std::string origin = builtin_origin(f);
    const std::string id{f.name.substr(0, f.name.size() - 5)};
    if (f.folder == "systems") {
      std::string device = top_level_string(f.text, "device");
      if (!known(device)) {
        throw DataError(
            origin, {fmt::format("device: '{}' is not in the hardware catalog", excerpt(device))});
      }
      systems.push_back({id, f.text, origin, &read_builtin_system, {std::move(device)}, {}});
    } else if (f.folder == "kernels") {
      std::vector<std::string> ids = top_level_ids(f.text, "devices");
      for (const std::string& d : ids) {
        for (const auto& [other_device, other_class] : listed) {
          if (other_device == d) {
            throw DataError(origin, {fmt::format("devices: '{}' is already in the class '{}'",
                                                 excerpt(d), other_class)});
          }
        }
        listed.emplace_back(d, id);
      }
      classes.push_back({id, f.text, origin, &read_builtin_kernel_class, std::move(ids),
                         top_level_ids(f.text, "categories")});
    }
  }
}

void put_system(HardwareCatalog& catalog, System s, const std::string& origin) {
  if (!catalog.contains(s.device)) {
    const std::vector<std::string> near = catalog.closest(s.device, 3);
    throw DataError(origin, {fmt::format("device: '{}' is not in the hardware catalog; closest: {}",
                                         excerpt(s.device), fmt::join(near, ", "))});
  }
  catalog.put(std::move(s));
}

void put_kernel_class(HardwareCatalog& catalog, KernelClass k, const std::string& origin) {
  // Listed by another class (a category's class does not count: reading devices is lazy).
  for (const std::string& id : k.devices) {
    for (const KernelClass& other : catalog.kernel_classes()) {
      if (std::find(other.devices.begin(), other.devices.end(), id) != other.devices.end()) {
        throw DataError(origin, {fmt::format("devices: '{}' is already in the class '{}'",
                                             excerpt(id), other.id)});
      }
    }
  }
  catalog.put(std::move(k));
}

}  // namespace

HardwareCatalog load_catalog(const CatalogSources& sources) {
  // The built-in catalog: compiled in (an empty builtin_dir), or a data folder's files.
  const bool embedded = sources.builtin_dir.empty();
  std::error_code ec;
  if (!embedded && !fs::is_directory(sources.builtin_dir, ec)) {
    throw DataError(sources.builtin_dir.string(),
                    {"the built-in hardware catalog is missing (set TRAINBUDGET_DATA_DIR to the "
                     "folder that holds hardware/)"});
  }
  // Compiled in: each device is read when a run first asks for it (the build's tests read them
  // all); its id is its file's name, which reading it checks.
  HardwareCatalog catalog;
  if (embedded) {
    std::vector<DeviceSource> lazy;
    for (const EmbeddedFile& f : embedded_catalog_files()) {
      if (f.folder != "hardware" || !f.name.ends_with(".toml")) continue;
      lazy.push_back({std::string{f.name.substr(0, f.name.size() - 5)},
                      f.text,
                      builtin_origin(f),
                      &read_builtin_device,
                      {},
                      {}});
    }
    std::vector<SystemSource> systems;
    std::vector<KernelClassSource> classes;
    builtin_sources(lazy, systems, classes);
    catalog = HardwareCatalog(std::move(lazy), std::move(systems), std::move(classes));
  } else {
    catalog = HardwareCatalog(load_device_dir(sources.builtin_dir));
  }
  for (const fs::path& dir : sources.user_dirs) {
    // Absent (or under a file, ENOTDIR): nothing to read. A loop or a file in its place is
    // named, since it hides the user's devices.
    const fs::file_status status = fs::status(dir, ec);
    if (ec == std::errc::not_a_directory || status.type() == fs::file_type::not_found) continue;
    if (ec) throw DataError(shown(dir), {fmt::format("cannot be read: {}", ec.message())});
    if (status.type() != fs::file_type::directory) {
      throw DataError(shown(dir),
                      {fmt::format("is {}, not a folder of device TOML files", kind_of(status))});
    }
    for (Device& d : load_device_dir(dir)) catalog.put(std::move(d));
  }
  // Systems (node shapes) sit beside the devices: data/systems; then the user's own (measured
  // with `measure --fabric --save`) in a systems/ folder inside each user hardware directory.
  std::vector<fs::path> system_dirs;
  if (!embedded) system_dirs.push_back(sources.builtin_dir.parent_path() / "systems");
  for (const fs::path& dir : sources.user_dirs) system_dirs.push_back(dir / "systems");
  for (const fs::path& systems : system_dirs) {
    if (!fs::is_directory(systems, ec)) continue;
    for (const fs::path& file : toml_files_in(systems)) {
      put_system(catalog, load_system_file(file), shown(file));
    }
  }
  // Kernel classes (data/kernels): what the analytic step-time backend prices kernels with.
  if (embedded) return catalog;
  const fs::path kernels = sources.builtin_dir.parent_path() / "kernels";
  if (fs::is_directory(kernels, ec)) {
    for (const fs::path& file : toml_files_in(kernels)) {
      put_kernel_class(catalog, load_kernel_class_file(file), shown(file));
    }
  }
  return catalog;
}

}  // namespace tb::io
