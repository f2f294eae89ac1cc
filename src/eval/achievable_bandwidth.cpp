// The achievable share of a device's memory bandwidth, by class, each fraction from
// measurements (docs/inference.md, "Achievable bandwidth").
#include "trainbudget/eval/achievable_bandwidth.hpp"

#include <fmt/format.h>

namespace tb {
namespace {

struct ClassFraction {
  double fraction;
  const char* source;
};

// Apple unified memory: one PyTorch MPS copy test across Apple GPUs (chsasank/device-benchmarks
// README at 7ccc883, 2025-04-15): M2 Ultra 76-core 636 of 800 GB/s (79.5 %), M3 Max 40-core 318
// of 400 (79.5 %), M4 Max 40-core 396 of 546 (72.5 %); their mean.
constexpr ClassFraction kApple{0.772,
                               "PyTorch MPS copy test (chsasank/device-benchmarks 7ccc883): M2 "
                               "Ultra 79.5 %, M3 Max 79.5 %, M4 Max 72.5 % of peak; mean 77.2 %"};
// GDDR cards: the same copy test reaches RTX 4090 912 of 1008 GB/s (90.5 %) and RTX 3090 831 of
// 936 (88.8 %); RRZE's gpu-stream reads 98 % on their GDDR6 twins (A40, L40).
constexpr ClassFraction kGddr{0.897,
                              "PyTorch copy test (chsasank/device-benchmarks 7ccc883): RTX 4090 "
                              "90.5 %, RTX 3090 88.8 % of peak; mean 89.7 %"};
// HBM accelerators: STREAM reaches 88-95 % (RRZE gpu-benches gpu-stream: A100 80GB triad 1794
// of 2039 GB/s, H100 PCIe triad 92 %, GH200 95 %), but a batch-1 decode's mat-vec kernels do
// not: torch.compile'd gpt-fast reads 1397 GB/s on an A100-80GB (gpt-fast README, Llama-2-7B
// bf16) and torchao 1418.9 and 1435.5 GB/s (torchao quantization README, Llama-2-7B and
// Llama-3-8B bf16): 68.5 %, 69.6 % and 70.4 % of 2039; their mean.
constexpr ClassFraction kHbm{0.695,
                             "batch-1 bf16 decode on an A100-80GB: gpt-fast README 1397 GB/s, "
                             "torchao README 1418.9 and 1435.5 GB/s, of 2039; mean 69.5 % (STREAM "
                             "triad reaches 88 %, RRZE gpu-benches)"};

ClassFraction class_fraction(const Device& d) {
  if (d.vendor == "apple") return kApple;
  if (d.category == "consumer-gpu" || d.category == "workstation-gpu") return kGddr;
  return kHbm;
}

}  // namespace

std::optional<AchievableBandwidth> achievable_bandwidth(const Device& device) {
  if (!device.memory_bandwidth) return std::nullopt;
  AchievableBandwidth out;
  out.peak = *device.memory_bandwidth;
  if (device.memory_bandwidth_kind == RateKind::kMeasured) {
    out.achievable = out.peak;
    out.measured = true;
    out.source = fmt::format("measured ({})", device.memory_source);
    return out;
  }
  const ClassFraction c = class_fraction(device);
  out.fraction = c.fraction;
  out.achievable = out.peak * c.fraction;
  out.source = c.source;
  return out;
}

}  // namespace tb
