// Writing TOML (toml_write.hpp).
#include "toml_write.hpp"

#include <fmt/format.h>

namespace tb::io {

std::string number(double v) { return fmt::format("{:.15g}", v); }

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(ch)));
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& ch : out) {
    if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7F) ch = ' ';
  }
  return out;
}

}  // namespace tb::io
