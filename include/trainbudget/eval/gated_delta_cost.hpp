// The time of Gated DeltaNet's chunked recurrence (fla's chunk_gated_delta_rule, which
// transformers' Qwen3-Next and Qwen3.5 layers call), from a published kernel benchmark.
#pragma once

#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// The recurrence over `token_heads` (tokens x value heads on this device) when the device runs
// `local_heads` value heads of key and value width 128 per sequence; forward or backward.
[[nodiscard]] Seconds gated_delta_seconds(double token_heads, double local_heads, bool backward,
                                          const ClusterProfile& c) noexcept;

}  // namespace tb
