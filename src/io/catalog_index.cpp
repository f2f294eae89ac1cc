// A compiled-in catalog file's keys, read from its lines (catalog_index.hpp).
#include "catalog_index.hpp"

namespace tb::io {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Each line of `text`, trimmed, until the first table header.
template <class F>
void top_level_lines(std::string_view text, F&& on_line) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = trimmed(text.substr(0, end));
    if (line.starts_with('[')) return;
    if (!on_line(line)) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

// `line` is `key = rest`: rest, else nullopt-like empty with ok false.
bool value_of(std::string_view line, std::string_view key, std::string_view& rest) {
  if (!line.starts_with(key)) return false;
  std::string_view after = trimmed(line.substr(key.size()));
  if (!after.starts_with('=')) return false;
  rest = trimmed(after.substr(1));
  return true;
}

// The first "quoted" string of `s` at or after `from` (no escapes in ids), or "".
std::string quoted(std::string_view s, std::size_t from = 0) {
  const std::size_t open = s.find('"', from);
  if (open == std::string_view::npos) return {};
  const std::size_t close = s.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return std::string{s.substr(open + 1, close - open - 1)};
}

}  // namespace

std::string top_level_string(std::string_view text, std::string_view key) {
  std::string out;
  top_level_lines(text, [&](std::string_view line) {
    std::string_view rest;
    if (!value_of(line, key, rest)) return true;
    out = quoted(rest);
    return false;
  });
  return out;
}

std::vector<std::string> top_level_ids(std::string_view text, std::string_view key) {
  std::vector<std::string> out;
  bool inside = false;
  top_level_lines(text, [&](std::string_view line) {
    if (!inside) {
      std::string_view rest;
      if (!value_of(line, key, rest) || !rest.starts_with('[')) return true;
      if (rest.ends_with(']')) {
        // One line: ["cpu", "gpu"] or [].
        for (std::size_t at = 0;;) {
          const std::size_t open = rest.find('"', at);
          if (open == std::string_view::npos) break;
          const std::size_t close = rest.find('"', open + 1);
          if (close == std::string_view::npos) break;
          out.emplace_back(rest.substr(open + 1, close - open - 1));
          at = close + 1;
        }
        return false;
      }
      inside = true;
      return true;
    }
    if (line == "]") return false;
    if (line.starts_with('{')) {
      // One or more inline tables, each opening with its id: { id = "a" }, { id = "b", ... }.
      bool in_string = false;
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"') in_string = !in_string;
        if (in_string || line[i] != '{') continue;
        std::string_view rest;
        if (value_of(trimmed(line.substr(i + 1)), "id", rest) && rest.starts_with('"')) {
          out.push_back(quoted(rest));
        }
      }
    } else if (line.starts_with('"')) {
      out.push_back(quoted(line));
    }
    return true;
  });
  return out;
}

}  // namespace tb::io
