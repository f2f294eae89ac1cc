// Exact counts that cannot overflow silently: parameter and adapter counts are int64 (exact,
// unlike double past 2^53), and every product and sum of them goes through these, which throw
// CountOverflow instead of wrapping (GCC/Clang __builtin_*_overflow). Callers that know which
// input made the count turn it into a problem naming that input.
#pragma once

#include <cstdint>

#include "trainbudget/spec/error.hpp"

namespace tb {

class CountOverflow : public Error {
 public:
  CountOverflow() : Error("a count overflows 64-bit integers (past 9.2e18)") {}
};

[[nodiscard]] inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw CountOverflow{};
  return r;
}
template <class... Rest>
[[nodiscard]] std::int64_t checked_mul(std::int64_t a, std::int64_t b, Rest... rest) {
  return checked_mul(checked_mul(a, b), rest...);
}

[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw CountOverflow{};
  return r;
}
template <class... Rest>
[[nodiscard]] std::int64_t checked_add(std::int64_t a, std::int64_t b, Rest... rest) {
  return checked_add(checked_add(a, b), rest...);
}

}  // namespace tb
