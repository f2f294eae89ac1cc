// The built-in catalog compiled in: data/hardware, data/systems and data/kernels as the build
// found them (cmake/embed_catalog.cmake writes the table), so that a run opens no catalog file.
// Private to the io library.
#pragma once

#include <span>
#include <string_view>

namespace tb::io {

struct EmbeddedFile {
  std::string_view folder;  // "hardware", "systems" or "kernels"
  std::string_view name;    // "h100-sxm.toml"
  std::string_view text;
};

// Every file, by folder and then by name.
[[nodiscard]] std::span<const EmbeddedFile> embedded_catalog_files();

}  // namespace tb::io
