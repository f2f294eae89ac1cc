// "Did you mean ...?": the names closest to a mistyped word, for every suggestion trainbudget
// makes (machine ids, model presets, command-line options and subcommands).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

// Levenshtein distance: insertions, deletions and substitutions, each costing 1.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// At most `n` of `candidates`, closest to `word` first: a candidate that starts with the word, or
// that the word starts with ("h100" -> "h100-sxm"), or that holds a word of 3 or more characters
// ("4090" -> "rtx-4090"), ranks as distance 0; then edit distance; ties
// keep the candidates' order. With `max_distance`, farther candidates are left out, so the result
// may be empty.
[[nodiscard]] std::vector<std::string> closest_names(
    std::string_view word, const std::vector<std::string>& candidates, std::size_t n,
    std::optional<std::size_t> max_distance = std::nullopt);

}  // namespace tb
