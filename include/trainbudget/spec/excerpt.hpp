// Quoting user data safely in a message: every value, path or key that came from a file, a flag
// or a request is shown through excerpt(), so that an error line stays one short, printable line
// whatever the input holds (a 200 MB value, a newline, an escape sequence, invalid UTF-8).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tb {

// The most bytes of a value a message quotes (before escaping).
inline constexpr std::size_t kExcerptBytes = 160;

// `text` as one printable line: control characters as \n, \t, \r or \xNN, bytes that are not
// valid UTF-8 as \xNN, backslashes doubled, braces doubled (a message's {key} references are
// rendered by render_refs(), which turns {{ back into {: a user's own "{model}" is never read as
// one); past `max_bytes` of input it is cut at a character boundary and "... (N bytes)" says how
// long the whole was.
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

// `text` with invalid UTF-8 bytes and control characters escaped as excerpt() does, never cut:
// for names (file paths) that must stay whole in JSON output.
[[nodiscard]] std::string printable(std::string_view text);

// A finished message made safe to print as one line: control characters and invalid UTF-8
// escaped as excerpt() does (backslashes kept as they are: the message's own quoting), cut past
// `max_bytes`. The last guard before a terminal, whatever a message was built from.
[[nodiscard]] std::string one_line(std::string_view text, std::size_t max_bytes = 2000);

// The length of the valid UTF-8 sequence at text[i] (RFC 3629 sec. 4: no overlongs, no
// surrogates, at most U+10FFFF), with its code point; 0 when the bytes there are not one.
[[nodiscard]] std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code_point);

// The deepest nesting of [ and { in JSON text, not counting brackets inside strings; a linear
// scan that needs no parse, so that a hostile depth is refused before any DOM is built.
[[nodiscard]] std::size_t json_nesting_depth(std::string_view text);

// Accepted nesting for every JSON trainbudget reads: config.json files nest 3 deep (Gemma 3's
// text_config, rope_scaling), a safetensors header 3, a request 1.
inline constexpr std::size_t kMaxJsonDepth = 64;

}  // namespace tb
