// Loading hardware TOML files (data/hardware/*.toml and users' own); the schema itself is
// device_toml.hpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/io/device_toml.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::io {

// One device file. Throws DataError naming the file and listing every problem found.
[[nodiscard]] Device load_device_file(const std::filesystem::path& file);

// The *.toml files directly in `dir`, sorted by name; DataError when it cannot be listed.
[[nodiscard]] std::vector<std::filesystem::path> toml_files_in(const std::filesystem::path& dir);

// Every *.toml in `dir`, sorted by name. Throws DataError for the first broken file.
[[nodiscard]] std::vector<Device> load_device_dir(const std::filesystem::path& dir);

// The shipped data folder: $TRAINBUDGET_DATA_DIR, else the source tree's data/ (a build),
// else the install prefix's share/trainbudget/data.
[[nodiscard]] std::filesystem::path data_dir();

// $XDG_CONFIG_HOME/trainbudget/hardware, else ~/.config/trainbudget/hardware; nullopt when
// neither variable is set.
[[nodiscard]] std::optional<std::filesystem::path> user_hardware_dir();

struct CatalogSources {
  // A data folder's hardware/ (systems/ and kernels/ beside it); empty: the catalog compiled
  // into the binary from data/ at build time (the default: a run opens no catalog file).
  std::filesystem::path builtin_dir;
  std::vector<std::filesystem::path> user_dirs;  // later ones override earlier ones
};

// The sources a run uses: built-in, then the user's directory (if present), then --hardware-dir.
[[nodiscard]] CatalogSources default_catalog_sources(
    const std::optional<std::filesystem::path>& hardware_dir);

// Built-in devices plus user devices (same id replaces ours). A missing user dir is fine; a
// --hardware-dir that does not exist is an error.
[[nodiscard]] HardwareCatalog load_catalog(const CatalogSources& sources);

}  // namespace tb::io
