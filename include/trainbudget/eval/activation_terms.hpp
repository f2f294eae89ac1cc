// The activation term tables: every tensor a decoder layer or the head keeps for the backward
// pass, as static rows (key, module, when it exists, its element count, its dtype, the words).
// The evaluator sums the numbers of these rows and the --explain / text views print their
// words, so what is shown and what is added cannot drift apart. docs/activations.md derives each
// row, starting from Korthikanti et al. 2022, eq. 1.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/training_setup.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// The model's widths with one step's knobs: micro-batch, sequence length, activation dtype,
// attention kernel, dropout, and which layer kind the rows are for. evaluate() and the views
// both build their dims here. Inline: evaluate() calls it for every layer kind.
[[nodiscard]] inline StepDims with_step(StepDims shape, std::int64_t micro_batch,
                                        std::int64_t seq_len, DType activation_dtype,
                                        AttentionImpl attention, double dropout,
                                        bool moe_layer) noexcept {
  shape.b = static_cast<double>(micro_batch);
  shape.s = static_cast<double>(seq_len);
  shape.e = activation_bytes(activation_dtype);
  shape.p = dropout;
  shape.eager = attention == AttentionImpl::kEager;
  shape.dropout = dropout > 0.0;
  shape.moe_layer = moe_layer;
  if (moe_layer) shape.mlp_share = 1.0;  // every MoE layer has its block
  return shape;
}

// How many bytes one element of a row takes.
enum class ElementBytes : std::uint8_t {
  kActivation,   // the activation dtype (StepDims::e)
  kFp32,         // 4
  kMask,         // torch.bool dropout masks: 1
  kTokenId,      // int64 token ids: 8
  kLoss,         // the dtype the loss computes in: fp32 after an upcast, else the activation dtype
  kNorm,         // an RMSNorm's compute dtype: fp32 under eager-fp32, else the activation dtype
  kLinearInput,  // a linear layer's saved input: FP8 (1) under fp8_inputs, else the activation's
};

[[nodiscard]] constexpr double element_bytes(ElementBytes kind, const StepDims& d) {
  const double e = d.e;
  switch (kind) {
    case ElementBytes::kLoss:
      return d.logits_fp32 ? 4.0 : e;
    case ElementBytes::kNorm:
      return d.norm == NormImpl::kEagerFp32 && d.norm_stats == 1.0 ? 4.0 : e;
    case ElementBytes::kActivation:
      return e;
    case ElementBytes::kLinearInput:
      return d.fp8_inputs ? 1.0 : e;
    case ElementBytes::kFp32:
      return 4.0;
    case ElementBytes::kMask:
      return 1.0;
    case ElementBytes::kTokenId:
      return 8.0;
  }
  return e;
}

struct ActivationRow {
  const char* module;                   // norms | attention | mlp | moe | adapters | head
  const char* name;                     // snake_case id, unique within its table for one layer kind
  bool (*applies)(const StepDims&);     // whether the tensor exists for these shapes
  double (*elements)(const StepDims&);  // micro-batch included, per layer (or for the head)
  ElementBytes bytes;
  bool attention_core;                      // recomputed, not kept, under selective recompute
  const char* (*tensor)(const StepDims&);   // what it is, its dtype, why backward needs it
  const char* (*formula)(const StepDims&);  // elements x bytes in the views' symbols
};

// Rows of one decoder layer (dense and MoE rows together; `applies` picks by moe_layer).
[[nodiscard]] std::span<const ActivationRow> decoder_layer_rows();
// A decoder row's elements in the average layer: attention's rows weighed by the share of layers
// that attend, Gated DeltaNet's by the share that do not (StepDims::linear_share), the rest whole.
[[nodiscard]] double row_elements(const ActivationRow& row, const StepDims& d) noexcept;
// Rows outside the decoder layers: token ids, embedding dropout, final norm, LM head, loss.
[[nodiscard]] std::span<const ActivationRow> head_rows();

// The numbers of one decoder-layer kind under a recompute mode, summed from the rows.
struct LayerKindBytes {
  Bytes all;                  // every row (nothing recomputed)
  Bytes per_layer;            // what one layer keeps until its backward
  Bytes recompute_transient;  // rebuilt during the layer's backward only
  Bytes backward_workspace;   // 2*b*s*h*e + the largest activation-dtype row
};

// Korthikanti et al. 2022 sec. 5 / Table 2: selective recomputation drops the attention core
// rows; full recomputation keeps 2sbh per layer (the layer input) and rebuilds everything else
// in the layer's backward. No allocation, no strings.
[[nodiscard]] LayerKindBytes layer_kind_bytes(const StepDims& d, Recompute recompute) noexcept;

// Whether torchtitan's per-op selective AC keeps the decoder row named `row` (q, v, the
// attention output and logsumexp, the gate output); the down projection's output, which has no
// row, is kept too. layer_kind_bytes and the activation view both ask here.
[[nodiscard]] bool kept_by_selective_op(std::string_view row) noexcept;

// Sum of the head rows' bytes.
[[nodiscard]] Bytes head_bytes(const StepDims& d) noexcept;

// What the loss's backward holds at once besides the saved rows, at the start of backward:
// fused: the fp32 gradient of the logits (b*s*V*4); full (F.cross_entropy): the gradient of
// the log-probabilities and the one log_softmax's backward returns (2*b*s*V*c, c the loss
// dtype's bytes); chunked: one chunk's fp32 gradient and its cast to the logits' dtype
// (b*s*V*(4 + e)/N). docs/frameworks.md derives each.
[[nodiscard]] Bytes logits_gradient_bytes(const StepDims& d) noexcept;

// What the loss's backward frees before the LM head's weight gradient exists: under
// F.cross_entropy (full) the saved log-probabilities and the gradient that reached them, each
// b*s*V*c, so the head's moment holds one b*s*V buffer less twice over; nothing for a fused or
// chunked loss, whose buffers stay until the head's backward.
[[nodiscard]] Bytes loss_released_bytes(const StepDims& d) noexcept;

}  // namespace tb
