// The strict TOML reader (toml_reader.hpp says what it reads and refuses). A recursive-descent
// parser over the text, one pass; recursion only through arrays and inline tables, bounded by
// kMaxTomlKeyDepth.
#include "toml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "toml_text.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {

std::size_t TomlTable::position(std::string_view key) const {
  if (!index.empty()) {
    const auto it = index.find(std::string{key});
    return it == index.end() ? std::string::npos : it->second;
  }
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (keys[k] == key) return k;
  }
  return std::string::npos;
}

void TomlTable::add(std::string key, TomlValue value) {
  keys.push_back(std::move(key));
  values.push_back(std::move(value));
  if (!index.empty()) {
    index.emplace(keys.back(), keys.size() - 1);
  } else if (keys.size() >= kIndexFrom) {
    for (std::size_t k = 0; k < keys.size(); ++k) index.emplace(keys[k], k);
  }
}

const TomlValue* TomlTable::get(std::string_view key) const {
  const std::size_t k = position(key);
  return k == std::string::npos ? nullptr : &values[k];
}

const TomlTable* TomlTable::table(std::string_view key) const {
  const TomlValue* v = get(key);
  return v != nullptr ? v->as_table() : nullptr;
}

const std::vector<TomlValue>* TomlTable::array(std::string_view key) const {
  const TomlValue* v = get(key);
  return v != nullptr ? v->as_array() : nullptr;
}

namespace {

using Kind = TomlValue::Kind;
using Origin = TomlValue::Origin;

bool bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}
bool digit(char c) { return c >= '0' && c <= '9'; }

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

TomlValue table_value(Origin origin) {
  TomlValue v;
  v.kind = Kind::kTable;
  v.origin = origin;
  return v;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin) : s_{text}, origin_{origin} {}

  TomlTable document() {
    TomlTable root;
    TomlTable* current = &root;
    while (!at_end()) {
      skip_blank();
      if (at_end()) break;
      if (newline()) continue;
      if (peek() == '#') {
        skip_comment();
        continue;
      }
      if (peek() == '[') {
        current = header(root);
      } else {
        keyval(*current, 0);
      }
      end_of_line();
    }
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(origin_, {fmt::format("TOML syntax error at line {}: {}", line_, what)});
  }
  [[nodiscard]] bool at_end() const { return i_ >= s_.size(); }
  [[nodiscard]] char peek(std::size_t k = 0) const {
    return i_ + k < s_.size() ? s_[i_ + k] : '\0';
  }
  [[nodiscard]] std::string shown_here() const {
    if (at_end()) return "the end of the file";
    return fmt::format("'{}'", excerpt(s_.substr(i_, 1)));
  }
  void skip_blank() {
    while (peek() == ' ' || peek() == '\t') ++i_;
  }
  void skip_comment() {
    while (!at_end() && peek() != '\n') ++i_;
  }
  // Consumes a line ending (LF or CRLF) if one is next.
  bool newline() {
    if (peek() == '\n') {
      ++i_;
    } else if (peek() == '\r' && peek(1) == '\n') {
      i_ += 2;
    } else {
      return false;
    }
    ++line_;
    return true;
  }
  void end_of_line() {
    skip_blank();
    if (peek() == '#') skip_comment();
    if (at_end() || newline()) return;
    fail(fmt::format("{} after a complete line (one key = value or [header] per line)",
                     shown_here()));
  }
  // Blanks, line endings and comments (inside arrays).
  void skip_space() {
    for (;;) {
      skip_blank();
      if (peek() == '#') skip_comment();
      if (!newline()) return;
    }
  }
  void expect(char c, std::string_view what) {
    if (peek() != c) fail(fmt::format("{} where {} must be", shown_here(), what));
    ++i_;
  }

  // key = simple-key *( ws "." ws simple-key )
  std::vector<std::string> key() {
    std::vector<std::string> parts;
    for (;;) {
      skip_blank();
      if (parts.size() == kMaxTomlKeyDepth) {
        fail(fmt::format("keys nested more than {} levels deep", kMaxTomlKeyDepth));
      }
      if (peek() == '"') {
        if (peek(1) == '"' && peek(2) == '"') fail("a multi-line string as a key");
        parts.push_back(basic_string());
      } else if (peek() == '\'') {
        if (peek(1) == '\'' && peek(2) == '\'') fail("a multi-line string as a key");
        parts.push_back(literal_string());
      } else {
        const std::size_t start = i_;
        while (bare_key_char(peek())) ++i_;
        if (i_ == start) fail(fmt::format("{} where a key must be", shown_here()));
        parts.emplace_back(s_.substr(start, i_ - start));
      }
      skip_blank();
      if (peek() != '.') return parts;
      ++i_;
    }
  }

  // The table `key` names under `t` on the way to a header or a dotted key's last part.
  TomlTable& descend(TomlTable& t, const std::string& key, Origin create) {
    if (const std::size_t k = t.position(key); k != std::string::npos) {
      TomlValue& v = t.values[k];
      if (v.kind == Kind::kTable && v.origin != Origin::kClosed) return v.table;
      if (v.kind == Kind::kArray && v.table_array && !v.array.empty()) {
        return v.array.back().table;
      }
      fail(fmt::format("'{}' already holds a value, not a table", excerpt(key)));
    }
    t.add(key, table_value(create));
    return t.values.back().table;
  }

  TomlTable* header(TomlTable& root) {
    const bool array = peek(1) == '[';
    i_ += array ? 2 : 1;
    const std::vector<std::string> keys = key();
    expect(']', array ? "']]'" : "']'");
    if (array) expect(']', "']]'");
    TomlTable* t = &root;
    for (std::size_t k = 0; k + 1 < keys.size(); ++k) t = &descend(*t, keys[k], Origin::kImplicit);
    const std::string& last = keys.back();
    if (const std::size_t k = t->position(last); k != std::string::npos) {
      TomlValue& v = t->values[k];
      if (array && v.kind == Kind::kArray && v.table_array) {
        v.array.push_back(table_value(Origin::kHeader));
        return &v.array.back().table;
      }
      if (!array && v.kind == Kind::kTable && v.origin == Origin::kImplicit) {
        v.origin = Origin::kHeader;
        return &v.table;
      }
      fail(fmt::format("[{}] is defined twice", excerpt(last)));
    }
    if (array) {
      TomlValue list;
      list.kind = Kind::kArray;
      list.table_array = true;
      list.array.push_back(table_value(Origin::kHeader));
      t->add(last, std::move(list));
      return &t->values.back().array.back().table;
    }
    t->add(last, table_value(Origin::kHeader));
    return &t->values.back().table;
  }

  void keyval(TomlTable& t, std::size_t depth) {
    const std::vector<std::string> keys = key();
    expect('=', "'=' after a key");
    skip_blank();
    TomlTable* target = &t;
    for (std::size_t k = 0; k + 1 < keys.size(); ++k) {
      target = &descend(*target, keys[k], Origin::kDotted);
    }
    if (target->contains(keys.back())) {
      fail(fmt::format("'{}' is defined twice", excerpt(keys.back())));
    }
    target->add(keys.back(), value(depth));
  }

  TomlValue value(std::size_t depth) {
    if (depth >= kMaxTomlKeyDepth) {
      fail(fmt::format("values nested more than {} levels deep", kMaxTomlKeyDepth));
    }
    TomlValue v;
    const char c = peek();
    if (c == '"') {
      v.text = peek(1) == '"' && peek(2) == '"' ? multi_line_basic() : basic_string();
      return v;
    }
    if (c == '\'') {
      v.text = peek(1) == '\'' && peek(2) == '\'' ? multi_line_literal() : literal_string();
      return v;
    }
    if (c == '[') return array(depth);
    if (c == '{') return inline_table(depth);
    if (s_.substr(i_).starts_with("true") || s_.substr(i_).starts_with("false")) {
      const std::size_t n = c == 't' ? 4 : 5;
      if (bare_key_char(peek(n))) fail(fmt::format("{} is not a value", token_here()));
      v.kind = Kind::kBool;
      v.boolean = c == 't';
      v.text = std::string{s_.substr(i_, n)};
      i_ += n;
      return v;
    }
    if (digit(c) || c == '+' || c == '-' || c == 'i' || c == 'n') return number();
    fail(fmt::format("{} where a value must be", shown_here()));
  }

  [[nodiscard]] std::string token_here() const {
    std::size_t end = i_;
    while (end < s_.size() && std::string_view{" \t\r\n,]}#"}.find(s_[end]) == std::string::npos) {
      ++end;
    }
    return fmt::format("'{}'", excerpt(s_.substr(i_, std::max<std::size_t>(end - i_, 1)), 40));
  }

  // Decimal integers and floats as TOML writes them; the rest refused by name.
  TomlValue number() {
    std::size_t end = i_;
    while (end < s_.size() && std::string_view{" \t\r\n,]}#"}.find(s_[end]) == std::string::npos) {
      ++end;
    }
    const std::string_view t = s_.substr(i_, end - i_);
    const std::string shown = fmt::format("'{}'", excerpt(t, 40));
    for (std::size_t k = 1; k < t.size(); ++k) {
      if (t[k] == ':' || (t[k] == '-' && t[k - 1] != 'e' && t[k - 1] != 'E')) {
        fail("a date or time value (no field here is one)");
      }
    }
    std::string_view body = t;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
    if (body == "inf" || body == "nan") fail(fmt::format("{}: inf and nan are not read", shown));
    if (body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
      fail(fmt::format("{}: write the number in decimal", shown));
    }
    // Digits with single underscores between them; then an optional fraction and exponent.
    std::string plain;
    bool is_float = false;
    bool previous_digit = false;
    std::size_t int_digits = 0;
    bool in_int = true;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const char ch = t[k];
      if (digit(ch)) {
        plain += ch;
        previous_digit = true;
        if (in_int) ++int_digits;
        continue;
      }
      if (ch == '_') {
        if (!previous_digit || k + 1 >= t.size() || !digit(t[k + 1])) {
          fail(fmt::format("{}: an underscore must stand between two digits", shown));
        }
        previous_digit = false;
        continue;
      }
      const bool sign = ch == '+' || ch == '-';
      const bool after_exponent = k > 0 && (t[k - 1] == 'e' || t[k - 1] == 'E');
      if (sign && (k == 0 || after_exponent)) {
        plain += ch;
        previous_digit = false;
        continue;
      }
      if (ch == '.' && in_int && previous_digit && k + 1 < t.size() && digit(t[k + 1])) {
        plain += ch;
        is_float = true;
        in_int = false;
        previous_digit = false;
        continue;
      }
      if ((ch == 'e' || ch == 'E') && previous_digit) {
        plain += 'e';
        is_float = true;
        in_int = false;
        previous_digit = false;
        continue;
      }
      fail(fmt::format("{} is not a number", shown));
    }
    if (int_digits == 0 || !previous_digit) fail(fmt::format("{} is not a number", shown));
    const std::size_t first = plain[0] == '+' || plain[0] == '-' ? 1 : 0;
    if (int_digits > 1 && plain[first] == '0') {
      fail(fmt::format("{}: a number does not start with 0", shown));
    }
    TomlValue v;
    v.text = std::string{t};
    const char* from = plain.data() + (plain[0] == '+' ? 1 : 0);
    const char* to = plain.data() + plain.size();
    if (is_float) {
      v.kind = Kind::kFloat;
      const auto [p, ec] = std::from_chars(from, to, v.number);
      if (ec != std::errc{} || p != to) fail(fmt::format("{} is out of range", shown));
    } else {
      v.kind = Kind::kInteger;
      const auto [p, ec] = std::from_chars(from, to, v.integer);
      if (ec != std::errc{} || p != to) fail(fmt::format("{} is out of range", shown));
    }
    i_ = end;
    return v;
  }

  TomlValue array(std::size_t depth) {
    TomlValue v;
    v.kind = Kind::kArray;
    ++i_;  // '['
    for (;;) {
      skip_space();
      if (peek() == ']') break;
      v.array.push_back(value(depth + 1));
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ']') fail(fmt::format("{} where ',' or ']' must be", shown_here()));
    }
    ++i_;  // ']'
    return v;
  }

  TomlValue inline_table(std::size_t depth) {
    TomlValue v = table_value(Origin::kClosed);
    ++i_;  // '{'
    skip_blank();
    if (peek() == '}') {
      ++i_;
      return v;
    }
    for (;;) {
      skip_blank();
      if (peek() == '\n' || peek() == '\r') fail("an inline table must close on its line");
      keyval(v.table, depth + 1);
      skip_blank();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') break;
      if (peek() == '\n' || peek() == '\r') fail("an inline table must close on its line");
      fail(fmt::format("{} where ',' or '}}' must be", shown_here()));
    }
    ++i_;  // '}'
    close(v);
    return v;
  }
  // An inline table and the tables its dotted keys made are complete: nothing may add to them.
  static void close(TomlValue& v) {
    if (v.kind != Kind::kTable) return;
    v.origin = Origin::kClosed;
    for (TomlValue& child : v.table.values) close(child);
  }

  // One character of a string's content (not a quote, not an escape): controls other than tab
  // refused, UTF-8 checked.
  void content_char(std::string& out) {
    const auto u = static_cast<unsigned char>(peek());
    if (u >= 0x80) {
      char32_t cp = 0;
      const std::size_t n = utf8_sequence(s_, i_, cp);
      if (n == 0) fail("a string holds bytes that are not UTF-8");
      out.append(s_.substr(i_, n));
      i_ += n;
      return;
    }
    if ((u < 0x20 && u != '\t') || u == 0x7f) {
      fail(fmt::format("a control character ({}) in a string; write it as an escape",
                       excerpt(s_.substr(i_, 1))));
    }
    out += static_cast<char>(u);
    ++i_;
  }

  void escape(std::string& out) {
    ++i_;  // '\'
    const char e = peek();
    ++i_;
    switch (e) {
      case 'b':
        out += '\b';
        return;
      case 't':
        out += '\t';
        return;
      case 'n':
        out += '\n';
        return;
      case 'f':
        out += '\f';
        return;
      case 'r':
        out += '\r';
        return;
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case 'u':
      case 'U': {
        const std::size_t n = e == 'u' ? 4 : 8;
        char32_t cp = 0;
        for (std::size_t k = 0; k < n; ++k) {
          const char h = peek();
          int d = -1;
          if (h >= '0' && h <= '9') d = h - '0';
          if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
          if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
          if (d < 0) fail(fmt::format("\\{} needs {} hexadecimal digits", e, n));
          cp = cp * 16 + static_cast<char32_t>(d);
          ++i_;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          fail(fmt::format("\\{} escape U+{:X} is not a Unicode scalar value", e,
                           static_cast<std::uint32_t>(cp)));
        }
        append_utf8(out, cp);
        return;
      }
      default:
        fail(fmt::format("'\\{}' is not a TOML escape", excerpt(std::string(1, e))));
    }
  }

  // How many bytes from here are plain ASCII content (printable, not `quote`, not a backslash):
  // appended in one run.
  [[nodiscard]] std::size_t plain_run(char quote) const {
    std::size_t n = 0;
    while (i_ + n < s_.size()) {
      const char ch = s_[i_ + n];
      const auto u = static_cast<unsigned char>(ch);
      if (u < 0x20 || u >= 0x7f || ch == quote || ch == '\\') break;
      ++n;
    }
    return n;
  }

  std::string basic_string() {
    std::string out;
    ++i_;  // '"'
    for (;;) {
      if (const std::size_t run = plain_run('"'); run > 0) {
        out.append(s_.substr(i_, run));
        i_ += run;
      }
      if (at_end() || peek() == '\n' || peek() == '\r') fail("a string not closed on its line");
      if (peek() == '"') break;
      if (peek() == '\\') {
        escape(out);
      } else {
        content_char(out);
      }
    }
    ++i_;
    return out;
  }

  std::string literal_string() {
    std::string out;
    ++i_;  // '\''
    for (;;) {
      if (const std::size_t run = plain_run('\''); run > 0) {
        out.append(s_.substr(i_, run));
        i_ += run;
      }
      if (at_end() || peek() == '\n' || peek() == '\r') fail("a string not closed on its line");
      if (peek() == '\'') break;
      content_char(out);
    }
    ++i_;
    return out;
  }

  // """...""" and '''...''': a line ending right after the opening quotes is trimmed; up to two
  // quotes may stand before the closing three.
  std::string multi_line(char quote) {
    std::string out;
    i_ += 3;
    newline();
    for (;;) {
      if (at_end()) fail("a multi-line string never closed");
      if (peek() == quote && peek(1) == quote && peek(2) == quote) {
        std::size_t run = 3;
        while (peek(run) == quote) ++run;
        if (run > 5) fail("more than two quotes before a string's closing quotes");
        out.append(run - 3, quote);
        i_ += run;
        return out;
      }
      if (peek() == '\n' || (peek() == '\r' && peek(1) == '\n')) {
        out += '\n';
        newline();
        continue;
      }
      if (quote == '"' && peek() == '\\') {
        // A line-ending backslash trims the line ending and the blanks after it.
        std::size_t k = 1;
        while (peek(k) == ' ' || peek(k) == '\t') ++k;
        if (peek(k) == '\n' || (peek(k) == '\r' && peek(k + 1) == '\n')) {
          i_ += k;
          for (;;) {
            skip_blank();
            if (!newline()) break;
          }
          continue;
        }
        escape(out);
        continue;
      }
      content_char(out);
    }
  }
  std::string multi_line_basic() { return multi_line('"'); }
  std::string multi_line_literal() { return multi_line('\''); }

  std::string_view s_;
  const std::string& origin_;
  std::size_t i_{0};
  std::size_t line_{1};
};

}  // namespace

namespace {
nlohmann::json value_as_json(const TomlValue& v) {
  switch (v.kind) {
    case Kind::kString:
      return v.text;
    case Kind::kInteger:
      return v.integer;
    case Kind::kFloat:
      return v.number;
    case Kind::kBool:
      return v.boolean;
    case Kind::kArray: {
      nlohmann::json out = nlohmann::json::array();
      for (const TomlValue& item : v.array) out.push_back(value_as_json(item));
      return out;
    }
    case Kind::kTable:
      return toml_as_json(v.table);
  }
  return nullptr;
}
}  // namespace

nlohmann::json toml_as_json(const TomlTable& table) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < table.size(); ++k)
    out[table.keys[k]] = value_as_json(table.values[k]);
  return out;
}

TomlTable read_toml(std::string_view text, const std::string& origin) {
  return Parser{text, origin}.document();
}

}  // namespace tb::io
