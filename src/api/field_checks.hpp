// The checks the field tables' rows share (field.cpp, serving_fields.cpp): each throws
// InvalidRequest naming its key. Private to the api library.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::api::checks {

using V = std::string_view;

// A whole number in min..max; `accepted` names the range in the error (default "min..max").
inline std::int64_t whole(V text, const char* key, double min, double max,
                          const std::string& accepted = "") {
  const double v = parse_number_in(text, key, min, max, true);
  if (v != std::floor(v)) {
    throw InvalidRequest(key, fmt::format("'{}' must be a whole number", excerpt(text)),
                         accepted.empty() ? fmt::format("{:.0f}..{:.0f}", min, max) : accepted);
  }
  return static_cast<std::int64_t>(v);
}

inline std::int64_t whole(V text, const char* key, double max) {
  return whole(text, key, 1.0, max);
}

// A parallel degree: 1 to kMaxDegree.
inline int degree(V text, const char* key) {
  return static_cast<int>(whole(text, key, kMaxDegree));
}

inline bool flag(V text, const char* key) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw InvalidRequest(key, fmt::format("'{}' is not a flag value", excerpt(text)), "true|false");
}

inline std::string choice(V text, const char* key, std::initializer_list<V> accepted) {
  for (const V a : accepted) {
    if (text == a) return std::string{text};
  }
  throw InvalidRequest(key, fmt::format("unknown value '{}'", excerpt(text)),
                       fmt::format("{}", fmt::join(accepted, "|")));
}

inline std::string text(V value, const char* key, const char* what) {
  if (value.empty()) throw InvalidRequest(key, fmt::format("empty ({})", what));
  return std::string{value};
}

}  // namespace tb::api::checks
