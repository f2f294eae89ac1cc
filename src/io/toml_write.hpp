// Writing TOML: numbers that read back exactly, escaped strings and comments. Private to the io
// library (device and system files).
#pragma once

#include <string>
#include <string_view>

namespace tb::io {

// Shortest text that reads back as `v`, without the last-digit noise of a unit conversion
// (989.5e12 / 1e12): 15 significant digits round-trip any decimal of up to 15 digits.
[[nodiscard]] std::string number(double v);

// A TOML basic string: quotes, backslashes and control characters escaped (TOML 1.0, "String").
[[nodiscard]] std::string toml_string(std::string_view text);

// Text for a TOML comment, which allows no control characters but tab.
[[nodiscard]] std::string comment_text(std::string_view text);

}  // namespace tb::io
