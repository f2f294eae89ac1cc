// The image encoder's kernels and saved activations (docs/vision.md, "Step").
#include "trainbudget/eval/vision_cost.hpp"

#include <algorithm>
#include <array>

#include "trainbudget/eval/evaluate.hpp"

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

// The encoder's sequences per micro-batch in groups of one length: the images, then the video's
// temporal patches.
struct EncoderGroup {
  double sequences;
  double patches;
};
std::array<EncoderGroup, 2> encoder_groups(const VisionLoad& v, double micro_batch) {
  return {EncoderGroup{micro_batch * v.images, v.patches},
          EncoderGroup{micro_batch * v.clips, v.clip_patches}};
}

// Keys a query attends to in a windowed layer of a sequence of `patches`.
double windowed_keys(const VisionLoad& v, double patches) {
  return v.window > 0.0 ? std::min(v.window, patches) : patches;
}

// Mllama's cross-attention layers (MllamaTextCrossAttention): per layer, k_proj and v_proj over
// every image token (max_tiles x (patches + 1) per image), k_norm over the keys, and the text's
// queries attending to all of them without a causal mask; the queries, the output projection,
// the norms and the MLP run as in a self-attention layer and are priced with the decoder's
// layers (their self-attention over the text is priced there too: text x text, against the
// text x image tokens priced here). The attention's backward runs whenever the model trains
// (the queries need it); the projections' input gradients only when the encoder or projector
// needs them, their weight gradients in a full fine-tune.
void cross_attention(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                     const KernelCostModel& cost, PassTime& fwd, PassTime& bwd) {
  const VisionLoad& v = p.vision;
  if (v.cross_layers <= 0.0) return;
  const double e = activation_bytes(l.activation_dtype);
  const double tp = static_cast<double>(l.parallel.tp);
  const double keys = v.images * v.cross_tokens;
  const double rows = static_cast<double>(l.micro_batch) * keys;
  const double n = v.cross_kv / tp;
  PassTime f, b;
  f.gemm = cost.gemm(GemmShape{rows, n, v.lm_hidden}, c);
  f.kernels += 2.0;
  if (v.backward) {
    b.gemm += cost.gemm(GemmShape{rows, v.lm_hidden, n}, c);
    b.kernels += 1.0;
  }
  if (v.cross_weight_gradients) {
    b.gemm += cost.gemm(GemmShape{v.lm_hidden, n, rows}, c);
    b.kernels += 2.0;
  }
  const double queries = step_dims(p, l, false).s / static_cast<double>(l.parallel.cp);
  const AttentionShape a{static_cast<double>(l.micro_batch) * v.lm_heads / tp,
                         queries,
                         keys,
                         v.lm_head_dim,
                         v.lm_head_dim,
                         keys,
                         p.attention_kernel};
  f.attention = cost.attention(a, false, c);
  b.attention = cost.attention(a, true, c);
  f.kernels += 2.0;
  b.kernels += 2.0;
  f.memory = cost.memory(Bytes{rows * n / 2.0 * 2.0 * e}, c);  // k_norm: keys read, written
  b.memory = cost.memory(Bytes{rows * n / 2.0 * 3.0 * e}, c);
  f *= v.cross_layers;
  b *= v.cross_layers;
  fwd += f;
  bwd += b;
}

}  // namespace

LayerPasses vision_passes(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                          const KernelCostModel& cost) noexcept {
  LayerPasses out;
  const VisionLoad& v = p.vision;
  if (!v.any()) return out;
  const double e = activation_bytes(l.activation_dtype);
  const double mb = static_cast<double>(l.micro_batch);
  const double images = mb * v.images;
  const double rows = mb * v.rows();
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
  // Attention: every patch of a sequence (an image, a temporal patch) attends to every other (no
  // causal mask), or within its window.
  const double d = v.heads > 0.0 ? h / v.heads : h;
  const auto attention = [&](const EncoderGroup& g, double keys, double layers) {
    if (layers <= 0.0 || g.sequences <= 0.0 || keys <= 0.0) return;
    const double windows = g.patches / keys;  // per sequence (1: the whole sequence)
    const AttentionShape a{
        g.sequences * v.heads * windows, keys, keys, d, d, keys, p.attention_kernel};
    fwd.attention += cost.attention(a, false, c) * (layers / v.layers);
    if (v.backward) bwd.attention += cost.attention(a, true, c) * (layers / v.layers);
  };
  for (const EncoderGroup& g : encoder_groups(v, mb)) {
    attention(g, g.patches, v.full_layers);
    attention(g, windowed_keys(v, g.patches), v.layers - v.full_layers);
  }
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
  // The projector: the merger's two GEMMs over merged rows (SigLIP's one projection; Mllama's
  // from vision_output_dim over each tile's tokens, padding dropped); Qwen3-VL runs it once more
  // per deepstack merger, over an intermediate block's output.
  const double merged_rows =
      v.projector_rows > 0.0 ? images * v.projector_rows : rows / (v.merge * v.merge);
  const double wide = h * v.merge * v.merge;
  const double proj[2][2] = {{wide, wide}, {v.out_hidden, wide}};
  for (int i = v.merge > 1.0 ? 0 : 1; i < 2; ++i) {
    const double n = proj[i][0];
    const double k = v.merge > 1.0 ? proj[i][1] : (v.projector_in > 0.0 ? v.projector_in : h);
    fwd.gemm += cost.gemm(GemmShape{merged_rows, n, k}, c) * v.mergers;
    fwd.kernels += v.mergers;
    if (v.backward) {
      bwd.gemm += cost.gemm(GemmShape{merged_rows, k, n}, c) * v.mergers;
      bwd.kernels += v.mergers;
      if (v.weight_gradients) {
        bwd.gemm += cost.gemm(GemmShape{k, n, merged_rows}, c) * v.mergers;
        bwd.kernels += v.mergers;
      }
    }
  }
  cross_attention(p, l, c, cost, fwd, bwd);
  out.forward = fwd;
  out.backward = bwd;
  return out;
}

Bytes vision_saved_bytes(const ModelProfile& p, const Layout& l) noexcept {
  const VisionLoad& v = p.vision;
  if (!v.any()) return Bytes{0.0};
  const double e = activation_bytes(l.activation_dtype);
  // Mllama: the projected image tokens, once, and each cross-attention layer's keys and values
  // for its backward (kept under recomputation too: the image tokens are the layers' input).
  const double image_tokens = static_cast<double>(l.micro_batch) * v.images * v.cross_tokens;
  const double cross =
      v.cross_layers > 0.0
          ? image_tokens * e *
                (v.lm_hidden + v.cross_layers * v.cross_kv / static_cast<double>(l.parallel.tp))
          : 0.0;
  // The batch's pixel values (activation dtype), alive through the step like the token ids; the
  // patch embedding's saved input when it trains.
  const double rows = static_cast<double>(l.micro_batch) * v.rows();
  const double pixels = rows * v.patch_width * e;
  if (!v.backward) return Bytes{cross + pixels};
  // Qwen's merger (PatchMerger): the norm's input, the first linear's (the norm's output, 2 x 2
  // patches a row), the GELU's and the second linear's, h values a patch each.
  const bool qwen = v.merge > 1.0;
  const double merger = qwen ? rows * 4.0 * v.hidden * e * v.mergers : 0.0;
  if (l.recompute == Recompute::kFull) {
    return Bytes{cross + pixels + merger + rows * v.hidden * e * v.layers};
  }
  // Per layer and patch: norm1 and norm2 inputs, qkv's input, q, k and v, attention's output
  // (the projection's input), the MLP's input; fc1's output and the activation's (gated: gate,
  // up and their product). Qwen's fused qkv: v is a view of its output, which stays whole (3h),
  // beside the rotated q and k (2h); separate projections keep q, k, v (3h). Attention keeps an
  // fp32 log-sum-exp per head (flash) or, eager, the probabilities over its keys (and their fp32
  // copy where the softmax upcasts).
  const double mlp = v.gated ? 3.0 * v.intermediate : 2.0 * v.intermediate;
  const double qkv = qwen ? 5.0 : 3.0;
  const double per_row_dense = (2.0 + 1.0 + qkv + 1.0 + 1.0) * v.hidden * e + mlp * e;
  double attention = rows * 4.0 * v.heads * v.layers;
  if (l.attention == AttentionImpl::kEager) {
    const double probs = v.heads * (e + (step_dims(p, l, false).softmax_fp32 ? 4.0 : 0.0));
    const double windowed = v.layers - v.full_layers;
    attention = 0.0;
    for (const EncoderGroup& g : encoder_groups(v, static_cast<double>(l.micro_batch))) {
      attention += g.sequences * g.patches * probs *
                   (g.patches * v.full_layers + windowed_keys(v, g.patches) * windowed);
    }
  }
  return Bytes{cross + pixels + merger + rows * per_row_dense * v.layers + attention};
}

}  // namespace tb
