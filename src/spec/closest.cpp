// Edit distance and the ranking of suggestions.
#include "trainbudget/spec/closest.hpp"

#include <algorithm>
#include <numeric>

namespace tb {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view word,
                                       const std::vector<std::string>& candidates, std::size_t n,
                                       std::optional<std::size_t> max_distance) {
  struct Scored {
    std::size_t score;
    const std::string* name;
  };
  // Edit distance is quadratic: a word far longer than any name is compared by its start.
  constexpr std::size_t kMaxWordBytes = 256;
  word = word.substr(0, kMaxWordBytes);
  std::vector<Scored> scored;
  for (const std::string& c : candidates) {
    // A prefix either way, or the whole word inside the name ("4090" in rtx-4090), is as close
    // as it gets.
    const bool prefix = !word.empty() && (c.starts_with(word) || word.starts_with(c) ||
                                          (word.size() >= 3 && c.find(word) != std::string::npos));
    const std::size_t score = prefix ? 0 : edit_distance(word, c);
    if (max_distance && score > *max_distance) continue;
    scored.push_back({score, &c});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (const Scored& s : scored) {
    if (out.size() == n) break;
    if (std::find(out.begin(), out.end(), *s.name) == out.end()) out.push_back(*s.name);
  }
  return out;
}

}  // namespace tb
