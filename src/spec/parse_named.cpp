// The problem an unknown enum name raises, with the nearest accepted name.
#include "trainbudget/spec/parse_named.hpp"

#include <fmt/format.h>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {

namespace {

// Two letters swapped side by side ("lroa" for "lora").
bool one_swap(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  std::size_t first = 0;
  while (first < a.size() && a[first] == b[first]) ++first;
  return first + 1 < a.size() && a[first] == b[first + 1] && a[first + 1] == b[first] &&
         a.substr(first + 2) == b.substr(first + 2);
}

// The letters alone: "q4_k_m" and "q4km" differ only in separators.
std::string letters(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c != '_' && c != '-' && c != '.') out += c;
  }
  return out;
}

}  // namespace

std::string did_you_mean(std::string_view text, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = closest_names(text, candidates, 1, 3);
  if (near.empty()) return {};
  // A value is short: only a typo's distance (one edit, two letters swapped, separators left
  // out) or a name that holds what was typed is worth suggesting ("some" is not "none").
  const std::string& c = near.front();
  const bool holds = text.size() >= 3 && c.find(text) != std::string::npos;
  if (!holds && edit_distance(text, c) > 1 && !one_swap(text, c) && letters(text) != letters(c)) {
    return {};
  }
  return fmt::format("; did you mean '{}'?", c);
}

void unknown_name(const char* key, std::string_view text, const std::string& accepted,
                  const std::vector<std::string>& candidates) {
  throw InvalidRequest(
      key, fmt::format("unknown value '{}'{}", excerpt(text), did_you_mean(text, candidates)),
      accepted);
}

}  // namespace tb
