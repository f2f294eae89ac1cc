// Every TOML file trainbudget reads (device files, model presets) is parsed here. toml++ 3.3
// (Debian 12) caps the nesting of arrays and inline tables, but not of dotted keys and table
// headers, whose depth it walks recursively (a 44 KB "[t.t.t...]" overflows the stack), and it
// fails on some non-ASCII bytes outside strings (U+0169 as whitespace, U+FFFB in a header:
// undefined behaviour and an assertion; found by tests/fuzz). TOML 1.0 allows non-ASCII only in
// strings and comments, so a linear pre-scan refuses it elsewhere, and refuses keys deeper than
// any schema here, before toml++ sees the text. toml++ also asserts (parser.inl, parse_key) on
// any character in a table header that is not a key's ("[# x", "[*a", a NUL): inside a header
// the pre-scan allows only bare-key characters (A-Za-z0-9_-), dots, blanks, brackets and quoted
// keys. Private to the io library.
#pragma once

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "trainbudget/spec/error.hpp"

namespace tb::io {

// Dotted parts in one key or table header; our schemas use 3 ("[compute.bf16]", a preset's
// "[config.text_config]").
inline constexpr std::size_t kMaxTomlKeyDepth = 32;

// The first problem of the pre-scan, or an empty string.
inline std::string toml_prescan_problem(std::string_view text) {
  enum class State { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  State state = State::kCode;
  std::size_t line = 1;
  std::size_t key_dots = 0;  // dots between key parts on this line (not inside a number)
  bool line_start = true;    // only whitespace so far on this line
  bool in_header = false;    // inside a "[table]" header that opened this line
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  // TOML 1.0 bare keys (A-Za-z0-9_-), the dots and blanks between them, the header's own
  // brackets, and the quotes that open a quoted key.
  const auto is_header_character = [&](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
           c == '-' || c == '.' || c == ' ' || c == '\t' || c == '[' || c == ']' || c == '"' ||
           c == '\'';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const std::string_view rest = text.substr(i);
    if (c == '\n') {
      ++line;
      key_dots = 0;
      line_start = true;
      in_header = false;
      if (state == State::kComment || state == State::kBasic || state == State::kLiteral) {
        state = State::kCode;  // a single-line string cannot span lines: toml++ reports it
      }
      continue;
    }
    switch (state) {
      case State::kCode:
        if (static_cast<unsigned char>(c) >= 0x80) {
          return fmt::format("line {}: a non-ASCII character outside a string or comment", line);
        }
        if (line_start && c == '[') in_header = true;
        if (c != ' ' && c != '\t' && c != '\r') line_start = false;
        if (c == ']') in_header = false;
        if (in_header && !is_header_character(c)) {
          return fmt::format("line {}: a table header holds a character no key may hold", line);
        }
        if (c == '#') {
          state = State::kComment;
        } else if (rest.starts_with("\"\"\"")) {
          state = State::kMultiBasic;
          i += 2;
        } else if (rest.starts_with("'''")) {
          state = State::kMultiLiteral;
          i += 2;
        } else if (c == '"') {
          state = State::kBasic;
        } else if (c == '\'') {
          state = State::kLiteral;
        } else if (c == '.' && !(i > 0 && is_digit(text[i - 1]) && i + 1 < text.size() &&
                                 is_digit(text[i + 1]))) {
          if (++key_dots > kMaxTomlKeyDepth) {
            return fmt::format("line {}: keys nested more than {} levels deep", line,
                               kMaxTomlKeyDepth);
          }
        }
        break;
      case State::kComment:
        break;
      case State::kBasic:
      case State::kMultiBasic:
        if (c == '\\') {
          ++i;  // the escaped character, whatever it is (a newline is counted on the next pass)
          if (i < text.size() && text[i] == '\n') ++line;
        } else if (state == State::kBasic && c == '"') {
          state = State::kCode;
        } else if (state == State::kMultiBasic && rest.starts_with("\"\"\"")) {
          state = State::kCode;
          i += 2;
        }
        break;
      case State::kLiteral:
        if (c == '\'') state = State::kCode;
        break;
      case State::kMultiLiteral:
        if (rest.starts_with("'''")) {
          state = State::kCode;
          i += 2;
        }
        break;
    }
  }
  return {};
}

inline toml::table parse_toml_text(std::string_view text, const std::string& origin) {
  if (const std::string problem = toml_prescan_problem(text); !problem.empty()) {
    throw DataError(origin, {fmt::format("TOML refused at {}", problem)});
  }
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw DataError(origin, {fmt::format("TOML syntax error at line {}, column {}: {}", where.line,
                                         where.column, e.description())});
  }
}

}  // namespace tb::io
