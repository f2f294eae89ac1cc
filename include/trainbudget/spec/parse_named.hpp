// A named enum's value from the user's spelling, or a problem naming the field with the
// accepted names and the closest one ("unknown value 'q4km'; did you mean 'q4_k_m'?").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// Throws InvalidRequest naming `key`, listing `accepted`, suggesting the nearest candidate.
[[noreturn]] void unknown_name(const char* key, std::string_view text, const std::string& accepted,
                               const std::vector<std::string>& candidates);

// "; did you mean 'lora'?" for the candidate nearest `text` (edit distance 3 at most), else "".
[[nodiscard]] std::string did_you_mean(std::string_view text,
                                       const std::vector<std::string>& candidates);

// Every name of a named enum, for suggestions.
template <NamedEnum E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& [v, name] : EnumNames<E>::kNames) out.emplace_back(name);
  return out;
}

// The value of a named enum spelled `text`, or InvalidRequest naming `key` with a suggestion.
template <NamedEnum E>
E parse_named(const char* key, std::string_view text) {
  if (const auto v = enum_from_name<E>(text)) return *v;
  unknown_name(key, text, enum_choices<E>(), names_of<E>());
}

}  // namespace tb
