// Every TOML file trainbudget reads (device, system and kernel-class files, model presets) is
// parsed here: a linear pre-scan first (it refuses non-ASCII outside strings and comments, keys
// deeper than any schema here, malformed table headers and dates, each with its line), then our
// strict reader (toml_reader.hpp). The pre-scan was written to keep toml++ 3.3 (Debian 12) from
// its stack overflows and assertions on such text (found by tests/fuzz); the reader now replaces
// toml++, and the pre-scan's messages stay as they were. Private to the io library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "toml_reader.hpp"

namespace tb::io {

// Dotted parts in one key or table header; our schemas use 3 ("[compute.bf16]", a preset's
// "[config.text_config]").
inline constexpr std::size_t kMaxTomlKeyDepth = 32;

// The first problem of the pre-scan, or an empty string. With `ascii`, also the text toml++ is
// given: the same document in ASCII only -- non-ASCII characters in basic strings as their
// \uXXXX / \UXXXXXXXX escapes (TOML 1.0: the same string), in comments as '?' (ignored) --
// so that toml++'s non-ASCII code (is_non_ascii_horizontal_whitespace reaches
// __builtin_unreachable for U+00A1..U+0499) never runs, even where a broken document makes its
// reading of strings differ from ours. Non-ASCII in a literal string, which has no escapes, is
// a problem.
[[nodiscard]] std::string toml_prescan_problem(std::string_view text, std::string* ascii = nullptr);

// The table of a TOML text after the pre-scan; DataError naming `origin` for a refusal or a
// syntax error.
[[nodiscard]] TomlTable parse_toml_text(std::string_view text, const std::string& origin);

}  // namespace tb::io
