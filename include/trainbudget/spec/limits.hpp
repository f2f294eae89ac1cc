// The accepted range of every number a user gives outside a model's architecture (whose
// dimension limits live with its checks, spec/architecture.cpp), in one place; docs/limits.md
// lists them all. Each bound is past any real job by orders of magnitude, so that only a typo
// or a hostile input meets it, and so that every derived figure (FLOPs, hours, dollars, bytes)
// stays finite: the largest, 6 x 1e15 parameters x 1e16 tokens / (1e-3 x 1e6 FLOP/s), is 6e34 s.
#pragma once

namespace tb {

struct Range {
  double lo;
  double hi;
  [[nodiscard]] constexpr bool contains(double v) const { return v >= lo && v <= hi; }
};

// Parameters: 1 to 1e15 (over a thousand times DeepSeek-V3's 6.7e11).
inline constexpr Range kParamsRange{1.0, 1e15};
// Training tokens: 1 to 1e16 (Llama 3 trained on 1.56e13; Qwen3 on 3.6e13).
inline constexpr Range kTokensRange{1.0, 1e16};
// Model-FLOPs utilization: 0.1 % to 100 %.
inline constexpr Range kUtilizationRange{1e-3, 1.0};

// Device figures in a hardware TOML (docs/hardware-catalog.md), in the file's units.
// Dense or sparse rate, TFLOP/s: 1 MFLOP/s to 10 EFLOP/s (a GB200 NVL72 rack is 0.72 EFLOP/s
// sparse FP4, NVIDIA's datasheet).
inline constexpr Range kTflopsRange{1e-6, 1e7};
// Memory capacity, GB or GiB: 1 kB to 1 PB.
inline constexpr Range kCapacityRange{1e-6, 1e6};
// Memory or link bandwidth, GB/s: 1 kB/s to 10 PB/s.
inline constexpr Range kBandwidthRange{1e-6, 1e7};
// Board power, W: 1 mW to 1 MW.
inline constexpr Range kTdpRange{1e-3, 1e6};
// Rental price, USD per device-hour: 1e-6 to 1e6.
inline constexpr Range kUsdPerHourRange{1e-6, 1e6};

}  // namespace tb
