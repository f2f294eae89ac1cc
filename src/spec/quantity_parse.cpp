// Count and number parsing with one-line errors that name the field.
#include "trainbudget/spec/quantity_parse.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Whole-string strict double parse; nullopt-like via bool.
bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

}  // namespace

double parse_count(std::string_view text, std::string_view field, Range range) {
  const std::string_view s = trim(text);
  const auto fail = [&](std::string_view why) -> double {
    throw InvalidRequest(std::string{field}, fmt::format("'{}' {}", excerpt(text), why),
                         fmt::format("a count from {:g} to {:g} such as 7e9, 7B, 70b, 1.5T, 125M "
                                     "or 32k",
                                     range.lo, range.hi));
  };
  if (s.empty()) return fail("is empty");
  double scale = 1.0;
  std::string_view digits = s;
  switch (s.back()) {
    case 'k':
    case 'K':
      scale = 1e3;
      break;
    case 'm':
    case 'M':
      scale = 1e6;
      break;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
      scale = 1e9;
      break;
    case 't':
    case 'T':
      scale = 1e12;
      break;
    default:
      break;
  }
  if (scale != 1.0) digits.remove_suffix(1);
  double value = 0.0;
  if (!parse_double(digits, value)) return fail("is not a number");
  value *= scale;
  if (!std::isfinite(value)) return fail("is not finite");
  if (value <= 0.0) return fail("must be greater than zero");
  if (value < range.lo) return fail(fmt::format("is less than {:g}", range.lo));
  if (value > range.hi) return fail(fmt::format("is past {:g}", range.hi));
  return value;
}

double parse_number_in(std::string_view text, std::string_view field, double lo, double hi,
                       bool lo_inclusive, bool hi_inclusive) {
  const std::string_view s = trim(text);
  double value = 0.0;
  const std::string range =
      fmt::format("{}{}, {}{}", lo_inclusive ? "[" : "(", lo, hi, hi_inclusive ? "]" : ")");
  if (!parse_double(s, value) || !std::isfinite(value)) {
    throw InvalidRequest(std::string{field}, fmt::format("'{}' is not a number", excerpt(text)),
                         "a value in " + range);
  }
  if (value > hi || value < lo || (!lo_inclusive && value == lo) ||
      (!hi_inclusive && value == hi)) {
    // A fraction written as a percentage (utilization 50) says how to write it.
    const std::string hint =
        hi == 1.0 && value > 1.0 && value <= 100.0
            ? fmt::format(" (a fraction: {:g} % is {:g})", value, value / 100.0)
            : std::string{};
    throw InvalidRequest(std::string{field},
                         fmt::format("{} is out of range{}", excerpt(text), hint),
                         "a value in " + range);
  }
  return value == 0.0 ? 0.0 : value;  // "-0" is 0
}

}  // namespace tb
