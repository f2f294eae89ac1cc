// Reading a system file (data/systems/*.toml, docs/systems.md).
#pragma once

#include <filesystem>

#include "trainbudget/spec/system.hpp"

namespace tb::io {

// One system file. Throws DataError naming the file and listing every problem found.
[[nodiscard]] System load_system_file(const std::filesystem::path& file);

}  // namespace tb::io
