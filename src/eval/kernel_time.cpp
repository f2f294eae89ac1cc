// The kernels of one micro-batch (docs/time.md, "The step as kernels"). Byte counts are per
// element moved through device memory: a kernel reads its inputs once and writes its outputs
// once (Ivanov et al. 2021, "Data Movement Is All You Need", sec. 3: element-wise and
// normalisation operators are bound by that traffic); the backward of an element-wise operator
// reads the output gradient and the saved input and writes the input gradient, 1.5x its
// forward's traffic (stas00/ml-engineering training/performance/README.md, "forward vs
// backward": "activation forward reads once, writes once, activation backward reads twice ...
// and writes once").
#include "trainbudget/eval/kernel_time.hpp"

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/eval/gated_delta_cost.hpp"
#include "trainbudget/eval/vision_cost.hpp"

namespace tb {
namespace {

constexpr double kBackwardTraffic = 1.5;
// Transformer Engine's FP8 cast-transpose (transformer_engine/common/transpose/cast_transpose):
// a 16-bit tensor read once, written as fp8 twice (row- and column-major) for the forward and
// the two backward GEMMs: 2 + 1 + 1 bytes per element.
constexpr double kFp8CastBytes = 4.0;

struct Memory {
  double bytes{0.0};
  double kernels{0.0};
  void add(double b, double k) {
    bytes += b;
    kernels += k;
  }
};

// One norm over `width` elements per token (bytes per element e). Fused (one kernel): x read,
// y written. Eager in the activation dtype: x^2, mean, x * rsqrt, * weight (5 kernels, 7
// passes). Eager in fp32 (transformers' LlamaRMSNorm, LitGPT's): the upcast, x^2, mean,
// x * rsqrt, the cast back and * weight over 4-byte values (7 kernels, 18 element-widths of e).
void norm(Memory& m, NormImpl impl, double width, double e, bool compiled) {
  if (impl == NormImpl::kFused || compiled) {
    m.add(2.0 * width * e, 1.0);
  } else if (impl == NormImpl::kEager) {
    m.add(7.0 * width * e, 5.0);
  } else {
    m.add(18.0 * width * e, 7.0);
  }
}

// The forward memory-bound kernels of one decoder layer, per token on this device.
Memory layer_memory(const StepDims& d, const ModelProfile& p, const Layout& l, bool fp8) {
  Memory m;
  const double tp = l.parallel.tp;
  const double e = d.e;
  const bool eager = p.dispatch == Dispatch::kEager;
  const bool compiled = p.dispatch == Dispatch::kCompiled;
  // h-wide tensors are split over tp only under sequence parallelism.
  const double hidden = d.h / (l.parallel.sequence_parallel ? tp : 1.0);
  const double q = d.a * d.d / tp;
  // The layer's norms; the pre-MLP one only in the share of layers with an MLP (mlp_share < 1:
  // Nemotron-H's mixer-only blocks).
  const double norms = (d.post_norms ? 4.0 : (d.shared_norm ? 1.0 : 2.0)) -
                       (d.shared_norm ? 0.0 : 1.0 - d.mlp_share);
  Memory one_norm;
  norm(one_norm, d.norm, hidden, e, compiled);
  m.add(one_norm.bytes * norms, one_norm.kernels * norms);
  // The attention-only kernels, in the share of layers that attend (StepDims::linear_share).
  Memory attend;
  if (d.qk_norm) {
    norm(attend, d.norm, q, e, compiled);
    norm(attend, d.norm, d.a_kv * d.d / tp, e, compiled);
  }
  // Rotary embedding on q and k: fused (Megatron's, a compiled graph, Liger's kernel) reads and
  // writes them once; eager (transformers' rotate_half: x cos, the halves' slice, negation and
  // cat, x sin, the sum) makes about ten passes in six kernels per tensor.
  const double qk = q + d.a_kv * d.d / tp;
  if (eager && !d.fused_rope_swiglu) {
    attend.add(10.0 * qk * e, 12.0);
  } else {
    attend.add(2.0 * qk * e, 1.0);
  }
  // Eager: the attention output's transpose back to (b, s, h) before o_proj.
  if (eager) attend.add(2.0 * d.a * d.d_v / tp * e, 1.0);
  // The output gate: sigmoid(gate) (one read, one write) and the product (two reads, a write).
  if (d.output_gate) attend.add(5.0 * d.a * d.d_v / tp * e, 2.0);
  const double attending = d.attention_share;
  m.add(attend.bytes * attending, attend.kernels * attending);
  if (d.linear_share > 0.0 && d.g_mixer == LinearMixer::kShortConv) {
    // LFM2's short convolution: B * x (two reads, a write), the depthwise conv (read, write) and
    // C * its output (two reads, a write), each over this device's hidden width.
    const double h = d.h / tp;
    m.add(8.0 * h * e * d.linear_share, 3.0 * d.linear_share);
  } else if (d.linear_share > 0.0) {
    // Gated DeltaNet's element-wise kernels (modeling_qwen3_next.py): the causal conv with its
    // SiLU over q, k, v (read, write), beta's sigmoid and the decay's softplus over the value
    // heads (fp32), and the gated RMSNorm over the values with the gate z (two reads, a write).
    // Mamba-2's are the same passes under its names (x, B, C through the conv; dt's softplus and
    // exp(A dt) over the heads; the gated norm over d_ssm with z).
    const double conv = (2.0 * d.g_kh * d.g_dk + d.g_vh * d.g_dv) / tp;
    Memory g;
    g.add(2.0 * conv * e, 1.0);
    g.add(4.0 * 2.0 * d.g_vh / tp * 4.0, 4.0);
    g.add(3.0 * d.g_vh * d.g_dv / tp * e, 1.0);
    m.add(g.bytes * d.linear_share, g.kernels * d.linear_share);
  }
  // Two residual adds: two inputs read, one output written.
  m.add(2.0 * 3.0 * hidden * e, 2.0);
  if (d.dropout) m.add(2.0 * (2.0 * hidden * e + hidden), 2.0);  // hidden dropouts + masks
  // The MLP's activation on this device's share of the intermediate width: gated SiLU(gate) x
  // up (eager: silu then mul, 5 passes; fused: 3), or GELU (2 passes).
  double inter = d.i / tp * d.mlp_share;
  if (d.moe_layer) {
    inter = d.k * d.i_e / tp + (d.shared_experts ? d.i_s / tp : 0.0);
    // Routing: the router's softmax and top-k over E, then each token's k copies permuted to
    // their experts and combined back (read and write of k h-wide rows, twice).
    m.add(4.0 * d.k * d.h * e + 4.0 * d.E * 4.0, 6.0);
  }
  if (d.gated) {
    // Liger's SiLU x up and axolotl's LoRA_MLP Triton SwiGLU are one kernel each.
    const bool split = eager && !d.fused_rope_swiglu && !(d.lora_kernels && d.mlp_fully_adapted);
    m.add((split ? 5.0 : 3.0) * inter * e, (split ? 2.0 : 1.0) * d.mlp_share);
  } else {
    m.add(2.0 * inter * e, d.mlp_share);
  }
  // An fp8 recipe casts each linear's input (Transformer Engine's cast-transpose): the qkv,
  // o, gate/up and down inputs.
  if (fp8) m.add(kFp8CastBytes * (2.0 * hidden + d.a * d.d_v / tp + inter), 4.0);
  // LoRA: each adapted output scaled and added to the base's (2 kernels, 5 passes of the
  // output); with lora_dropout, the input's dropped copy and mask.
  for (const AdapterShape& a : p.adapters) {
    const double per_layer = static_cast<double>(a.active()) / d.L;
    // axolotl's kernels add the product inside the base GEMM's output (addmm_, beta 1): one read
    // and one write of it, no kernel of its own.
    if (d.lora_kernels) {
      m.add(per_layer * 2.0 * static_cast<double>(a.out_features) * e, 0.0);
    } else {
      m.add(per_layer * 5.0 * static_cast<double>(a.out_features) * e, 2.0 * per_layer);
    }
    if (d.lora_dropout) {
      m.add(per_layer * (2.0 * e + 1.0) * static_cast<double>(a.in_features), per_layer);
    }
    // DoRA (PEFT dora.py forward): the magnitude's scale applied to the base output and to the
    // adapters' (fp32) output, and the sum: 4 kernels, 3 reads and a write of [b, s, out].
    if (a.dora) m.add(per_layer * 4.0 * static_cast<double>(a.out_features) * 4.0, 4.0 * per_layer);
  }
  return m;
}

// The largest tensor one micro-batch's forward and backward allocate and free on this device:
// the logits (in the loss's dtype, per chunk when chunked) or, with eager attention, one layer's
// scores (fp32 where the softmax upcasts). fresh_tensor_time() takes it as `largest`; computed
// once per micro-batch (micro_batch_kernels) and handed to each pass.
double largest_transient(const ModelProfile& p, const Layout& l) {
  const StepDims d = step_dims(p, l, false);
  const double tokens = d.b * d.s * d.head_share / l.parallel.cp;
  const double chunks = d.loss == LossImpl::kChunked ? std::max(d.loss_chunks, 1.0) : 1.0;
  const double loss = d.loss == LossImpl::kFull && d.logits_fp32 ? 4.0 : d.e;
  // A linear cross-entropy's logits are on-chip tiles: nothing logit-sized is allocated.
  const double logits =
      d.loss == LossImpl::kLinear ? 0.0 : tokens / chunks * (d.V / l.parallel.tp) * loss;
  if (l.attention == AttentionImpl::kFlash) return logits;
  const double scores =
      d.b * d.a / l.parallel.tp * (d.s / l.parallel.cp) * d.s * (d.softmax_fp32 ? 4.0 : d.e);
  return std::max(logits, scores);
}

// Eager attention's score-sized tensors (`scores` elements) that one layer allocates, priced by
// fresh_tensor_time() (nothing unless the allocator maps them afresh). Forward: QK^T's output,
// the scaled and the masked copies and the probabilities (with an fp32 softmax, the upcast, the
// fp32 probabilities and the cast back), dropout's output and its byte mask. Backward: the
// probabilities' gradient from AV's backward, softmax's backward (with the casts in fp32),
// dropout's and the scale's; the mask's add passes its gradient through.
Seconds eager_scores_fresh(const StepDims& d, double scores, bool backward, const ClusterProfile& c,
                           double largest) {
  const double wide = d.softmax_fp32 && d.e != 4.0 ? 2.0 : 0.0;  // fp32 copies
  const double narrow = (backward ? 3.0 : 4.0) + (d.dropout ? 1.0 : 0.0);
  Seconds t = fresh_tensor_time(scores * d.e, narrow, c, largest) +
              fresh_tensor_time(scores * 4.0, wide, c, largest);
  if (d.dropout && !backward) t += fresh_tensor_time(scores, 1.0, c, largest);
  return t;
}

// The GEMMs of one linear layer for `tokens` tokens on this device: forward, and backward's
// activation gradient and (trained) weight gradient.
struct GemmPasses {
  Seconds forward{0.0}, backward{0.0};
  double kernels_forward{0.0}, kernels_backward{0.0};
  double dequant_bytes{0.0};  // QLoRA: per use
};

GemmPasses gemm_passes(const GemmKernel& g, double tokens, const Layout& l, bool fp8,
                       const ClusterProfile& c, const KernelCostModel& cost) {
  // An expert's weights split over etp, every other weight over tp.
  const double tp = g.expert ? l.expert_tp() : l.parallel.tp;
  const double n = g.split == GemmSplit::kColumn ? g.n / tp : g.n;
  const double k = g.split == GemmSplit::kRow ? g.k / tp : g.k;
  double m = tokens;
  double count = g.instances;
  if (g.expert) {
    // Expert parallelism: this device holds E/ep experts and gets their tokens from the ep
    // group, k/E of the group's tokens each (uniform routing). Folded (etp below tp), the tp
    // ranks' tokens are dispatched apart, so each expert rank sees etp/tp of them: the expert
    // grid's etp x ep x edp ranks share the tp x cp x dp ranks' routed tokens evenly.
    const double ep = l.parallel.ep;
    count = g.instances / ep;
    m = tokens * ep * (tp / l.parallel.tp) * g.active / g.instances;
  }
  GemmPasses out;
  if (m <= 0.0 || count <= 0.0) return out;
  // A grouped GEMM runs every local expert in one launch.
  const bool grouped = g.expert;
  out.forward = cost.gemm({m, n, k, count, fp8, grouped}, c);
  out.backward = cost.gemm({m, k, n, count, fp8, grouped}, c);
  if (g.trained) out.backward += cost.gemm({k, n, m, count, fp8, grouped}, c);
  out.kernels_forward = g.expert ? 1.0 : count;  // a grouped GEMM launches once
  out.kernels_backward = out.kernels_forward * (g.trained ? 2.0 : 1.0);
  // QLoRA (Dettmers et al. 2023, sec. 3): this device's share of the stored NF4 weight read and
  // its 16-bit copy written for the GEMM.
  if (g.quantized_bytes > 0.0) {
    out.dequant_bytes = (g.quantized_bytes * (n * k) / (g.n * g.k) + 2.0 * n * k) * count;
  }
  return out;
}

LayerPasses layer_passes(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                         const KernelCostModel& cost, bool moe, double largest) {
  LayerPasses out;
  const StepDims d = step_dims(p, l, moe);
  const double tokens = d.b * d.s / l.parallel.cp;
  const bool fp8 = c.fp8_linears;
  double dequant = 0.0;
  const auto& gemms = moe ? p.kernels.moe : p.kernels.dense;
  for (const GemmKernel& g : gemms) {
    const GemmPasses gp = gemm_passes(g, tokens, l, fp8, c, cost);
    out.forward.gemm += gp.forward;
    out.backward.gemm += gp.backward;
    out.forward.kernels += gp.kernels_forward;
    out.backward.kernels += gp.kernels_backward;
    dequant += gp.dequant_bytes;
  }
  for (const GemmKernel& g : p.kernels.adapters) {
    const GemmPasses gp = gemm_passes(g, tokens, l, false, c, cost);
    out.forward.gemm += gp.forward;
    out.backward.gemm += gp.backward;
    out.forward.kernels += gp.kernels_forward;
    out.backward.kernels += gp.kernels_backward;
  }
  // QLoRA: every NF4 weight dequantised for the forward GEMM and again for the activation
  // gradient's (bitsandbytes MatMul4Bit.backward dequantises B again).
  if (dequant > 0.0) {
    const double quantized = static_cast<double>(gemms.size());
    out.forward.memory += cost.memory(Bytes{dequant}, c);
    out.backward.memory += cost.memory(Bytes{dequant}, c);
    out.forward.kernels += quantized;
    out.backward.kernels += quantized;
  }

  // Attention: this device's heads, its 1/cp of the queries against the keys they see.
  const double heads = d.b * d.a / l.parallel.tp;
  const double queries = d.s / l.parallel.cp;
  const double keys = mean_causal_keys(p, d.s);
  PassTime core_forward;   // what selective recomputation reruns
  PassTime core_backward;  // its backward
  if (l.attention == AttentionImpl::kFlash) {
    const AttentionShape a{heads, queries, keys, d.d, d.d_v, d.s, p.attention_kernel};
    core_forward.attention = cost.attention(a, false, c);
    core_forward.kernels = 1.0;
    core_backward.attention = cost.attention(a, true, c);
    core_backward.kernels = 1.0;
  } else {
    // Eager: the full s x s scores (no causal skipping), scaled, masked, softmaxed (in fp32
    // where the framework upcasts), dropped out, then AV; backward four products and the
    // softmax's gradient.
    const double scores = heads * queries * d.s;
    const double e = d.e;
    // Megatron's fused scale-mask-softmax and a compiled graph read the scores and write the
    // probabilities once; eager runs the scale, the mask add and the softmax apart (and the
    // upcast and cast back when the softmax is in fp32).
    const bool fused_softmax = p.dispatch != Dispatch::kEager;
    // QK^T and AV are strided-batched over the heads (torch.baddbmm / bmm): one launch each.
    core_forward.gemm = cost.gemm({queries, d.s, d.d, heads, false, true}, c) +
                        cost.gemm({queries, d.d_v, d.s, heads, false, true}, c);
    double bytes =
        fused_softmax ? scores * 2.0 * e
                      : scores * (2.0 * e + 2.0 * e + (d.softmax_fp32 ? 2.0 * (e + 4.0) : 2.0 * e));
    double kernels = fused_softmax ? 3.0 : 5.0;
    if (d.dropout) {
      bytes += scores * (2.0 * e + 1.0);
      kernels += 1.0;
    }
    core_forward.memory =
        cost.memory(Bytes{bytes}, c) + eager_scores_fresh(d, scores, false, c, largest);
    core_forward.kernels = kernels;
    core_backward.gemm = cost.gemm({queries, d.s, d.d_v, heads, false, true}, c) +
                         cost.gemm({d.s, d.d_v, queries, heads, false, true}, c) +
                         cost.gemm({queries, d.d, d.s, heads, false, true}, c) +
                         cost.gemm({d.s, d.d, queries, heads, false, true}, c);
    core_backward.memory = cost.memory(Bytes{bytes * kBackwardTraffic}, c) +
                           eager_scores_fresh(d, scores, true, c, largest);
    core_backward.kernels = 4.0 + kernels;
  }
  // In a hybrid only the share of layers that attend run it (attention_share).
  core_forward *= d.attention_share;
  core_backward *= d.attention_share;
  out.forward += core_forward;
  out.backward += core_backward;
  if (d.linear_share > 0.0 && d.g_mixer != LinearMixer::kShortConv) {
    // The chunked recurrence over this device's value heads (gated_delta_cost.hpp); its backward
    // recomputes the chunk states inside the measured kernel. Each sequence's tokens are this
    // device's 1/cp.
    const double local_heads = d.g_vh / l.parallel.tp;
    const double token_heads =
        tokens * local_heads * d.linear_share * recurrence_state_share(d.g_dk, d.g_dv);
    out.forward.attention += gated_delta_seconds(token_heads, local_heads, false, c);
    out.backward.attention += gated_delta_seconds(token_heads, local_heads, true, c);
    out.forward.kernels += 4.0 * d.linear_share;  // fla's cumsum, kkt-solve, states, output
    out.backward.kernels += 8.0 * d.linear_share;
  }

  const Memory m = layer_memory(d, p, l, fp8);
  const Seconds forward_memory = cost.memory(Bytes{m.bytes * tokens}, c);
  out.forward.memory += forward_memory;
  out.forward.kernels += m.kernels;
  out.backward.memory += forward_memory * kBackwardTraffic;
  out.backward.kernels += m.kernels * kBackwardTraffic;
  // DoRA's column norm, once per adapted module and forward whatever the tokens (PEFT dora.py
  // get_weight_norm): A and B on the identity (in x in x r and in x r x out), then W + s B A over
  // the dense [out, in] in fp32 and its row norms: 6 passes of out x in x 4 bytes, 8 kernels.
  for (const AdapterShape& a : p.adapters) {
    if (!a.dora) continue;
    const double n = static_cast<double>(a.active()) / d.L;
    const auto in = static_cast<double>(a.in_features);
    const auto outf = static_cast<double>(a.out_features);
    const auto r = static_cast<double>(a.rank);
    out.forward.gemm += cost.gemm({in, r, in, n}, c) + cost.gemm({in, outf, r, n}, c);
    out.forward.memory += cost.memory(Bytes{n * (in * in + 6.0 * in * outf) * 4.0}, c);
    out.forward.kernels += 8.0 * n;
  }

  switch (l.recompute) {
    case Recompute::kNone:
      break;
    case Recompute::kSelective:
      out.recompute = core_forward;  // the attention core (Korthikanti et al. 2022, sec. 5)
      break;
    case Recompute::kSelectiveOp:
      // torchtitan's per-op AC: every second matmul and the non-matmul ops rerun.
      out.recompute.gemm = out.forward.gemm * 0.5;
      out.recompute.memory = forward_memory;
      out.recompute.kernels = m.kernels + 0.5 * static_cast<double>(gemms.size());
      break;
    case Recompute::kFull:
      out.recompute = out.forward;
      break;
  }
  return out;
}

LayerPasses head_passes(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                        const KernelCostModel& cost, double largest) {
  LayerPasses out;
  const StepDims d = step_dims(p, l, false);
  // The final norm runs over every position; the LM head and the loss over those that get
  // logits (all, or the completion's under logits_to_keep: head_share).
  const double positions = d.b * d.s / l.parallel.cp;
  const double tokens = positions * d.head_share;
  const double tp = l.parallel.tp;
  const double e = d.e;
  const GemmPasses gp = gemm_passes(p.kernels.head, tokens, l, false, c, cost);
  out.forward.gemm = gp.forward;
  out.backward.gemm = gp.backward;
  out.forward.kernels = gp.kernels_forward;
  out.backward.kernels = gp.kernels_backward;
  Memory norm_pass;
  norm(norm_pass, d.norm, d.h / (l.parallel.sequence_parallel ? tp : 1.0), e,
       p.dispatch == Dispatch::kCompiled);
  Memory fwd;
  // The loss over this device's V/tp logits per token. Fused (Megatron's vocab-parallel cross
  // entropy, a compiled or chunked loss): the logits read forward, read again and their
  // gradient written backward. F.cross_entropy: the upcast (when fp32), log_softmax's output
  // written and read back, nll's gradient scattered into a zeroed V-wide buffer, log_softmax's
  // backward and the cast back.
  const double v = d.V / tp;
  const double loss = d.logits_fp32 ? 4.0 : e;
  double backward_bytes = 0.0;
  if (d.loss == LossImpl::kFull) {
    fwd.add(v * ((d.logits_fp32 ? e + loss : 0.0) + 2.0 * loss), d.logits_fp32 ? 3.0 : 2.0);
    backward_bytes = v * (loss + 3.0 * loss + (d.logits_fp32 ? loss + e : 0.0));
  } else if (d.loss == LossImpl::kLinear) {
    // Cut Cross-Entropy (Wijmans et al. 2024): the head GEMM and the loss in one kernel, no
    // logits in memory; backward recomputes the logits tile by tile (one more head GEMM) in a
    // kernel that also writes the gradients.
    fwd.add(0.0, 1.0);
    out.backward.gemm += gp.forward;
    out.backward.kernels += 1.0;
  } else {
    fwd.add(v * e, d.loss == LossImpl::kChunked ? d.loss_chunks : 1.0);
    backward_bytes = v * (e + (d.loss == LossImpl::kChunked ? loss + e : e));
  }
  out.forward.memory = cost.memory(Bytes{fwd.bytes * tokens + norm_pass.bytes * positions}, c);
  out.forward.kernels += fwd.kernels + norm_pass.kernels;
  out.backward.memory =
      cost.memory(Bytes{backward_bytes * tokens + 4.0 * d.h / tp * e * positions}, c);
  // Logit-sized tensors F.cross_entropy allocates (priced only where the allocator maps them
  // afresh, fresh_tensor_time): forward, the head's output, the fp32 upcast and log_softmax's
  // output; backward, nll's zeroed gradient buffer, log_softmax's backward and the cast back;
  // and the head's weight gradient, a new tensor each micro-batch (autograd accumulates it into
  // .grad afterwards).
  if (d.loss == LossImpl::kFull) {
    const double upcast = d.logits_fp32 && e != 4.0 ? 1.0 : 0.0;
    out.forward.memory += fresh_tensor_time(tokens * v * e, 1.0, c, largest) +
                          fresh_tensor_time(tokens * v * loss, 1.0 + upcast, c, largest);
    out.backward.memory += fresh_tensor_time(tokens * v * loss, 2.0, c, largest) +
                           fresh_tensor_time(tokens * v * e, upcast, c, largest);
  }
  if (!p.adapters_only) out.backward.memory += fresh_tensor_time(d.h * v * e, 1.0, c, largest);
  out.backward.kernels += (fwd.kernels + norm_pass.kernels) * kBackwardTraffic;
  return out;
}

}  // namespace

double mean_causal_keys(const ModelProfile& p, double seq_len) noexcept {
  const std::vector<std::int64_t>& windows = p.flops.windows;
  if (windows.empty()) return keys_per_query(seq_len, seq_len, true);
  double keys = 0.0;
  double global = -1.0;
  for (const std::int64_t w : windows) {
    if (w <= 0 || static_cast<double>(w) >= seq_len) {
      if (global < 0.0) global = keys_per_query(seq_len, seq_len, true);
      keys += global;
    } else {
      keys += keys_per_query(seq_len, static_cast<double>(w), true);
    }
  }
  return keys / static_cast<double>(windows.size());
}

MicroBatchKernels micro_batch_kernels(const ModelProfile& p, const Layout& l,
                                      const ClusterProfile& c,
                                      const KernelCostModel& cost) noexcept {
  MicroBatchKernels out;
  if (!p.has_architecture) return out;
  // The pass's largest tensor, which sets the size the CPU allocator hands back fresh.
  const double largest = largest_transient(p, l);
  if (p.dense_layers > 0) out.dense = layer_passes(p, l, c, cost, false, largest);
  if (p.moe_layers > 0) out.moe = layer_passes(p, l, c, cost, true, largest);
  out.head = head_passes(p, l, c, cost, largest);
  out.vision = vision_passes(p, l, c, cost);
  // The embedding lookup writes h-wide rows; its backward (when trained) adds them into the
  // table's gradient.
  const StepDims d = step_dims(p, l, false);
  const double rows = d.b * d.s / l.parallel.cp * d.h * d.e;
  out.embedding.forward.memory = cost.memory(Bytes{2.0 * rows}, c);
  out.embedding.forward.kernels = 1.0;
  if (!p.adapters_only) {
    // The table's dense gradient (embedding_dense_backward: zeros, then the rows added) is a
    // new V x h tensor each micro-batch.
    out.embedding.backward.memory =
        cost.memory(Bytes{2.0 * rows + rows / d.e * 4.0}, c) +
        fresh_tensor_time(d.V / l.parallel.tp * d.h * d.e, 1.0, c, largest);
    out.embedding.backward.kernels = 2.0;
  }
  return out;
}

Seconds pass_time(const PassTime& pass, Dispatch dispatch, const ClusterProfile& c) noexcept {
  const KernelCosts& k = c.kernels;
  const double overhead = c.knobs.overhead;
  const Seconds device = pass.device() + Seconds{pass.kernels * k.launch_gap_s * overhead};
  const Seconds host{pass.kernels * k.dispatch_s[static_cast<std::size_t>(dispatch)] * overhead};
  return std::max(device, host);
}

}  // namespace tb
