// excerpt(), printable() and json_nesting_depth(): linear scans, no allocation beyond the result.
#include "trainbudget/spec/excerpt.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tb {
namespace {

// Appends text[i..] escaped, stopping before `limit` input bytes; returns where it stopped.
// With `quote_braces`, { and } are doubled, so that a message's field references ({key}) are
// never read in a user's own text (render_refs() turns {{ back into {).
std::size_t append_escaped(std::string& out, std::string_view text, std::size_t limit,
                           bool double_backslashes = true, bool quote_braces = false) {
  std::size_t i = 0;
  while (i < text.size() && i < limit) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      char32_t code_point = 0;
      const std::size_t n = utf8_sequence(text, i, code_point);
      if (n == 0) {
        out += fmt::format("\\x{:02X}", c);
        ++i;
      } else {
        if (i + n > limit) break;
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += double_backslashes ? "\\\\" : "\\";
        break;
      case '{':
        out += quote_braces ? "{{" : "{";
        break;
      case '}':
        out += quote_braces ? "}}" : "}";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02X}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return i;
}

}  // namespace

std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    code_point = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    code_point = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
    if (b0 == 0xED) hi = 0x9F;  // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    code_point = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;  // no overlong 4-byte forms
    if (b0 == 0xF4) hi = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
  }
  return n;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 24);
  const std::size_t stop = append_escaped(out, text, max_bytes, true, true);
  if (stop < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text, text.size());
  return out;
}

std::string one_line(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 24);
  const std::size_t stop = append_escaped(out, text, max_bytes, false);
  if (stop < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::size_t json_nesting_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace tb
