// Parsing counts as people write them: 7e9, 7B, 70b, 1.5T, 125M, 32k.
#pragma once

#include <string_view>

#include "trainbudget/spec/limits.hpp"

namespace tb {

// A count in `range`. Suffixes k/K (1e3), M/m (1e6), B/b/G (1e9), T/t (1e12); plain numbers in
// decimal or exponent form. Throws InvalidRequest naming `field` otherwise.
[[nodiscard]] double parse_count(std::string_view text, std::string_view field, Range range);

// A finite number in (lo, hi] ([lo when lo_inclusive, hi) unless hi_inclusive); throws naming
// `field`.
[[nodiscard]] double parse_number_in(std::string_view text, std::string_view field, double lo,
                                     double hi, bool lo_inclusive, bool hi_inclusive = true);

}  // namespace tb
