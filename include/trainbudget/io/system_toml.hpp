// Reading a system file (data/systems/*.toml, docs/systems.md).
#pragma once

#include <filesystem>
#include <string>

#include "trainbudget/spec/system.hpp"

namespace tb::io {

// One system file. Throws DataError naming the file and listing every problem found.
[[nodiscard]] System load_system_file(const std::filesystem::path& file);
// The same from text; `origin` names it in messages and its stem must equal the id.
// `builtin` as parse_device_toml's.
[[nodiscard]] System parse_system_toml(std::string_view text, const std::string& origin,
                                       bool builtin = false);

// The system as a file in the same schema (load_system_file reads it back equal): links with
// their sources, and [measured] with a [[measured.curve]] per collective and tier.
[[nodiscard]] std::string system_toml(const System& system);

// Writes system_toml() to dir/<id>.toml atomically (a temporary file renamed over it: an
// interrupted save leaves the old file or none); returns the path.
std::filesystem::path save_system(const System& system, const std::filesystem::path& dir);

}  // namespace tb::io
