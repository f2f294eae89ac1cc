// The image encoder's kernels and saved activations (docs/vision.md, "Step").
#include "trainbudget/eval/vision_cost.hpp"

#include <algorithm>

namespace tb {
namespace {

// The per-row element widths of one encoder layer's forward memory-bound kernels: two norms
// (x read, y written), the MLP's activation (its input(s) read, the output written), the two
// residual adds (two read, one written), and rotary on q and k (Qwen; read and written).
double layer_memory_widths(const VisionLoad& v) {
  const double mlp = v.gated ? 3.0 * v.intermediate : 2.0 * v.intermediate;
  const double rotary = v.merge > 1.0 ? 4.0 * v.hidden : 0.0;
  return 4.0 * v.hidden + mlp + 6.0 * v.hidden + rotary;
}

}  // namespace

LayerPasses vision_passes(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                          const KernelCostModel& cost) noexcept {
  LayerPasses out;
  const VisionLoad& v = p.vision;
  if (!v.any()) return out;
  const double e = activation_bytes(l.activation_dtype);
  const double images = static_cast<double>(l.micro_batch) * v.images;
  const double rows = images * v.patches;
  const double h = v.hidden;
  const double mlp_in = v.gated ? 2.0 * v.intermediate : v.intermediate;
  // One layer's GEMMs (n, k): qkv, the output projection, the MLP's up and down.
  const double gemms[4][2] = {{3.0 * h, h}, {h, h}, {mlp_in, h}, {h, v.intermediate}};
  PassTime fwd, bwd;
  for (const auto& g : gemms) {
    fwd.gemm += cost.gemm(GemmShape{rows, g[0], g[1]}, c);
    fwd.kernels += 1.0;
    if (v.backward) {
      bwd.gemm += cost.gemm(GemmShape{rows, g[1], g[0]}, c);  // the input's gradient
      bwd.kernels += 1.0;
      if (v.weight_gradients) {
        bwd.gemm += cost.gemm(GemmShape{g[1], g[0], rows}, c);
        bwd.kernels += 1.0;
      }
    }
  }
  // Attention: every patch of an image attends to every other (no causal mask), or within its
  // window.
  const double d = v.heads > 0.0 ? h / v.heads : h;
  const auto attention = [&](double keys, double layers) {
    if (layers <= 0.0) return;
    const double groups = v.patches / keys;  // windows per image (1: the whole image)
    const AttentionShape a{images * v.heads * groups, keys, keys, d, d, keys, p.attention_kernel};
    fwd.attention += cost.attention(a, false, c) * (layers / v.layers);
    if (v.backward) bwd.attention += cost.attention(a, true, c) * (layers / v.layers);
  };
  attention(v.patches, v.full_layers);
  attention(v.window > 0.0 ? v.window : v.patches, v.layers - v.full_layers);
  fwd.kernels += 1.0;
  const double widths = layer_memory_widths(v);
  fwd.memory = cost.memory(Bytes{rows * widths * e}, c);
  fwd.kernels += 8.0;
  if (v.backward) {
    bwd.kernels += 1.0 + 8.0;
    bwd.memory = cost.memory(Bytes{rows * widths * e * 1.5}, c);
  }
  fwd *= v.layers;
  bwd *= v.layers;
  // The projector: the merger's two GEMMs over merged rows (SigLIP's one projection).
  const double merged_rows = rows / (v.merge * v.merge);
  const double wide = h * v.merge * v.merge;
  const double proj[2][2] = {{wide, wide}, {v.out_hidden, wide}};
  for (int i = v.merge > 1.0 ? 0 : 1; i < 2; ++i) {
    const double n = proj[i][0];
    const double k = v.merge > 1.0 ? proj[i][1] : h;
    fwd.gemm += cost.gemm(GemmShape{merged_rows, n, k}, c);
    fwd.kernels += 1.0;
    if (v.backward) {
      bwd.gemm += cost.gemm(GemmShape{merged_rows, k, n}, c);
      bwd.kernels += 1.0;
      if (v.weight_gradients) {
        bwd.gemm += cost.gemm(GemmShape{k, n, merged_rows}, c);
        bwd.kernels += 1.0;
      }
    }
  }
  out.forward = fwd;
  out.backward = bwd;
  return out;
}

Bytes vision_saved_bytes(const ModelProfile& p, const Layout& l) noexcept {
  const VisionLoad& v = p.vision;
  if (!v.any() || !v.backward) return Bytes{0.0};
  const double e = activation_bytes(l.activation_dtype);
  const double rows = static_cast<double>(l.micro_batch) * v.images * v.patches;
  if (l.recompute == Recompute::kFull) return Bytes{rows * v.hidden * e * v.layers};
  // norm1 and norm2 inputs, qkv's input, q, k, v, attention's output (the projection's input),
  // the MLP's input; fc1's output and the activation's (gated: gate, up and their product);
  // attention's fp32 log-sum-exp per head.
  const double mlp = v.gated ? 3.0 * v.intermediate : 2.0 * v.intermediate;
  const double per_row = (2.0 + 1.0 + 3.0 + 1.0 + 1.0) * v.hidden * e + mlp * e + 4.0 * v.heads;
  return Bytes{rows * per_row * v.layers};
}

}  // namespace tb
