// The shape of low-rank adapters as activation memory and FLOPs need it, independent of how
// the adapters were chosen (LoRA targets, ranks): one row per distinct adapted linear.
#pragma once

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

  [[nodiscard]] std::int64_t params() const { return rank * (in_features + out_features); }
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

// sum(in_features x active instances): the adapter inputs a token's dropped copies take.
[[nodiscard]] inline double adapter_input_sum(const std::vector<AdapterShape>& adapters) {
  double sum = 0.0;
  for (const AdapterShape& a : adapters) {
    sum += static_cast<double>(a.in_features) * static_cast<double>(a.active());
  }
  return sum;
}

}  // namespace tb
