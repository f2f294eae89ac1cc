// The analytic kernel cost backend (docs/time.md, "Kernels").
#include "trainbudget/eval/kernel_cost.hpp"

#include <algorithm>
#include <cmath>

namespace tb {
namespace {

// FlashAttention-2 (Dao 2023, sec. 4.1) counts the backward pass as 2.5x the forward's FLOPs
// (it recomputes QK^T and runs four more products where forward runs two).
constexpr double kAttentionBackwardFlops = 2.5;

// The share of the SMs' tile slots over the kernel's waves that hold useful output: `batch`
// problems of m x n in one grid (a batched GEMM's batch is the grid's z dimension: CUTLASS
// GemmBatchedIdentityThreadblockSwizzle::get_grid_shape; a grouped GEMM schedules every
// problem's tiles over the same SMs), so the last wave is shared by all of them.
double tile_fill(double m, double n, double tm, double tn, double units, double batch) {
  const double tiles = std::ceil(m / tm) * std::ceil(n / tn) * batch;
  const double waves = std::ceil(tiles / units);
  return (m * n * batch) / (waves * units * tm * tn);
}

}  // namespace

double wave_efficiency(double m, double n, const KernelCosts& k, double batch) noexcept {
  if (k.compute_units <= 0 || m <= 0.0 || n <= 0.0) return 1.0;
  const double units = k.compute_units;
  // The library picks among tile shapes; the class's large tile, its transpose and the half
  // tile stand for that choice.
  const double b = std::max(batch, 1.0);
  const double best = std::max({tile_fill(m, n, k.tile_m, k.tile_n, units, b),
                                tile_fill(m, n, k.tile_n, k.tile_m, units, b),
                                tile_fill(m, n, k.tile_m, k.tile_n / 2.0, units, b)});
  return std::clamp(best, 1e-3, 1.0);
}

// The table of the kernel the framework calls; a class without one prices it as FlashAttention-2.
const AttentionTable& attention_table(const KernelCosts& k, AttentionKernel kernel) noexcept {
  if (kernel == AttentionKernel::kVendor && k.vendor.present) return k.vendor;
  if (kernel == AttentionKernel::kFlash1 && k.flash1.present) return k.flash1;
  return k.flash2;
}

double attention_efficiency(const AttentionTable& t, double d, double seq, bool backward) noexcept {
  if (!t.present || d <= 0.0 || seq <= 0.0) return 0.0;
  std::size_t hd = 0;
  double nearest = 1e300;
  for (std::size_t i = 0; i < kAttentionHeadDims.size(); ++i) {
    const double distance = std::abs(std::log2(d / kAttentionHeadDims[i]));
    if (distance < nearest) {
      nearest = distance;
      hd = i;
    }
  }
  const auto& row = backward ? t.backward[hd] : t.forward[hd];
  const double x = std::log2(seq);
  const double first = std::log2(kAttentionSeqPoints.front());
  const double last = std::log2(kAttentionSeqPoints.back());
  if (x <= first) return row.front();
  if (x >= last) return row.back();
  for (std::size_t i = 0; i + 1 < kAttentionSeqPoints.size(); ++i) {
    const double x0 = std::log2(kAttentionSeqPoints[i]);
    const double x1 = std::log2(kAttentionSeqPoints[i + 1]);
    if (x <= x1) return row[i] + (row[i + 1] - row[i]) * (x - x0) / (x1 - x0);
  }
  return row.back();
}

Seconds AnalyticKernelCost::gemm(const GemmShape& g, const ClusterProfile& c) const noexcept {
  if (g.m <= 0.0 || g.n <= 0.0 || g.k <= 0.0 || g.count <= 0.0) return Seconds{0.0};
  const bool fp8 = g.fp8 && c.rate.value() > 0.0;
  const double peak =
      fp8 ? c.rate.value() * c.gemm_efficiency : c.rate_16.value() * c.gemm_efficiency_16;
  if (peak <= 0.0) return Seconds{0.0};
  const double flops = 2.0 * g.m * g.n * g.k;
  const double wave = wave_efficiency(g.m, g.n, c.kernels, g.batched ? g.count : 1.0);
  const double compute = flops / (peak * wave * c.knobs.kernel);
  // The roofline's other side: A and B read once and C written once (16-bit C; fp8 inputs).
  double traffic = 0.0;
  const double bandwidth = c.memory_bandwidth.value() * c.kernels.elementwise_efficiency;
  if (bandwidth > 0.0 && c.kernels.compute_units > 0) {
    const double in = fp8 ? 1.0 : 2.0;
    traffic = ((g.m * g.k + g.k * g.n) * in + g.m * g.n * 2.0) / (bandwidth * c.knobs.kernel);
  }
  return Seconds{std::max(compute, traffic) * g.count};
}

Seconds AnalyticKernelCost::attention(const AttentionShape& a, bool backward,
                                      const ClusterProfile& c) const noexcept {
  const double forward_flops = 2.0 * a.heads * a.queries * a.keys * (a.d + a.d_v);
  if (forward_flops <= 0.0) return Seconds{0.0};
  const double flops = backward ? kAttentionBackwardFlops * forward_flops : forward_flops;
  const AttentionTable& table = attention_table(c.kernels, a.kernel);
  double rate =
      c.rate_16.value() * attention_efficiency(table, 0.5 * (a.d + a.d_v), a.seq, backward);
  // No table for the class: the GEMM ceiling, as a datasheet model prices it.
  if (rate <= 0.0) rate = c.rate_16.value() * c.gemm_efficiency_16;
  if (rate <= 0.0) return Seconds{0.0};
  return Seconds{flops / (rate * c.knobs.kernel)};
}

Seconds AnalyticKernelCost::memory(Bytes bytes, const ClusterProfile& c) const noexcept {
  const double bandwidth = c.memory_bandwidth.value() * c.kernels.elementwise_efficiency;
  if (bandwidth <= 0.0 || bytes.value() <= 0.0) return Seconds{0.0};
  return Seconds{bytes.value() / (bandwidth * c.knobs.kernel)};
}

Seconds MeasuredKernelCost::gemm(const GemmShape& g, const ClusterProfile& c) const noexcept {
  if (g.m <= 0.0 || g.n <= 0.0 || g.k <= 0.0 || g.count <= 0.0) return Seconds{0.0};
  const MeasuredGemm* nearest = nullptr;
  double best = 1e300;
  if (c.gemm_table != nullptr) {
    for (const MeasuredGemm& row : *c.gemm_table) {
      if (row.dtype != c.gemm_dtype || row.rate.value() <= 0.0) continue;
      const double distance = std::abs(std::log(g.m / static_cast<double>(row.m))) +
                              std::abs(std::log(g.n / static_cast<double>(row.n))) +
                              std::abs(std::log(g.k / static_cast<double>(row.k)));
      if (distance < best) {
        best = distance;
        nearest = &row;
      }
    }
  }
  if (nearest == nullptr) return AnalyticKernelCost{}.gemm(g, c);
  return Seconds{2.0 * g.m * g.n * g.k / (nearest->rate.value() * c.knobs.kernel) * g.count};
}

Seconds MeasuredKernelCost::attention(const AttentionShape& a, bool backward,
                                      const ClusterProfile& c) const noexcept {
  return AnalyticKernelCost{}.attention(a, backward, c);
}

Seconds MeasuredKernelCost::memory(Bytes bytes, const ClusterProfile& c) const noexcept {
  return AnalyticKernelCost{}.memory(bytes, c);
}

Seconds fresh_tensor_time(double bytes, double count, const ClusterProfile& c,
                          double largest) noexcept {
  double threshold = c.kernels.fresh_tensor_bytes;
  if (threshold > 0.0 && largest > 0.0) threshold = std::min(threshold, largest);
  const double rate = c.first_touch_bandwidth.value();
  if (threshold <= 0.0 || rate <= 0.0 || bytes < threshold || count <= 0.0) return Seconds{0.0};
  return Seconds{bytes * count / (rate * c.knobs.kernel)};
}

const KernelCostModel& default_kernel_cost_model() noexcept {
  static const AnalyticKernelCost model;
  return model;
}

const KernelCostModel& kernel_cost_model_for(const ClusterProfile& c) noexcept {
  static const MeasuredKernelCost measured;
  if (c.gemm_table != nullptr && !c.gemm_table->empty()) return measured;
  return default_kernel_cost_model();
}

}  // namespace tb
