// The activation rows outside the decoder layers: token ids, embedding dropout, final norm,
// LM head input, logits and the loss's buffers, and what the loss's backward holds. Each row's
// derivation is in docs/activations.md, the loss implementations in docs/frameworks.md.
#include <array>

#include "row_helpers.hpp"

namespace tb {
namespace {

using namespace rows;

// The logits' elements: every kept position's V (b*s*V, or its head_share under logits_to_keep).
double logit_elements(D d) { return d.b * d.s * d.head_share * d.V; }

constexpr std::array kHeadRows{
    // Megatron-LM theoretical_memory_usage.py counts the int64 ids (8sb) the embedding's
    // backward scatters into.
    ActivationRow{"head", "token_ids", always, [](D d) { return d.b * d.s; },
                  ElementBytes::kTokenId, false,
                  [](D) { return "token ids [b, s] (int64): the embedding backward's indices"; },
                  [](D) { return "b*s*8"; }},
    // Korthikanti et al. 2022 sec. 4.3: "dropout in the input embeddings ... sbhp" (p = 1).
    ActivationRow{"head", "embedding_dropout_mask", with_dropout, bsh, ElementBytes::kMask, false,
                  [](D) { return "dropout mask on the embeddings [b, s, h] (bool)"; }, f_bsh1},
    TB_NORM_ROWS("head", "final_norm", always, with_stats,
                 "last layer's output [b, s, h], final norm input"),
    // Korthikanti et al. 2022 sec. 4.3: "output layer projection 2sbh", "cross entropy ... 4sbv".
    // Under logits_to_keep the head's input is the kept positions' slice (head_share).
    ActivationRow{"head", "lm_head_input", always,
                  [](D d) { return d.b * d.s * d.head_share * d.h; }, ElementBytes::kActivation,
                  false,
                  [](D) {
                    return "final norm output [b, s, h] (activation dtype): the LM head's weight "
                           "gradient needs it";
                  },
                  [](D d) { return d.head_share < 1.0 ? "b*s_l*h*e" : "b*s*h*e"; }},
    ActivationRow{"head", "logits",
                  [](D d) {
                    return (d.keep_logits && d.loss != LossImpl::kLinear) ||
                           d.loss == LossImpl::kChunked;
                  },
                  logit_elements, ElementBytes::kActivation, false,
                  [](D d) {
                    return d.loss == LossImpl::kChunked
                               ? "LM head output [b, s, V] in chunks (activation dtype): the "
                                 "compiled per-chunk loss saves its input"
                               : "LM head output [b, s, V] (activation dtype), the returned "
                                 "logits the training loop holds through backward";
                  },
                  [](D d) { return d.head_share < 1.0 ? "b*s_l*V*e" : "b*s*V*e"; }},
    ActivationRow{"head", "loss_buffer", [](D d) { return d.loss == LossImpl::kFused; },
                  logit_elements, ElementBytes::kFp32, false,
                  [](D) {
                    return "fp32 softmax [b, s, V] a fused cross-entropy keeps for its "
                           "backward (which writes the gradient once)";
                  },
                  [](D d) { return d.head_share < 1.0 ? "b*s_l*V*4" : "b*s*V*4"; }},
    ActivationRow{"head", "log_probs", [](D d) { return d.loss == LossImpl::kFull; },
                  logit_elements, ElementBytes::kLoss, false,
                  [](D d) {
                    return d.logits_fp32 ? "log_softmax output [b, s, V] of the fp32-upcast "
                                           "logits (fp32): F.cross_entropy saves it"
                                         : "log_softmax output [b, s, V] (the logits' dtype): "
                                           "F.cross_entropy saves it";
                  },
                  [](D d) {
                    if (d.head_share < 1.0) return d.logits_fp32 ? "b*s_l*V*4" : "b*s_l*V*e";
                    return d.logits_fp32 ? "b*s*V*4" : "b*s*V*e";
                  }},
    // Wijmans et al. 2024 (Cut Cross-Entropy), sec. 4: forward keeps the log-sum-exp of each
    // position's logits; backward recomputes the logits tile by tile from the head's input.
    ActivationRow{"head", "loss_lse", [](D d) { return d.loss == LossImpl::kLinear; },
                  [](D d) { return d.b * d.s * d.head_share; }, ElementBytes::kFp32, false,
                  [](D) {
                    return "log-sum-exp [b, s] (fp32) a linear cross-entropy keeps; the "
                           "logits never exist whole";
                  },
                  [](D d) { return d.head_share < 1.0 ? "b*s_l*4" : "b*s*4"; }},
};

}  // namespace

std::span<const ActivationRow> head_rows() { return kHeadRows; }

Bytes logits_gradient_bytes(const StepDims& d) noexcept {
  const double bsv = logit_elements(d);
  switch (d.loss) {
    case LossImpl::kFused:
      return Bytes{bsv * 4.0};
    case LossImpl::kFull:
      // In-place temperature scaling: four logit-sized tensors at CopySlices where the saved
      // log-probs have gone (torch/csrc/autograd/functions/tensor.cpp, CopySlices::apply:
      // `result.copy_(grad)`, `grad_slice.clone()`, the view's function on it, beside `grad`).
      return Bytes{(d.logits_scaled_in_place ? 3.0 : 2.0) * bsv *
                   element_bytes(ElementBytes::kLoss, d)};
    case LossImpl::kChunked:
      return Bytes{bsv * (4.0 + d.e) / d.loss_chunks};
    case LossImpl::kLinear:
      // The logits' gradient lives in on-chip tiles, folded into the head input's gradient.
      return Bytes{0.0};
  }
  return Bytes{bsv * 4.0};
}

Bytes loss_released_bytes(const StepDims& d) noexcept {
  if (d.loss != LossImpl::kFull) return Bytes{0.0};
  return Bytes{logit_elements(d) * element_bytes(ElementBytes::kLoss, d)};
}

Bytes head_bytes(const StepDims& d) noexcept {
  double sum = 0.0;
  for (const ActivationRow& row : kHeadRows) {
    if (row.applies(d)) sum += row.elements(d) * element_bytes(row.bytes, d);
  }
  return Bytes{sum};
}

}  // namespace tb
