// The activation term tables: every tensor a decoder layer or the head keeps for the backward
// pass, as static rows (key, module, when it exists, its element count, its dtype, the words).
// The evaluator sums the numbers of these rows and the --explain / text views print their
// words, so what is shown and what is added cannot drift apart. docs/activations.md derives each
// row, starting from Korthikanti et al. 2022, eq. 1.
#pragma once

#include <cstdint>
#include <span>

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
  return shape;
}

// How many bytes one element of a row takes.
enum class ElementBytes : std::uint8_t {
  kActivation,  // the activation dtype (StepDims::e)
  kFp32,        // 4
  kMask,        // torch.bool dropout masks: 1
  kTokenId,     // int64 token ids: 8
};

[[nodiscard]] constexpr double element_bytes(ElementBytes kind, double e) {
  switch (kind) {
    case ElementBytes::kActivation:
      return e;
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

// Sum of the head rows' bytes.
[[nodiscard]] Bytes head_bytes(const StepDims& d) noexcept;

// fp32 gradient of the logits, b*s*V*4, produced by the loss at the start of backward.
[[nodiscard]] inline Bytes logits_gradient_bytes(const StepDims& d) noexcept {
  return Bytes{d.b * d.s * d.V * 4.0};
}

}  // namespace tb
