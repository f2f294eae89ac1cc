// Shell variables of a run script (docs/configs.md, "verl"): the assignments before its
// command and their expansion in its words, as bash would do it for the forms verl's scripts use.
#include "shell_variables.hpp"

#include <charconv>
#include <cstdint>
#include <utility>

namespace tb::api::config_detail {
namespace {

constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxVariables = 4096;
constexpr int kMaxDefaultDepth = 16;            // ${A:-${B:-...}} nested deeper: not expanded
constexpr std::size_t kMaxArrayText = 1 << 16;  // an array's words, in characters

bool name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

// Integer arithmetic as bash's $(( )): int64, names read as variables (unset: 0 in bash, here
// unresolved), overflow and division by zero unresolved.
class Arithmetic {
 public:
  Arithmetic(std::string_view text, const Variables& vars) : text_(text), vars_(vars) {}

  std::optional<std::int64_t> run() {
    const std::optional<std::int64_t> v = sum(0);
    skip();
    if (!v || pos_ != text_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::int64_t> sum(int depth) {
    std::optional<std::int64_t> v = product(depth);
    for (bool plus = false; v && ((plus = eat('+')) || eat('-'));) {
      const auto r = product(depth);
      std::int64_t out = 0;
      if (!r ||
          (plus ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out))) {
        return std::nullopt;
      }
      v = out;
    }
    return v;
  }
  std::optional<std::int64_t> product(int depth) {
    std::optional<std::int64_t> v = atom(depth);
    while (v) {
      skip();
      if (pos_ >= text_.size()) break;
      const char op = text_[pos_];
      if (op != '*' && op != '/' && op != '%') break;
      ++pos_;
      const auto r = atom(depth);
      if (!r) return std::nullopt;
      std::int64_t out = 0;
      if (op == '*') {
        if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      } else {
        if (*r == 0 || (*v == INT64_MIN && *r == -1)) return std::nullopt;
        out = op == '/' ? *v / *r : *v % *r;
      }
      v = out;
    }
    return v;
  }
  std::optional<std::int64_t> atom(int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    if (eat('(')) {
      const auto v = sum(depth + 1);
      return v && eat(')') ? v : std::nullopt;
    }
    if (eat('-')) {
      const auto v = atom(depth + 1);
      return v && *v != INT64_MIN ? std::optional<std::int64_t>(-*v) : std::nullopt;
    }
    skip();
    if (pos_ < text_.size() && text_[pos_] == '$') ++pos_;  // $NAME inside $(( )) is NAME
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return integer(text_.substr(start, pos_ - start));
    }
    bool braced = pos_ < text_.size() && text_[pos_] == '{';
    if (braced) ++pos_;
    const std::size_t name_start = pos_;
    while (pos_ < text_.size() && name_char(text_[pos_], pos_ == name_start)) ++pos_;
    const std::string_view name = text_.substr(name_start, pos_ - name_start);
    if (name.empty() || (braced && !eat('}'))) return std::nullopt;
    const auto it = vars_.find(name);
    return it == vars_.end() ? std::nullopt : integer(it->second);
  }
  static std::optional<std::int64_t> integer(std::string_view digits) {
    std::int64_t v = 0;
    const char* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
    return ec == std::errc{} && ptr == end ? std::optional<std::int64_t>(v) : std::nullopt;
  }

  std::string_view text_;
  const Variables& vars_;
  std::size_t pos_{0};
};

// The '}' that closes a ${ whose name starts at `from`: a default may hold ${...} of its own
// (${MODEL_PATH:-"${ROOT}/models/Qwen3-8B"}).
std::size_t closing_brace(std::string_view word, std::size_t from) {
  int depth = 1;
  for (std::size_t i = from; i < word.size(); ++i) {
    if (word[i] == '$' && i + 1 < word.size() && word[i + 1] == '{') {
      ++depth;
      ++i;
    } else if (word[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// The words of a bash array's `( ... )` from `open` (just past the parenthesis), as bash splits
// them: blanks and newlines between words, quotes removed, a `#` at a word's start a comment to
// the line's end, a backslash-newline joined. Joined by kArraySeparator, with the position past
// the closing parenthesis; nullopt when it is not closed.
std::optional<std::pair<std::string, std::size_t>> array_words(std::string_view text,
                                                               std::size_t open) {
  std::string out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  std::size_t words = 0;
  const auto end_word = [&] {
    if (!in_word) return;
    if (words++ > 0) out += kArraySeparator;
    out += word;
    word.clear();
    in_word = false;
  };
  for (std::size_t i = open; i < text.size(); ++i) {
    if (out.size() + word.size() > kMaxArrayText) return std::nullopt;
    const char c = text[i];
    if (quoting_takes(text, i, quote, word, in_word)) continue;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      end_word();
    } else if (c == '#' && !in_word) {
      const std::size_t eol = text.find('\n', i);
      if (eol == std::string_view::npos) return std::nullopt;
      i = eol;
    } else if (c == ')') {
      end_word();
      return std::pair{out, i + 1};
    } else {
      word += c;
      in_word = true;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {

// expand() at a default's nesting depth: bash nests them without end, a script a few deep.
std::optional<std::string> expand_at(std::string_view word, const Variables& vars,
                                     bool keep_unknown, int depth) {
  if (depth > kMaxDefaultDepth) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < word.size();) {
    if (word[i] != '$') {
      out += word[i++];
      continue;
    }
    if (word.substr(i, 3) == "$((") {
      const std::size_t close = word.find("))", i + 3);
      if (close == std::string_view::npos) return std::nullopt;
      const auto v = Arithmetic(word.substr(i + 3, close - i - 3), vars).run();
      if (!v) return std::nullopt;
      out += std::to_string(*v);
      i = close + 2;
      continue;
    }
    std::string_view name;
    std::optional<std::string_view> fallback;
    if (i + 1 < word.size() && word[i + 1] == '{') {
      const std::size_t close = closing_brace(word, i + 2);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inner = word.substr(i + 2, close - i - 2);
      if (const std::size_t dash = inner.find(":-"); dash != std::string_view::npos) {
        fallback = inner.substr(dash + 2);
        inner = inner.substr(0, dash);
      }
      name = inner;
      i = close + 1;
    } else {
      std::size_t end = i + 1;
      while (end < word.size() && name_char(word[end], end == i + 1)) ++end;
      name = word.substr(i + 1, end - i - 1);
      i = end;
    }
    if (name.empty() || !name_char(name[0], true)) return std::nullopt;
    if (const auto it = vars.find(name); it != vars.end()) {
      out += it->second;
    } else if (fallback) {
      // The default as bash reads it, its quotes removed (${X:-"${ROOT}/models/Qwen3-8B"}),
      // its own variables expanded (${ACTOR_EP:-$COMMON_EP}).
      std::string_view inner = *fallback;
      if (inner.size() >= 2 && (inner.front() == '"' || inner.front() == '\'') &&
          inner.back() == inner.front()) {
        inner = inner.substr(1, inner.size() - 2);
      }
      const auto v = expand_at(inner, vars, keep_unknown, depth + 1);
      if (!v) return std::nullopt;
      out += *v;
    } else if (keep_unknown) {
      out += '$';
      out += name;
    } else {
      return std::nullopt;
    }
    if (out.size() > 4096) return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<std::string> expand(std::string_view word, const Variables& vars, bool keep_unknown) {
  return expand_at(word, vars, keep_unknown, 0);
}

Variables shell_variables(std::string_view text, bool keep_unknown) {
  Variables vars;
  std::size_t pos = 0;
  while (pos < text.size() && vars.size() < kMaxVariables) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.substr(0, 7) == "export ") line.remove_prefix(7);
    std::size_t n = 0;
    while (n < line.size() && name_char(line[n], n == 0)) ++n;
    if (n == 0 || n >= line.size() || line[n] != '=') continue;
    const std::string name(line.substr(0, n));
    std::string_view value = line.substr(n + 1);
    if (!value.empty() && value.front() == '(') {  // an array, over as many lines as it takes
      const std::size_t open = static_cast<std::size_t>(value.data() - text.data()) + 1;
      const auto words = array_words(text, open);
      if (!words) break;  // not closed: nothing after it is read
      vars[name + std::string{kArraySuffix}] = words->first;
      pos = words->second;
      continue;
    }
    // The value is one shell word: quoted, or up to the first blank (a comment after it).
    std::string raw;
    if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
      const std::size_t close = value.find(value.front(), 1);
      if (close == std::string_view::npos) continue;
      raw = value.substr(1, close - 1);
      if (value.front() == '\'') {
        vars[name] = raw;
        continue;
      }
    } else if (value.substr(0, 3) == "$((") {
      const std::size_t close = value.find("))");
      if (close == std::string_view::npos) continue;
      raw = value.substr(0, close + 2);
    } else {
      raw = value.substr(0, value.find_first_of(" \t;#"));
    }
    if (auto v = expand(raw, vars, keep_unknown)) {
      vars[name] = *v;
    } else {
      vars.erase(name);  // set to something unknown: no longer what an earlier line said
    }
  }
  return vars;
}

}  // namespace tb::api::config_detail
