// The shape of low-rank adapters as activation memory and FLOPs need it, independent of how
// the adapters were chosen (LoRA targets, ranks): one row per distinct adapted linear.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tb {

// `count` adapters of rank `rank` on linear layers in_features -> out_features: A is
// rank x in, B is out x rank (Hu et al. 2021, sec. 4.1), r*(in + out) parameters each.
struct AdapterShape {
  std::int64_t in_features{0};
  std::int64_t out_features{0};
  std::int64_t rank{0};
  std::int64_t count{1};  // instances in the model (decoder layers x copies)
  // Instances one token runs through (routed experts: top-k of the copies); < 0: == count.
  std::int64_t active_count{-1};
  // DoRA: a magnitude per output row besides A and B, and the column norm of the dense adapted
  // weight every forward (Liu et al. 2024).
  bool dora{false};

  [[nodiscard]] std::int64_t params() const {
    return rank * (in_features + out_features) + (dora ? out_features : 0);
  }
  [[nodiscard]] std::int64_t active() const { return active_count < 0 ? count : active_count; }
};

// sum(r x active instances) over the adapters: the rank-r intermediates a token keeps.
[[nodiscard]] inline double adapter_rank_sum(const std::vector<AdapterShape>& adapters) {
  double sum = 0.0;
  for (const AdapterShape& a : adapters) {
    sum += static_cast<double>(a.rank) * static_cast<double>(a.active());
  }
  return sum;
}

// sum(out_features x active instances) over the DoRA adapters: the outputs a token's DoRA
// combination keeps (0 without DoRA).
[[nodiscard]] inline double dora_output_sum(const std::vector<AdapterShape>& adapters) {
  double sum = 0.0;
  for (const AdapterShape& a : adapters) {
    if (a.dora) sum += static_cast<double>(a.out_features) * static_cast<double>(a.active());
  }
  return sum;
}

// DoRA's column norm in one adapted module's forward (PEFT dora.py get_weight_norm): the
// identity [in, in], A's output on it [in, r], the dense B A [in, out] and its transpose, W + s
// B A [out, in] and the scaled copy, in the adapters' fp32 (PEFT's autocast_adapter_dtype):
// (in^2 + in r + 4 in out) x 4 bytes, freed when the module returns; the largest module's.
[[nodiscard]] inline double dora_norm_transient_bytes(const std::vector<AdapterShape>& adapters) {
  double most = 0.0;
  for (const AdapterShape& a : adapters) {
    if (!a.dora) continue;
    const auto in = static_cast<double>(a.in_features);
    const auto out = static_cast<double>(a.out_features);
    most = std::max(most, (in * in + in * static_cast<double>(a.rank) + 4.0 * in * out) * 4.0);
  }
  return most;
}

// sum(in_features x active instances): the adapter inputs a token's dropped copies take.
[[nodiscard]] inline double adapter_input_sum(const std::vector<AdapterShape>& adapters) {
  double sum = 0.0;
  for (const AdapterShape& a : adapters) {
    sum += static_cast<double>(a.in_features) * static_cast<double>(a.active());
  }
  return sum;
}

}  // namespace tb
