// The 16-bit weight copy a QLoRA GEMM multiplies through: bitsandbytes' MatMul4Bit
// dequantises the NF4 weight (F.dequantize_4bit(B, quant_state).to(A.dtype)) before each
// forward and activation-gradient GEMM, and torchao's NF4 linear does the same; the copy lives
// while its GEMM runs. Internal to src/eval.
#pragma once

#include <algorithm>
#include <vector>

#include "trainbudget/model/kernel_inventory.hpp"

namespace tb {

// Bytes of the largest such copy (n x k x `bytes`, this device's 1/tp of a split linear); 0
// when nothing is stored in NF4.
inline double largest_dequantized_bytes(const KernelInventory& kernels, double tp, double bytes) {
  double most = 0.0;
  for (const std::vector<GemmKernel>* layer : {&kernels.dense, &kernels.moe}) {
    for (const GemmKernel& g : *layer) {
      if (g.quantized_bytes <= 0.0) continue;
      const double share = g.split == GemmSplit::kNone ? 1.0 : tp;
      most = std::max(most, g.n * g.k * bytes / share);
    }
  }
  return most;
}

}  // namespace tb
