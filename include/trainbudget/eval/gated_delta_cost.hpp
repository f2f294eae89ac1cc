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

// A head's state against the measured one's (key width x value width over 128 x 128): the
// chunked recurrence's matmuls over a head scale with its state (Gated DeltaNet's and Mamba-2's
// SSD alike: Yang et al. 2024, sec. 3.3; Dao & Gu 2024, sec. 6), so a Mamba-2 head of d_state 128
// and head_dim 64 costs half a measured head. Mamba-2's SSD is priced on this table (docs/time.md,
// "Mamba-2"): no published table of its kernel gives its shapes, forward and backward.
[[nodiscard]] double recurrence_state_share(double key_width, double value_width) noexcept;

}  // namespace tb
