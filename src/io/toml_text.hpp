// Every TOML file trainbudget reads (device files, model presets) is parsed here. toml++ 3.3
// (Debian 12) caps the nesting of arrays and inline tables, but not of dotted keys and table
// headers, whose depth it walks recursively (a 44 KB "[t.t.t...]" overflows the stack), and it
// fails on some non-ASCII bytes outside strings (U+0169 as whitespace, U+FFFB in a header:
// undefined behaviour and an assertion; found by tests/fuzz). TOML 1.0 allows non-ASCII only in
// strings and comments, so a linear pre-scan refuses it elsewhere, and refuses keys deeper than
// any schema here, before toml++ sees the text. toml++ also asserts (parser.inl, parse_key) on
// a table header that does not start with a key ("[# x", "[*a", "[]", "[" then a newline): the
// pre-scan reads every header itself and refuses one that is not [key.key] on one line.
// Private to the io library.
#pragma once
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <string>
#include <string_view>

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
[[nodiscard]] toml::table parse_toml_text(std::string_view text, const std::string& origin);

}  // namespace tb::io
