// One style for every enum's names: an enum opts in by specialising EnumNames<E> with a table of
// (value, name) pairs next to its declaration; enum_name, enum_from_name and enum_choices then
// work for it (the way fmt's formatter<T> lets a type opt in to formatting).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tb {

template <class E>
struct EnumNames;  // static constexpr std::array<std::pair<E, std::string_view>, N> kNames;

template <class E>
concept NamedEnum = requires {
  EnumNames<E>::kNames;
};

// The name of `value`; "?" for a value the table lacks (a broken invariant, never user input).
template <NamedEnum E>
[[nodiscard]] constexpr std::string_view enum_name(E value) {
  for (const auto& [v, name] : EnumNames<E>::kNames) {
    if (v == value) return name;
  }
  return "?";
}

// The value named `text`, or nullopt.
template <NamedEnum E>
[[nodiscard]] constexpr std::optional<E> enum_from_name(std::string_view text) {
  for (const auto& [v, name] : EnumNames<E>::kNames) {
    if (name == text) return v;
  }
  return std::nullopt;
}

// "a|b|c", in table order, for accepted values in errors, --help and the docs.
template <NamedEnum E>
[[nodiscard]] std::string enum_choices() {
  std::string out;
  for (const auto& [v, name] : EnumNames<E>::kNames) {
    if (!out.empty()) out += '|';
    out += name;
  }
  return out;
}

}  // namespace tb
