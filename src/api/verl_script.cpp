// A verl run script (`python3 -m verl.trainer.main_ppo key=value ...`, as verl's
// examples/*/run_*.sh launch it) read as its Hydra overrides (docs/configs.md, "verl").
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

constexpr std::string_view kEntry = "verl.trainer.main_ppo";

// The shell variables a run script sets before its command (`NAME=value`, `export NAME=value`, as
// verl's examples/tuning/*.sh and recipe scripts set their batch sizes), with `$NAME`,
// `${NAME}`, `${NAME:-default}` and integer `$(( ... ))` arithmetic (+ - * / % and parentheses)
// expanded as bash would. A value that needs anything else (a command substitution, a variable
// the script does not set, an environment's) stays unresolved, and the key it feeds keeps verl's
// default, which the note says.
using Variables = std::map<std::string, std::string, std::less<>>;

constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxVariables = 4096;

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
    while (v) {
      if (eat('+')) {
        const auto r = product(depth);
        std::int64_t out = 0;
        if (!r || __builtin_add_overflow(*v, *r, &out)) return std::nullopt;
        v = out;
      } else if (eat('-')) {
        const auto r = product(depth);
        std::int64_t out = 0;
        if (!r || __builtin_sub_overflow(*v, *r, &out)) return std::nullopt;
        v = out;
      } else {
        break;
      }
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
    std::size_t i = 0;
    const bool negative = !digits.empty() && digits[0] == '-';
    if (negative) i = 1;
    if (i >= digits.size() || digits.size() - i > 18) return std::nullopt;
    std::int64_t v = 0;
    for (; i < digits.size(); ++i) {
      if (digits[i] < '0' || digits[i] > '9') return std::nullopt;
      v = v * 10 + (digits[i] - '0');
    }
    return negative ? -v : v;
  }

  std::string_view text_;
  const Variables& vars_;
  std::size_t pos_{0};
};

// A word with its variables expanded, or nullopt when one is not known (or needs a command).
std::optional<std::string> expand(std::string_view word, const Variables& vars) {
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
      const std::size_t close = word.find('}', i + 2);
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
    } else if (fallback && fallback->find('$') == std::string_view::npos) {
      out += *fallback;
    } else {
      return std::nullopt;
    }
    if (out.size() > 4096) return std::nullopt;
  }
  return out;
}

// The assignments of the lines before the entry point, in order; a later one replaces an earlier.
Variables shell_variables(std::string_view text) {
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
    if (auto v = expand(raw, vars)) {
      vars[name] = *v;
    } else {
      vars.erase(name);  // set to something unknown: no longer what an earlier line said
    }
  }
  return vars;
}

// The shell words after verl's entry point: line continuations joined, quotes removed, a
// comment dropped; stops at the end of that command (;, &&, ||, |, a redirection).
std::vector<std::string> words_after_entry(std::string_view text) {
  const std::size_t start = text.find(kEntry);
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = start + kEntry.size(); i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      if (c == '\n') break;  // an unescaped newline ends the command
      continue;
    }
    // $(( ... )) is one expansion, blanks and all (bash's arithmetic expansion).
    if (text.substr(i, 3) == "$((") {
      const std::size_t close = text.find("))", i + 3);
      if (close != std::string_view::npos &&
          text.substr(i, close - i).find('\n') == std::string_view::npos) {
        word += text.substr(i, close + 2 - i);
        in_word = true;
        i = close + 1;
        continue;
      }
    }
    if (!in_word && c == '#') break;
    if (!in_word && (c == ';' || c == '&' || c == '|' || c == '>' || c == '<')) break;
    word += c;
    in_word = true;
  }
  if (quote != 0) {
    throw InvalidRequest("config", "a quote in the verl command is not closed",
                         "a shell command verl's examples/*/run_*.sh form");
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace

bool is_verl_script(std::string_view text) { return text.find(kEntry) != std::string_view::npos; }

json verl_script_overrides(std::string_view text) {
  json out = json::object();
  const Variables vars = shell_variables(text.substr(0, text.find(kEntry)));
  for (const std::string& word : words_after_entry(text)) {
    const std::string w = expand(word, vars).value_or(word);
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // a flag of python's or Hydra's own
    std::string key = w.substr(0, eq);
    while (!key.empty() && key.front() == '+') key.erase(0, 1);  // Hydra's append prefix
    const std::string value = w.substr(eq + 1);
    if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_.") != std::string::npos) {
      continue;
    }
    // A variable the script does not set: verl's default stands (the reader says so).
    if (value.empty() || value.find('$') != std::string::npos) {
      out[key] = fmt::format("${{{}}}", excerpt(value, 60));
      continue;
    }
    json v;
    try {
      v = yaml_as_json(value);
    } catch (const InvalidRequest&) {
      v = value;
    }
    out[key] = v.is_null() && value != "null" ? json(value) : v;
  }
  if (out.empty()) {
    throw InvalidRequest("config",
                         "names verl.trainer.main_ppo but passes it no key=value overrides",
                         "a verl run script (python3 -m verl.trainer.main_ppo key=value ...)");
  }
  return out;
}

}  // namespace tb::api::config_detail
