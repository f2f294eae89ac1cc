// A config's layer_types list read as the one pattern the model prices: one full-attention layer
// every N (layer i full exactly where (i + 1) % N == 0), shared by the hybrid readers
// (hf_gated_delta.cpp: Qwen3-Next's linear/full layers; hf_dense_families.cpp: Cohere 2's,
// EXAONE 4.0's and Olmo 3's sliding/full layers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tb::io {

struct FullEvery {
  std::int64_t every{0};       // N; layers + 1 when no layer is full
  std::int64_t breaks_at{-1};  // the first layer off that pattern, -1 when none is
};

// `full[i]`: whether layer i attends fully.
[[nodiscard]] inline FullEvery one_full_in_every(const std::vector<bool>& full) {
  const auto first = std::find(full.begin(), full.end(), true);
  FullEvery out;
  out.every = static_cast<std::int64_t>(first - full.begin()) + 1;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i] != ((static_cast<std::int64_t>(i) + 1) % out.every == 0)) {
      out.breaks_at = static_cast<std::int64_t>(i);
      break;
    }
  }
  return out;
}

}  // namespace tb::io
