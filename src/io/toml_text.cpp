// The TOML pre-scan (toml_text.hpp says why) and the one TOML parse (our strict reader).
#include "toml_text.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace {

// Where the table header starting at text[open] ('[') ends (one past its last ']'), or npos
// when it is not "[key(.key)*]" / "[[key(.key)*]]" on one line with at most kMaxTomlKeyDepth
// parts: keys bare (A-Za-z0-9_-) or quoted ("..." with escapes, '...'), blanks around dots.
std::size_t toml_header_end(std::string_view text, std::size_t open) {
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

// One non-blank character outside strings and comments, checked against where values must
// start: returns what is wrong, or an empty string, and updates the value state.
std::string toml_value_step(char c, bool& expect_value, std::vector<char>& open) {
  const bool in_array = !open.empty() && open.back() == '[';
  if (expect_value) {
    switch (c) {
      case '#':
        if (in_array) return {};
        return "a comment where a value must be";
      case ']':
        if (!in_array) return "']' where a value must be";
        open.pop_back();
        expect_value = false;
        return {};
      case '[':
        open.push_back('[');
        return {};
      case '{':
        open.push_back('{');
        expect_value = false;
        return {};
      default:
        break;
    }
    constexpr std::string_view kValueStarts = "\"'+-0123456789tfin";
    if (kValueStarts.find(c) == std::string_view::npos) {
      return fmt::format("'{}' where a value must be", c);
    }
    expect_value = false;
    return {};
  }
  switch (c) {
    case '=':
      expect_value = true;
      return {};
    case ',':
      if (open.empty()) return "',' outside an array or inline table";
      if (in_array) expect_value = true;
      return {};
    case ']':
      if (!in_array) return "']' that closes nothing";
      open.pop_back();
      return {};
    case '}':
      if (open.empty() || open.back() != '{') return "'}' that closes nothing";
      open.pop_back();
      return {};
    default:
      return {};
  }
}

}  // namespace

std::string toml_prescan_problem(std::string_view text, std::string* ascii) {
  // Replacements for the non-ASCII sequences: (offset, length, text).
  struct Replacement {
    std::size_t at;
    std::size_t length;
    std::string text;
  };
  std::vector<Replacement> replacements;
  enum class State { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };
  State state = State::kCode;
  std::size_t line = 1;
  std::size_t key_dots = 0;  // dots between key parts on this line (not inside a number)
  bool line_start = true;    // only whitespace so far on this line
  // Where a value must come (after '=', '[' of an array, ',' in an array) and the arrays and
  // inline tables open around it: toml++ asserts (parse_value: !is_value_terminator) and, in
  // a release build, assumes that a value starts there -- "a = [}" is undefined behaviour.
  bool expect_value = false;
  std::vector<char> open;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  // Inside a string or a comment, plain ASCII (no quote, no backslash, no control) moves nothing
  // but the position: skipped in one run.
  const auto plain = [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return u >= 0x20 && u < 0x7f && ch != '"' && ch != '\'' && ch != '\\';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (state != State::kCode && plain(c)) {
      while (i + 1 < text.size() && plain(text[i + 1])) ++i;
      continue;
    }
    const std::string_view rest = text.substr(i);
    if (c == '\n') {
      if (state == State::kCode || state == State::kComment) {
        if (expect_value && open.empty()) return fmt::format("line {}: a key with no value", line);
        if (!open.empty() && open.back() == '{') {
          return fmt::format("line {}: an inline table must close on its line", line);
        }
      }
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
        if (line_start && c == '[' && open.empty() && !expect_value) {
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
        if (c == ' ' || c == '\t' || c == '\r') break;
        line_start = false;
        // A value that starts with a digit and holds ':' or a '-' outside an exponent is a date
        // or time: no field of ours is one, and toml++ asserts on some broken ones (parse_value:
        // "8507-02-o2 7", found by the device-TOML fuzz target).
        if (expect_value && is_digit(c)) {
          const std::size_t end = std::min(text.find_first_of(" \t\r\n,]}#", i), text.size());
          const std::string_view token = text.substr(i, end - i);
          for (std::size_t k = 1; k < token.size(); ++k) {
            if (token[k] == ':' ||
                (token[k] == '-' && token[k - 1] != 'e' && token[k - 1] != 'E')) {
              return fmt::format("line {}: a date or time value (no field here is one)", line);
            }
          }
        }
        if (const std::string problem = toml_value_step(c, expect_value, open); !problem.empty()) {
          return fmt::format("line {}: {}", line, problem);
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
        if (static_cast<unsigned char>(c) >= 0x80) replacements.push_back({i, 1, "?"});
        break;
      case State::kBasic:
      case State::kMultiBasic:
        if (static_cast<unsigned char>(c) >= 0x80) {
          char32_t cp = 0;
          const std::size_t n = utf8_sequence(text, i, cp);
          if (n == 0)
            return fmt::format("line {}: a string holding bytes that are not UTF-8", line);
          const auto code = static_cast<std::uint32_t>(cp);
          replacements.push_back(
              {i, n,
               cp > 0xFFFF ? fmt::format("\\U{:08X}", code) : fmt::format("\\u{:04X}", code)});
          i += n - 1;
        } else if (c == '\\') {
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
      case State::kMultiLiteral:
        if (static_cast<unsigned char>(c) >= 0x80) {
          return fmt::format(
              "line {}: a non-ASCII character in a 'literal string' (write it in a \"basic "
              "string\", where it can be escaped)",
              line);
        }
        if (state == State::kLiteral && c == '\'') {
          state = State::kCode;
        } else if (state == State::kMultiLiteral && rest.starts_with("'''")) {
          state = State::kCode;
          i += 2;
        }
        break;
    }
  }
  if (expect_value && open.empty() && state == State::kCode) {
    return fmt::format("line {}: a key with no value", line);
  }
  if (ascii != nullptr) {
    ascii->clear();
    ascii->reserve(text.size());
    std::size_t from = 0;
    for (const Replacement& r : replacements) {
      ascii->append(text.substr(from, r.at - from));
      ascii->append(r.text);
      from = r.at + r.length;
    }
    ascii->append(text.substr(from));
  }
  return {};
}

TomlTable parse_toml_text(std::string_view text, const std::string& origin) {
  if (const std::string problem = toml_prescan_problem(text, nullptr); !problem.empty()) {
    throw DataError(origin, {fmt::format("TOML refused at {}", problem)});
  }
  return read_toml(text, origin);
}

}  // namespace tb::io
