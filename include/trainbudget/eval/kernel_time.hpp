// One micro-batch as the kernels a real run launches, priced by a cost backend: per decoder
// layer kind the forward, backward (activation and weight gradients) and recomputed passes of
// its GEMMs, its attention kernel and its memory-bound kernels, each pass with its launch count.
// No allocation, no strings: evaluate() calls it for every layout. docs/time.md.
#pragma once

#include <vector>

#include "trainbudget/eval/kernel_cost.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

// One pass of one decoder layer (or of the head, or the embedding) on one device.
struct PassTime {
  Seconds gemm{0.0};       // the linear layers (and LoRA's, and eager attention's products)
  Seconds attention{0.0};  // the fused attention kernel
  Seconds memory{0.0};     // element-wise and reduction kernels, casts, dequantisation
  double kernels{0.0};     // launches
  [[nodiscard]] Seconds device() const { return gemm + attention + memory; }
  PassTime& operator*=(double times) {
    gemm *= times;
    attention *= times;
    memory *= times;
    kernels *= times;
    return *this;
  }
  PassTime& operator+=(const PassTime& o) {
    gemm += o.gemm;
    attention += o.attention;
    memory += o.memory;
    kernels += o.kernels;
    return *this;
  }
};

struct LayerPasses {
  PassTime forward, backward, recompute;
  [[nodiscard]] PassTime all() const {
    PassTime out = forward;
    out += backward;
    out += recompute;
    return out;
  }
};

// One micro-batch's passes on one device, per piece of the model.
struct MicroBatchKernels {
  LayerPasses dense;      // one dense decoder layer
  LayerPasses moe;        // one MoE decoder layer
  LayerPasses head;       // final norm, LM head and loss (the last pipeline stage)
  LayerPasses embedding;  // the lookup and its gradient (the first stage)
  LayerPasses vision;     // the image encoder and projector (the first stage; eval/vision_cost)
};

[[nodiscard]] MicroBatchKernels micro_batch_kernels(const ModelProfile& profile,
                                                    const Layout& layout,
                                                    const ClusterProfile& cluster,
                                                    const KernelCostModel& cost) noexcept;

// The distinct GEMM shapes (m, n, k) one micro-batch launches on one device: what `trainbudget
// measure --step` times so that the measured backend prices the step's own shapes.
struct GemmDims {
  double m{0.0}, n{0.0}, k{0.0};
  bool operator==(const GemmDims&) const = default;
};
[[nodiscard]] std::vector<GemmDims> step_gemm_shapes(const ModelProfile& profile,
                                                     const Layout& layout);

// A pass's time: its kernels' device time plus the device's gap between launches, or the
// host's time to issue them when that is longer (eager PyTorch on small shapes).
[[nodiscard]] Seconds pass_time(const PassTime& pass, Dispatch dispatch,
                                const ClusterProfile& cluster) noexcept;

// Keys one query of a causal decoder layer attends to on average over the model's layers
// (their sliding windows), as the kernel computes them whatever the FLOP-counting convention.
[[nodiscard]] double mean_causal_keys(const ModelProfile& profile, double seq_len) noexcept;

}  // namespace tb
