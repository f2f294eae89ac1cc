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

// Where the table header starting at text[open] ('[') ends (one past its last ']'), or npos
// when it is not "[key(.key)*]" / "[[key(.key)*]]" on one line with at most kMaxTomlKeyDepth
// parts: keys bare (A-Za-z0-9_-) or quoted ("..." with escapes, '...'), blanks around dots.
inline std::size_t toml_header_end(std::string_view text, std::size_t open) {
  const auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\n'; };
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  const auto bare = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  };
  std::size_t k = open + 1;
  const bool array = at(k) == '[';
  if (array) ++k;
  for (std::size_t parts = 1;; ++parts) {
    if (parts > kMaxTomlKeyDepth) return std::string_view::npos;
    while (blank(at(k))) ++k;
    if (bare(at(k))) {
      while (bare(at(k))) ++k;
    } else if (at(k) == '"' || at(k) == '\'') {
      const char quote = at(k++);
      while (at(k) != quote) {
        if (at(k) == '\n' || k >= text.size()) return std::string_view::npos;
        if (quote == '"' && at(k) == '\\') ++k;
        ++k;
      }
      ++k;
    } else {
      return std::string_view::npos;  // an empty part: "[]", "[a.]", "[.a]"
    }
    while (blank(at(k))) ++k;
    if (at(k) == '.') {
      ++k;
      continue;
    }
    if (at(k) != ']') return std::string_view::npos;
    ++k;
    if (array) {
      if (at(k) != ']') return std::string_view::npos;
      ++k;
    }
    return k;
  }
}

// The first problem of the pre-scan, or an empty string.
inline std::string toml_prescan_problem(std::string_view text) {
  enum class State { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  State state = State::kCode;
  std::size_t line = 1;
  std::size_t key_dots = 0;  // dots between key parts on this line (not inside a number)
  bool line_start = true;    // only whitespace so far on this line
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const std::string_view rest = text.substr(i);
    if (c == '\n') {
      ++line;
      key_dots = 0;
      line_start = true;
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
        if (line_start && c == '[') {
          const std::size_t end = toml_header_end(text, i);
          if (end == std::string_view::npos) {
            return fmt::format(
                "line {}: a table header that is not [a.b] or [[a.b]] (at most "
                "{} keys) on one line",
                line, kMaxTomlKeyDepth);
          }
          i = end - 1;  // the closing bracket; the loop steps past it
          line_start = false;
          continue;
        }
        if (c != ' ' && c != '\t' && c != '\r') line_start = false;
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
