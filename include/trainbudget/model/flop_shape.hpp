// The model's part of the FLOP count: multiply-adds per token of each group of GEMMs, the
// attention widths and each layer's window. Built once per profile; eval/flop_terms adds the
// sequence length and the kernels. docs/activations.md ("FLOPs").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb {

// The FLOP terms in the order they are summed and shown.
enum class FlopTerm : std::uint8_t {
  kAttentionProjections,
  kMlp,
  kRoutedExperts,
  kSharedExperts,
  kRouter,
  kAttentionScores,
  kLinearAttention,
  kLmHead,
  kAdapters,
};
inline constexpr std::size_t kFlopTermCount = 9;

struct FlopShape {
  // Multiply-adds per token of the decoder's GEMM groups (attention projections, dense MLP,
  // routed experts counted for the k a token uses, shared experts, router) and of the LM head.
  std::array<double, 5> group_macs{};
  double head_macs{0.0};
  double adapter_macs{0.0};  // sum(r*(in+out)*n_active)
  bool frozen_base{false};   // LoRA: the base GEMMs compute no weight gradient
  double a{0.0}, d{0.0}, d_v{0.0};
  // Per attending decoder layer: its sliding window, 0 = global (Gated DeltaNet layers have none).
  std::vector<std::int64_t> windows;
  // A linear mixer's recurrence (Gated DeltaNet's, Mamba-2's SSD) and causal conv over its
  // layers, forward FLOPs per token (gated_delta_flops); 0 without such layers.
  double linear_attention_flops{0.0};
  double reference_6n{0.0};  // 6 x the parameters a token uses
};

// One Gated DeltaNet layer's forward FLOPs per token outside its projections, as Megatron-Bridge
// counts them (training/utils/flop_utils.py, the GDN branch of transformer_flops): the chunked
// delta rule's 4 multiply-adds per value head and key x value channel, and the depthwise causal
// conv's taps over q, k and v.
// A Mamba-2 mixer's: its SSD in chunks of chunk_size tokens and the conv (flop_shape.cpp).
[[nodiscard]] double gated_delta_flops(const LinearAttentionSpec& g) noexcept;

// The architecture's FLOP shape; `adapters` empty and frozen_base false for full training.
[[nodiscard]] FlopShape flop_shape(const ModelArchitecture& arch, bool frozen_base,
                                   const std::vector<AdapterShape>& adapters);

}  // namespace tb
