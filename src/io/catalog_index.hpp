// What a compiled-in system or kernel-class file says about the devices it serves, read from
// its text without parsing it (the catalog reads the file itself only when a run needs it;
// hardware_loader.cpp checks, when it does, that the parse agrees). Private to the io library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tb::io {

// The value of a top-level `KEY = "value"` line (before the first table header), or "".
[[nodiscard]] std::string top_level_string(std::string_view text, std::string_view key);

// The strings of a top-level array `KEY = [...]`: on one line ("cpu", "gpu"), or one entry per
// line until a line holding only `]`, each a string or an inline table whose `id = "..."` is
// taken. Empty when the key is absent.
[[nodiscard]] std::vector<std::string> top_level_ids(std::string_view text, std::string_view key);

}  // namespace tb::io
