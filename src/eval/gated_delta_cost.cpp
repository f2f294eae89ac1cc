// Gated DeltaNet's recurrence at a measured rate (docs/time.md, "Gated DeltaNet"). Source:
// QwenLM/FlashQLA benchmark/benchmark_results_H200.txt (c18a486; NVIDIA H200, torch 2.9.1, fla
// 0.5.1, CUDA graphs, 10 warm-up and 100 timed runs, key and value width 128): fla's forward over
// one 32,768-token sequence takes 0.902, 1.275, 1.890 and 3.331 ms at 8, 16, 32 and 64 value
// heads (the "1x32768" rows), its backward 2.743, 3.701 and 5.697 ms at 8, 16 and 32 (the
// "32k_1seq" rows). Per token and head that is 3.44, 2.43, 1.80 and 1.59 ns forward and 10.46,
// 7.06 and 5.43 ns backward: fewer heads fill fewer SMs. Other devices scale by their dense
// 16-bit rate against the H200's 989.5 TFLOP/s (a Triton kernel of tensor-core tiles; no other
// device's figure is published for fla); the band's kernel knob scales it as it does the rest.
#include "trainbudget/eval/gated_delta_cost.hpp"

#include <array>
#include <cmath>

namespace tb {
namespace {

struct Point {
  double heads;
  double ns_per_token_head;
};

constexpr std::array<Point, 4> kForward{{{8, 3.441}, {16, 2.432}, {32, 1.802}, {64, 1.588}}};
constexpr std::array<Point, 3> kBackward{{{8, 10.464}, {16, 7.059}, {32, 5.433}}};
constexpr double kH200DenseBf16 = 989.5e12;

// Linear in log2(heads) between the measured points, the end points' values outside them.
template <std::size_t N>
double per_token_head(const std::array<Point, N>& table, double heads) {
  if (heads <= table.front().heads) return table.front().ns_per_token_head;
  for (std::size_t i = 1; i < N; ++i) {
    if (heads <= table[i].heads) {
      const double t =
          std::log2(heads / table[i - 1].heads) / std::log2(table[i].heads / table[i - 1].heads);
      return table[i - 1].ns_per_token_head +
             t * (table[i].ns_per_token_head - table[i - 1].ns_per_token_head);
    }
  }
  return table.back().ns_per_token_head;
}

}  // namespace

double recurrence_state_share(double key_width, double value_width) noexcept {
  constexpr double kMeasuredState = 128.0 * 128.0;
  return key_width > 0.0 && value_width > 0.0 ? key_width * value_width / kMeasuredState : 1.0;
}

Seconds gated_delta_seconds(double token_heads, double local_heads, bool backward,
                            const ClusterProfile& c) noexcept {
  const double rate = c.rate_16.value();
  if (token_heads <= 0.0 || local_heads <= 0.0 || rate <= 0.0) return Seconds{0.0};
  const double ns =
      backward ? per_token_head(kBackward, local_heads) : per_token_head(kForward, local_heads);
  return Seconds{token_heads * ns * 1e-9 * kH200DenseBf16 / (rate * c.knobs.kernel)};
}

}  // namespace tb
