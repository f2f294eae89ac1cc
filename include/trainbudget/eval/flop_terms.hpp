// FLOPs per token as numbers: each term of a FlopShape under a sequence length, an attention
// kernel and a recompute mode, forward, backward and recomputed apart. The evaluator sums
// these; the ArchFlops view (arch_flops.hpp) adds the words. No allocation, no strings.
#pragma once

#include <array>

#include "trainbudget/eval/arch_flops.hpp"
#include "trainbudget/model/flop_shape.hpp"

namespace tb {

struct FlopTermValue {
  double forward{0.0};          // per token
  double backward_factor{2.0};  // backward = factor x forward
  double model{0.0};            // forward x (1 + backward_factor): counted for MFU
  double recompute{0.0};        // executed again: HFU only
};

struct FlopCounts {
  std::array<FlopTermValue, kFlopTermCount> terms{};  // indexed by FlopTerm
  double forward_per_token{0.0};
  double model_per_token{0.0};
  double hardware_per_token{0.0};
  bool windowed{false};  // some layer's window is shorter than the sequence
};

// Keys one query is scored against, on average, in a layer whose attention spans `span` tokens
// of an s-token sequence. Full count: span (= s without a sliding window). Causal: query t sees
// min(t, span) keys, (span(span + 1)/2 + (s - span) span) / s on average ((s + 1)/2 for
// span = s).
[[nodiscard]] double keys_per_query(double s, double span, bool causal) noexcept;

[[nodiscard]] FlopCounts count_flops(const FlopShape& shape, const FlopsSetup& setup) noexcept;

}  // namespace tb
