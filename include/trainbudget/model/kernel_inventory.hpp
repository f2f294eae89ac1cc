// The GEMMs one decoder layer launches, as shapes: what the step's kernel-by-kernel time prices
// (eval/kernel_time.hpp). Facts of the model and the method, built once per profile from the
// linear-layer inventory; the layout's tokens and tensor/expert splits are applied per
// evaluation without allocation. docs/time.md, "The step as kernels".
#pragma once

#include <cstdint>
#include <vector>

#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/lora_spec.hpp"

namespace tb {

// How tensor parallelism cuts a linear (Shoeybi et al. 2019, sec. 3): column-parallel layers
// split their output features, row-parallel ones their input features; the vocabulary-parallel
// LM head is column-parallel.
enum class GemmSplit : std::uint8_t { kNone, kColumn, kRow };

// One linear layer's forward GEMM per token: y[M x n] = x[M x k] W[k x n]. Backward runs the
// activation gradient (M x k, reduced over n) and, when trained, the weight gradient (k x n,
// reduced over M).
struct GemmKernel {
  double n{0.0};          // output features
  double k{0.0};          // input features
  double instances{1.0};  // per layer (routed experts: all of them)
  double active{1.0};     // instances one token runs through (top-k)
  GemmSplit split{GemmSplit::kNone};
  bool trained{true};  // a weight gradient in backward
  bool expert{false};  // a routed expert: its tokens are k/E of the layer's
  // QLoRA: the NF4 weight's stored bytes per instance (4-bit codes and their constants,
  // nf4_constant_bytes), read and dequantised to 16 bits before each use; 0 otherwise.
  double quantized_bytes{0.0};
};

struct KernelInventory {
  std::vector<GemmKernel> dense;     // one dense decoder layer's linears
  std::vector<GemmKernel> moe;       // one MoE decoder layer's linears
  std::vector<GemmKernel> adapters;  // LoRA's A and B GEMMs per decoder layer (spread evenly)
  GemmKernel head;                   // the LM head
  double routed_experts{0.0};        // E
  double top_k{0.0};                 // k
};

// `frozen_base`: LoRA/QLoRA/freeze's base computes no weight gradient; `nf4` (QLoRA): the base
// is stored in 4 bits with those options and dequantised per GEMM.
[[nodiscard]] KernelInventory kernel_inventory(const ModelArchitecture& arch, bool frozen_base,
                                               const QloraOptions* nf4,
                                               const std::vector<AdapterShape>& adapters);

}  // namespace tb
