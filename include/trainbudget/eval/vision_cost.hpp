// The image encoder of a vision-language step (docs/vision.md, "Step"): its kernels per
// micro-batch, run on the first pipeline stage before the language model's first layer, and the
// activations it keeps when gradients run back through it.
#pragma once

#include "trainbudget/eval/kernel_cost.hpp"
#include "trainbudget/eval/kernel_time.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

// The whole encoder and its projector over one micro-batch's images on one device: per layer
// the fused qkv (SigLIP: q, k, v), the output projection, the MLP (fc1/fc2, or gate/up/down)
// and the merger as GEMMs of micro_batch x images x patches rows, bidirectional attention over
// each image's patches (Qwen2.5-VL: over 8 x 8 windows outside its full-attention layers), and
// the norms, activation and residual adds as memory-bound kernels. Backward (the activation
// gradients, and the weight gradients when the encoder trains) only when gradients run back
// through it; a frozen encoder without adapters runs its forward alone. The encoder is whole
// on each device (frameworks replicate it across tensor-parallel ranks). Mllama adds its
// language model's cross-attention over the image tokens (the k and v projections, k_norm and
// the text-to-image attention; docs/vision.md). Empty without images.
[[nodiscard]] LayerPasses vision_passes(const ModelProfile& p, const Layout& l,
                                        const ClusterProfile& c,
                                        const KernelCostModel& cost) noexcept;

// What the encoder keeps for its backward over one micro-batch: per layer and patch, the
// inputs of its two norms, the qkv GEMM, attention (q, k, v, its output) and the output
// projection, the MLP's input, its intermediate(s) and the activation's output (Korthikanti et
// al. 2022, eq. 1, without dropout masks); under full recomputation the layer's input alone.
// Zero when nothing runs back through the encoder (its forward then keeps nothing), except
// Mllama's image tokens and its cross-attention layers' keys and values.
[[nodiscard]] Bytes vision_saved_bytes(const ModelProfile& p, const Layout& l) noexcept;

}  // namespace tb
