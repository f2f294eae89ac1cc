// The decoder layers' activation rows, one per saved tensor, and their sums per recompute mode
// (the head's rows are in head_terms.cpp). Each row's derivation and source is in
// docs/activations.md; the comments here say which operation saves the tensor and why.
//
// Element counts multiply in the order b, s, then the widths, so the sums are reproducible.
#include "trainbudget/eval/activation_terms.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "gated_delta_rows.hpp"
#include "mamba2_rows.hpp"
#include "row_helpers.hpp"
#include "short_conv_rows.hpp"

namespace tb {
namespace {

using namespace rows;

// A gated MLP act(x W_gate) * (x W_up) -> W_down (Shazeer 2020) on `rows` token-rows of width
// `width`: the activation's input (gate output), the product's two operands (activation
// output, up output) and down_proj's input.
#define TB_GATED_ROWS(module, prefix, when, elements, shape, formula)                              \
  ActivationRow{module,                                                                            \
                prefix "gate_output",                                                              \
                when,                                                                              \
                elements,                                                                          \
                ElementBytes::kActivation,                                                         \
                false,                                                                             \
                [](D) {                                                                            \
                  return "gate projection output " shape                                           \
                         " (activation dtype): the "                                               \
                         "activation's input";                                                     \
                },                                                                                 \
                [](D) { return formula; }},                                                        \
      ActivationRow{module,                                                                        \
                    prefix "up_output",                                                            \
                    when,                                                                          \
                    elements,                                                                      \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "up projection output " shape                                         \
                             " (activation dtype): operand of act * up";                           \
                    },                                                                             \
                    [](D) { return formula; }},                                                    \
      ActivationRow{                                                                               \
          module,                                                                                  \
          prefix "act_output",                                                                     \
          [](D n) { return (when)(n) && !n.glu_saves_input && !lora_fused_mlp(n); },               \
          elements,                                                                                \
          ElementBytes::kActivation,                                                               \
          false,                                                                                   \
          [](D) { return "activation output " shape " (activation dtype): operand of act * up"; }, \
          [](D) { return formula; }},                                                              \
      ActivationRow {                                                                              \
    module, prefix "down_input",                                                                   \
        [](D n) { return (when)(n) && n.keep_down_input && !lora_fused_mlp(n); }, elements,        \
        ElementBytes::kLinearInput, false,                                                         \
        [](D) { return "act * up " shape " (activation dtype): down projection input"; },          \
        [](D) { return formula; }                                                                  \
  }

bool dense(D d) { return !d.moe_layer; }
bool dense_gated(D d) { return !d.moe_layer && d.gated; }
bool dense_plain(D d) { return !d.moe_layer && !d.gated; }
bool moe(D d) { return d.moe_layer; }
bool moe_shared(D d) { return d.moe_layer && d.shared_experts; }
double bsi(D d) { return d.b * d.s * d.i; }
double bski_e(D d) { return d.b * d.s * d.k * d.i_e; }
double bsi_s(D d) { return d.b * d.s * d.i_s; }
double bskh(D d) { return d.b * d.s * d.k * d.h; }
double bsE(D d) { return d.b * d.s * d.E; }
double scores(D d) { return d.b * d.a * d.s * d.s; }

constexpr std::array kDecoderRows{
    TB_NORM_ROWS("norms", "attention_norm", always, with_stats,
                 "residual stream [b, s, h], input of the pre-attention norm"),
    ActivationRow{"attention", "qkv_input", [](D d) { return d.keep_qkv_input; }, bsh,
                  ElementBytes::kLinearInput, false,
                  [](D) {
                    return "normalized hidden states [b, s, h] (activation dtype): input of the "
                           "q/k/v projections (one tensor shared by all of them), needed for "
                           "their weight gradients";
                  },
                  f_bshe},
    // DeepSeek-V2 paper sec. 2.1.2 / DeepseekV3Attention: q_a_proj -> q_a_layernorm -> q_b_proj,
    // kv_a_proj_with_mqa -> kv_a_layernorm -> kv_b_proj. Each low-rank latent is saved twice: as
    // its norm's input and as the up-projection's input.
    ActivationRow{
        "attention", "q_latent_norm_input", [](D d) { return d.q_latent; },
        [](D d) { return d.b * d.s * d.r_q; }, ElementBytes::kActivation, false,
        [](D) { return "query latent [b, s, r_q] (activation dtype): q_a_layernorm input"; },
        [](D) { return "b*s*r_q*e"; }},
    ActivationRow{"attention", "q_latent_norm_stats",
                  [](D d) { return d.q_latent && d.norm_statistics; },
                  [](D d) { return d.b * d.s; }, ElementBytes::kFp32, false,
                  [](D) { return "fp32 reciprocal RMS per token of the query latent"; },
                  [](D) { return "b*s*4"; }},
    ActivationRow{"attention", "q_latent_up_input", [](D d) { return d.q_latent; },
                  [](D d) { return d.b * d.s * d.r_q; }, ElementBytes::kLinearInput, false,
                  [](D) { return "normalized query latent [b, s, r_q]: q_b_proj input"; },
                  [](D) { return "b*s*r_q*e"; }},
    ActivationRow{
        "attention", "kv_latent_norm_input", [](D d) { return d.latent; },
        [](D d) { return d.b * d.s * d.r_kv; }, ElementBytes::kActivation, false,
        [](D) { return "key/value latent [b, s, r_kv] (activation dtype): kv_a_layernorm input"; },
        [](D) { return "b*s*r_kv*e"; }},
    ActivationRow{"attention", "kv_latent_norm_stats",
                  [](D d) { return d.latent && d.norm_statistics; }, [](D d) { return d.b * d.s; },
                  ElementBytes::kFp32, false,
                  [](D) { return "fp32 reciprocal RMS per token of the key/value latent"; },
                  [](D) { return "b*s*4"; }},
    ActivationRow{"attention", "kv_latent_up_input", [](D d) { return d.latent; },
                  [](D d) { return d.b * d.s * d.r_kv; }, ElementBytes::kLinearInput, false,
                  [](D) { return "normalized key/value latent [b, s, r_kv]: kv_b_proj input"; },
                  [](D) { return "b*s*r_kv*e"; }},
    // Qwen3 / Gemma 3: an RMSNorm over head_dim on every query and key head, before RoPE.
    ActivationRow{"attention", "qk_norm_input", [](D d) { return !d.latent && d.qk_norm; },
                  [](D d) { return d.b * d.s * (d.a + d.a_kv) * d.d; }, ElementBytes::kActivation,
                  false,
                  [](D) {
                    return "query and key projections [b, s, a + a_kv, d] (activation dtype): "
                           "q_norm/k_norm inputs";
                  },
                  [](D) { return "b*s*(a+a_kv)*d*e"; }},
    ActivationRow{"attention", "qk_norm_stats",
                  [](D d) { return !d.latent && d.qk_norm && d.norm_statistics; },
                  [](D d) { return d.b * d.s * (d.a + d.a_kv); }, ElementBytes::kFp32, false,
                  [](D) { return "fp32 reciprocal RMS per query and key head"; },
                  [](D) { return "b*s*(a+a_kv)*4"; }},
    ActivationRow{
        "attention", "query", always, [](D d) { return d.b * d.s * d.a * d.d; },
        ElementBytes::kActivation, false,
        [](D) { return "queries after RoPE [b, s, a, d] (activation dtype): input of QK^T"; },
        [](D) { return "b*s*a*d*e"; }},
    ActivationRow{"attention", "key", always, [](D d) { return d.b * d.s * kv_heads(d) * d.d; },
                  ElementBytes::kActivation, false,
                  [](D d) {
                    if (d.latent) {
                      return kv_expanded(d)
                                 ? "keys [b, s, a, d]: per-head nope part and the shared RoPE part "
                                   "concatenated (activation dtype): input of QK^T; eager "
                                   "attention saves the copy expanded to all heads"
                                 : "keys [b, s, a, d]: per-head nope part and the shared RoPE part "
                                   "concatenated (activation dtype): input of QK^T";
                    }
                    return kv_expanded(d)
                               ? "keys after RoPE [b, s, a, d] (activation dtype): input of QK^T; "
                                 "eager attention saves the copy expanded to all heads"
                               : "keys after RoPE [b, s, a_kv, d] (activation dtype): input of "
                                 "QK^T";
                  },
                  [](D d) { return kv_expanded(d) ? "b*s*a*d*e" : "b*s*a_kv*d*e"; }},
    ActivationRow{"attention", "value", always, [](D d) { return d.b * d.s * kv_heads(d) * d.d_v; },
                  ElementBytes::kActivation, false,
                  [](D d) {
                    return kv_expanded(d)
                               ? "values [b, s, a, d_v] (activation dtype): input of AV; eager "
                                 "attention saves the copy expanded to all heads"
                               : "values [b, s, a_kv, d_v] (activation dtype): input of AV";
                  },
                  [](D d) { return kv_expanded(d) ? "b*s*a*d_v*e" : "b*s*a_kv*d_v*e"; }},
    // The attention core, QK^T -> softmax -> (dropout) -> AV, as Korthikanti et al. 2022 sec. 4.1
    // count it for eager attention, or FlashAttention's saved statistics (Dao et al. 2022, Alg.
    // 2: the backward keeps Q, K, V, O and the row logsumexp L, and regenerates dropout masks from
    // the RNG state instead of storing them).
    ActivationRow{"attention", "softmax_output", [](D d) { return d.eager; }, scores,
                  ElementBytes::kActivation, true,
                  [](D) {
                    return "softmax probabilities [b, a, s, s] (activation dtype): softmax's "
                           "backward needs its output; without dropout it is also AV's input";
                  },
                  [](D) { return "b*a*s^2*e"; }},
    ActivationRow{"attention", "softmax_fp32_output",
                  [](D d) { return d.eager && d.softmax_fp32 && d.e < 4.0; }, scores,
                  ElementBytes::kFp32, true,
                  [](D) {
                    return "fp32 softmax probabilities [b, a, s, s]: softmax(dtype=float32)'s "
                           "backward needs them; the cast copy above is AV's input (transformers' "
                           "eager attention)";
                  },
                  [](D) { return "b*a*s^2*4"; }},
    ActivationRow{"attention", "attention_dropout_mask", [](D d) { return d.eager && d.dropout; },
                  scores, ElementBytes::kMask, true,
                  [](D) { return "dropout mask on the probabilities [b, a, s, s] (bool)"; },
                  [](D) { return "b*a*s^2*1"; }},
    ActivationRow{"attention", "attention_dropout_output", [](D d) { return d.eager && d.dropout; },
                  scores, ElementBytes::kActivation, true,
                  [](D) {
                    return "dropped-out probabilities [b, a, s, s] (activation dtype): AV's input "
                           "for the gradient of V";
                  },
                  [](D) { return "b*a*s^2*e"; }},
    ActivationRow{"attention", "softmax_logsumexp", [](D d) { return !d.eager; },
                  [](D d) { return d.b * d.a * d.s; }, ElementBytes::kFp32, true,
                  [](D) {
                    return "FlashAttention row logsumexp [b, a, s] (fp32): the backward rebuilds "
                           "the probabilities from it and Q, K";
                  },
                  [](D) { return "b*a*s*4"; }},
    ActivationRow{"attention", "output_proj_input", [](D d) { return d.keep_o_input; },
                  [](D d) { return d.b * d.s * d.a * d.d_v; }, ElementBytes::kLinearInput, false,
                  [](D) {
                    return "attention output [b, s, a*d_v] (activation dtype): o_proj input; "
                           "FlashAttention's saved O is the same tensor";
                  },
                  [](D) { return "b*s*a*d_v*e"; }},
    // Gated attention (modeling_qwen3_next.py Qwen3NextAttention): attn_output *
    // sigmoid(gate) before o_proj; the product keeps both operands, and o_proj's input is the
    // product, so the kernel's O is a tensor of its own.
    ActivationRow{"attention", "output_gate", [](D d) { return d.output_gate; },
                  [](D d) { return d.b * d.s * d.a * d.d_v; }, ElementBytes::kActivation, false,
                  [](D) {
                    return "sigmoid(gate) [b, s, a, d_v] (activation dtype): the gate's and the "
                           "product's backward need it";
                  },
                  [](D) { return "b*s*a*d_v*e"; }},
    ActivationRow{"attention", "pre_gate_output", [](D d) { return d.output_gate; },
                  [](D d) { return d.b * d.s * d.a * d.d_v; }, ElementBytes::kActivation, false,
                  [](D) {
                    return "attention output before the gate [b, s, a, d_v] (activation dtype): "
                           "the gate's gradient needs it (FlashAttention's saved O)";
                  },
                  [](D) { return "b*s*a*d_v*e"; }},
    GATED_DELTA_ROWS,
    MAMBA2_ROWS,
    SHORT_CONV_ROWS,
    ActivationRow{"attention", "attention_residual_dropout_mask", with_dropout, bsh,
                  ElementBytes::kMask, false,
                  [](D) { return "dropout mask on o_proj's output [b, s, h] (bool)"; }, f_bsh1},
    // Gemma 2/3 also normalize each sublayer's output before adding it to the residual stream.
    TB_NORM_ROWS(
        "norms", "post_attention_norm", [](D d) { return d.post_norms; },
        [](D d) { return d.post_norms && d.norm_statistics; },
        "o_proj output [b, s, h], post-attention norm input"),
    // A parallel block from one norm (Falcon-7B, Phi-2: modeling_falcon.py, modeling_phi.py)
    // has no pre-MLP norm, and its MLP reads the tensor the q/k/v projections keep.
    TB_NORM_ROWS(
        "norms", "mlp_norm", [](D d) { return !d.shared_norm; },
        [](D d) { return !d.shared_norm && d.norm_statistics; },
        "residual stream [b, s, h], input of the pre-MLP norm"),
    ActivationRow{
        "mlp", "mlp_input",
        [](D d) { return dense(d) && d.keep_mlp_input && !(d.shared_norm && d.keep_qkv_input); },
        bsh, ElementBytes::kLinearInput, false,
        [](D) {
          return "normalized hidden states [b, s, h] (activation dtype): input of the "
                 "first MLP projection(s)";
        },
        f_bshe},
    TB_GATED_ROWS("mlp", "", dense_gated, bsi, "[b*s, i]", "b*s*i*e"),
    // GPT-2 MLP (Korthikanti et al. 2022 sec. 4.1: "GeLU input 8sbh, second linear input 8sbh"
    // for i = 4h).
    ActivationRow{
        "mlp", "act_input", dense_plain, bsi, ElementBytes::kActivation, false,
        [](D) { return "fc1 output [b, s, i] (activation dtype): the activation's input"; },
        [](D) { return "b*s*i*e"; }},
    ActivationRow{"mlp", "fc2_input", [](D d) { return dense_plain(d) && d.keep_down_input; }, bsi,
                  ElementBytes::kLinearInput, false,
                  [](D) { return "activation output [b, s, i] (activation dtype): fc2 input"; },
                  [](D) { return "b*s*i*e"; }},
    ActivationRow{"mlp", "mlp_dropout_mask", [](D d) { return !d.moe_layer && d.dropout; }, bsh,
                  ElementBytes::kMask, false,
                  [](D) { return "dropout mask on the MLP output [b, s, h] (bool)"; }, f_bsh1},
    // A token-choice top-k MoE block as transformers runs it (MixtralSparseMoeBlock,
    // Qwen3MoeSparseMoeBlock, DeepseekV3MoE): no capacity limit, so every token reaches k
    // experts.
    ActivationRow{"moe", "router_input", moe, bsh, ElementBytes::kActivation, false,
                  [](D) {
                    return "normalized hidden states [b, s, h] (activation dtype): router input "
                           "(and the shared experts' input)";
                  },
                  f_bshe},
    ActivationRow{"moe", "router_logits", moe, bsE, ElementBytes::kActivation, false,
                  [](D) {
                    return "router logits [b, s, E] (activation dtype), kept for the "
                           "load-balancing loss (output_router_logits)";
                  },
                  [](D) { return "b*s*E*e"; }},
    ActivationRow{"moe", "router_probs", moe, bsE, ElementBytes::kFp32, false,
                  [](D) {
                    return "routing scores [b, s, E] (fp32 softmax or sigmoid output): the "
                           "routing weights' gradient needs them";
                  },
                  [](D) { return "b*s*E*4"; }},
    ActivationRow{"moe", "expert_inputs", [](D d) { return moe(d) && d.keep_mlp_input; }, bskh,
                  ElementBytes::kLinearInput, false,
                  [](D) {
                    return "each routed token's hidden state, gathered per expert [b*s*k, h] "
                           "(activation dtype)";
                  },
                  [](D) { return "b*s*k*h*e"; }},
    TB_GATED_ROWS("moe", "expert_", moe, bski_e, "[b*s*k, i_e]", "b*s*k*i_e*e"),
    ActivationRow{"moe", "expert_outputs",
                  [](D d) { return moe(d) && !d.expert_probs_in_activation; }, bskh,
                  ElementBytes::kActivation, false,
                  [](D) {
                    return "expert outputs before the routing weight [b*s*k, h] (activation "
                           "dtype): the weight's gradient needs them";
                  },
                  [](D) { return "b*s*k*h*e"; }},
    ActivationRow{"moe", "expert_probs", [](D d) { return moe(d) && d.expert_probs_in_activation; },
                  [](D d) { return d.b * d.s * d.k; }, ElementBytes::kFp32, false,
                  [](D) {
                    return "each routed token's routing weight [b*s*k] (fp32): the weighted "
                           "activation's backward needs it (Megatron-Core)";
                  },
                  [](D) { return "b*s*k*4"; }},
    TB_GATED_ROWS("moe", "shared_", moe_shared, bsi_s, "[b*s, i_s]", "b*s*i_s*e"),
    ActivationRow{"moe", "mlp_dropout_mask", [](D d) { return d.moe_layer && d.dropout; }, bsh,
                  ElementBytes::kMask, false,
                  [](D) { return "dropout mask on the MoE output [b, s, h] (bool)"; }, f_bsh1},
    TB_NORM_ROWS(
        "norms", "post_mlp_norm", [](D d) { return d.post_norms; },
        [](D d) { return d.post_norms && d.norm_statistics; },
        "MLP output [b, s, h], post-MLP norm input"),
    // Adapters spread evenly over the decoder layers: per token, each adapted linear keeps its
    // rank-r intermediate (A's output, B's input); its input x is the base layer's saved input.
    ActivationRow{"adapters", "adapter_intermediate", [](D d) { return d.adapter_ranks != 0.0; },
                  [](D d) { return d.b * d.s * d.adapter_ranks / d.L; }, ElementBytes::kActivation,
                  false,
                  [](D) {
                    return "low-rank intermediates x*A [b, s, r] of every adapter a token runs "
                           "through, per layer (activation dtype): B's weight gradient needs them";
                  },
                  [](D) { return "b*s*sum(r*n_active)/L*e"; }},
    // PEFT's lora_dropout: lora_A(dropout(x)) makes a new tensor per adapted module, which A's
    // weight gradient needs, and dropout keeps its bool mask (peft/tuners/lora/layer.py).
    ActivationRow{"adapters", "adapter_dropout_input", [](D d) { return d.lora_dropout; },
                  [](D d) { return d.b * d.s * d.adapter_inputs / d.L; }, ElementBytes::kActivation,
                  false,
                  [](D) {
                    return "each adapter's dropped-out input [b, s, in] (activation dtype): "
                           "lora_A's input";
                  },
                  [](D) { return "b*s*sum(in*n_active)/L*e"; }},
    ActivationRow{"adapters", "adapter_dropout_mask", [](D d) { return d.lora_dropout; },
                  [](D d) { return d.b * d.s * d.adapter_inputs / d.L; }, ElementBytes::kMask,
                  false, [](D) { return "lora_dropout's mask per adapter [b, s, in] (bool)"; },
                  [](D) { return "b*s*sum(in*n_active)/L*1"; }},
    // DoRA (Liu et al. 2024; PEFT dora.py forward): the base layer's output, which the
    // magnitude's scale multiplies, and the adapters' output B(A(x)) in their fp32 (PEFT's
    // autocast_adapter_dtype) are kept for the backward; the norm itself is detached.
    ActivationRow{"adapters", "dora_base_output", [](D d) { return d.dora_outputs != 0.0; },
                  [](D d) { return d.b * d.s * d.dora_outputs / d.L; }, ElementBytes::kActivation,
                  false,
                  [](D) {
                    return "each DoRA module's base output W x [b, s, out] (activation dtype): "
                           "the magnitude scale's gradient needs it";
                  },
                  [](D) { return "b*s*sum(out*n_dora)/L*e"; }},
    ActivationRow{"adapters", "dora_adapter_output", [](D d) { return d.dora_outputs != 0.0; },
                  [](D d) { return d.b * d.s * d.dora_outputs / d.L; }, ElementBytes::kFp32, false,
                  [](D) {
                    return "each DoRA module's adapter output B A x [b, s, out] (fp32, the "
                           "adapters' dtype): the magnitude's gradient needs it";
                  },
                  [](D) { return "b*s*sum(out*n_dora)/L*4"; }},
};

#undef TB_GATED_ROWS

}  // namespace

std::span<const ActivationRow> decoder_layer_rows() { return kDecoderRows; }

double row_elements(const ActivationRow& row, const StepDims& d) noexcept {
  const std::string_view module{row.module};
  if (module == "attention") return row.elements(d) * d.attention_share;
  if (module == "linear_attention") return row.elements(d) * d.linear_share;
  // The MLP (or MoE block) and its norms in the share of layers that have one.
  const std::string_view name{row.name};
  if (module == "mlp" || module == "moe" ||
      (module == "norms" && (name.starts_with("mlp_norm") || name.starts_with("post_mlp_norm")))) {
    return row.elements(d) * d.mlp_share;
  }
  return row.elements(d);
}

// The rows torchtitan's per-op selective AC keeps (torchtitan
// distributed/activation_checkpoint.py _apply_op_sac: outputs of the ops in _save_list, SDPA
// included, but every second aten.mm recomputed; per layer the matmuls run q, k, v, o, gate,
// up, down, so q, v, gate and down are kept). The down projection's output has no row of its
// own: layer_kind_bytes adds it.
bool kept_by_selective_op(std::string_view row) noexcept {
  constexpr std::array<std::string_view, 5> kSaved{"query", "value", "output_proj_input",
                                                   "softmax_logsumexp", "gate_output"};
  return std::find(kSaved.begin(), kSaved.end(), row) != kSaved.end();
}

LayerKindBytes layer_kind_bytes(const StepDims& d, Recompute recompute) noexcept {
  LayerKindBytes out;
  double all = 0.0;
  double kept = 0.0;
  double largest = 0.0;  // the largest activation-dtype row, whose gradient the backward holds
  double op = 0.0;       // the rows per-op selective AC keeps
  for (const ActivationRow& row : kDecoderRows) {
    if (!row.applies(d)) continue;
    const double per_element = element_bytes(row.bytes, d);
    const double bytes = row_elements(row, d) * per_element;
    all += bytes;
    if (!row.attention_core) kept += bytes;
    if (recompute == Recompute::kSelectiveOp && !d.moe_layer && kept_by_selective_op(row.name))
      op += bytes;
    // A linear input saved in FP8 has a 16-bit gradient all the same.
    if (row.bytes == ElementBytes::kLinearInput) {
      largest = std::max(largest, row.elements(d) * d.e);  // one layer's tensor, unweighted
    } else if (per_element == d.e) {
      largest = std::max(largest, row.elements(d) * per_element);
    }
  }
  out.all = Bytes{all};
  // Activation gradients during one layer's backward: the residual gradient arriving and the
  // one leaving (b*s*h*e each) plus the gradient of the largest activation-dtype tensor saved.
  out.backward_workspace = Bytes{2.0 * d.b * d.s * d.h * d.e + largest};
  switch (recompute) {
    case Recompute::kNone:
      out.per_layer = out.all;
      break;
    case Recompute::kSelective:
      out.per_layer = Bytes{kept};
      out.recompute_transient = out.all - out.per_layer;
      break;
    case Recompute::kFull:
      // The decoder layer input [b, s, h] is the checkpoint the layer is recomputed from.
      out.per_layer = Bytes{d.b * d.s * d.h * d.e};
      out.recompute_transient = out.all;
      break;
    case Recompute::kSelectiveOp:
      // The layer input, the kept rows and the down projection's output [b, s, h]; the rest is
      // rebuilt in the layer's backward. MoE layers keep what full recomputation keeps.
      if (d.moe_layer) {
        out.per_layer = Bytes{d.b * d.s * d.h * d.e};
        out.recompute_transient = out.all;
      } else {
        out.per_layer = Bytes{2.0 * d.b * d.s * d.h * d.e + op};
        out.recompute_transient = Bytes{all - op};
      }
      break;
  }
  return out;
}

}  // namespace tb
