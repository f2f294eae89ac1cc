// FLOPs per token, one term per group of GEMMs plus the attention products.
#include "trainbudget/eval/flop_terms.hpp"

#include <algorithm>

namespace tb {
namespace {

// Extra forward work the hardware runs for the attention products: FlashAttention's backward
// recomputes QK^T (Dao 2023, FlashAttention-2, sec. 4.1: backward = 2.5x forward, against 2x
// for a stored-probabilities backward), and selective recomputation reruns the whole core
// forward (Korthikanti et al. 2022, sec. 5).
double attention_recompute(const FlopsSetup& setup, double forward) {
  double extra = 0.0;
  if (setup.attention == AttentionImpl::kFlash) extra += 0.5 * forward;
  // Selective, and full's rerun; per-op selective AC keeps the attention kernel's output.
  if (setup.recompute == Recompute::kSelective || setup.recompute == Recompute::kFull) {
    extra += forward;
  }
  return extra;
}

FlopTermValue term(double forward, double backward, double recompute) {
  return {forward, backward, forward * (1.0 + backward), recompute};
}

}  // namespace

double keys_per_query(double s, double span, bool causal) noexcept {
  if (!causal) return span;
  return (span * (span + 1.0) / 2.0 + (s - span) * span) / s;
}

FlopCounts count_flops(const FlopShape& shape, const FlopsSetup& setup) noexcept {
  FlopCounts out;
  // Frozen GEMMs: activation gradient only (backward = 1x forward); trained: 2x (Kaplan et al.
  // 2020 sec. 2.1; Narayanan et al. 2021 sec. 5.1).
  const double gemm_backward = shape.frozen_base ? 1.0 : 2.0;
  const bool full_recompute = setup.recompute == Recompute::kFull;
  for (std::size_t g = 0; g < shape.group_macs.size(); ++g) {
    const double forward = 2.0 * shape.group_macs[g];
    // Per-op selective AC reruns every second matmul: half of each group's forward.
    const double rerun = full_recompute                               ? forward
                         : setup.recompute == Recompute::kSelectiveOp ? 0.5 * forward
                                                                      : 0.0;
    out.terms[g] = term(forward, gemm_backward, rerun);
  }
  // Per token and layer, QK^T takes a*d multiply-adds per key and AV a*d_v, over the keys the
  // query sees (keys_per_query, with the layer's sliding window where it has one).
  const auto s_int = setup.seq_len;
  const double s = static_cast<double>(s_int);
  double keys = 0.0;
  for (const std::int64_t window : shape.windows) {
    const auto span = static_cast<double>(window > 0 ? std::min(s_int, window) : s_int);
    out.windowed = out.windowed || span < s;
    keys += keys_per_query(s, span, setup.causal);
  }
  const double attention = 2.0 * shape.a * keys * (shape.d + shape.d_v);
  out.terms[static_cast<std::size_t>(FlopTerm::kAttentionScores)] =
      term(attention, 2.0, attention_recompute(setup, attention));
  // Gated DeltaNet: backward 2x forward (Megatron-Bridge counts the layer's training FLOPs as 3x
  // its forward); full recomputation reruns it.
  const double linear = shape.linear_attention_flops;
  out.terms[static_cast<std::size_t>(FlopTerm::kLinearAttention)] =
      term(linear, 2.0, full_recompute ? linear : 0.0);
  // Full recomputation reruns the decoder layers only, not the LM head (Narayanan et al. 2021,
  // sec. 5.1: the head keeps the 6hV of one forward and backward), over the positions that get
  // logits (head_share: all, or the completion's under logits_to_keep).
  out.terms[static_cast<std::size_t>(FlopTerm::kLmHead)] =
      term(2.0 * shape.head_macs * setup.head_share, gemm_backward, 0.0);
  // Each adapter costs the full 6 per parameter for the tokens that pass it (Hu et al. 2021).
  const double adapters = 2.0 * shape.adapter_macs;
  out.terms[static_cast<std::size_t>(FlopTerm::kAdapters)] =
      term(adapters, 2.0, full_recompute ? adapters : 0.0);
  for (const FlopTermValue& t : out.terms) {
    out.forward_per_token += t.forward;
    out.model_per_token += t.model;
    out.hardware_per_token += t.model + t.recompute;
  }
  return out;
}

}  // namespace tb
