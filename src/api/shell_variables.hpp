// Shell variables of a verl run script (docs/configs.md, "verl"). Private to the api library.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tb::api::config_detail {

using Variables = std::map<std::string, std::string, std::less<>>;

// A bash array `NAME=( word ... )` is kept under NAME + kArraySuffix, its words (quotes removed,
// comments dropped, not yet expanded) joined by kArraySeparator; `"${NAME[@]}"` is those words.
inline constexpr std::string_view kArraySuffix = "[@]";
inline constexpr char kArraySeparator = '\x1f';

// One character of a shell word at text[i] that quoting or a line continuation takes: inside
// quotes, the closing quote (dropped) or a character of the word; outside, an opening quote
// (dropped, the word begun) or a backslash-newline (both skipped, `i` moved past them). False
// when the character is the caller's to read.
[[nodiscard]] inline bool quoting_takes(std::string_view text, std::size_t& i, char& quote,
                                        std::string& word, bool& in_word) {
  const char c = text[i];
  if (quote != 0) {
    if (c == quote) {
      quote = 0;
    } else {
      word += c;
    }
    return true;
  }
  if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
    ++i;
    return true;
  }
  if (c == '\'' || c == '"') {
    quote = c;
    in_word = true;
    return true;
  }
  return false;
}

// The variables the lines of `text` set (`NAME=value`, `export NAME=value`), in order, a later one
// replacing an earlier: `$NAME`, `${NAME}`, `${NAME:-default}` and integer `$(( ... ))`
// arithmetic (+ - * / % and parentheses) expanded as bash would, and arrays (above). A value that
// needs anything else (a command substitution, a variable the script does not set, an overflow) is
// not set. With `keep_unknown`, a variable the script does not set stays in the value as `$NAME` (a
// `${NAME:-default}` takes its default), so a path under a root left to the user
// (`$HOME/models/Qwen3-8B`) keeps its known part.
[[nodiscard]] Variables shell_variables(std::string_view text, bool keep_unknown = false);

// `word` with its variables expanded, or nullopt when one is not known (or needs a command);
// with `keep_unknown`, an unknown one stays as `$NAME`.
[[nodiscard]] std::optional<std::string> expand(std::string_view word, const Variables& vars,
                                                bool keep_unknown = false);

}  // namespace tb::api::config_detail
