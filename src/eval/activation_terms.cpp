// The activation rows, one per saved tensor. Each row's derivation and source is in
// docs/activations.md; the comments here say which operation saves the tensor and why.
//
// Element counts multiply in the order b, s, then the widths, so the sums are reproducible.
#include "trainbudget/eval/activation_terms.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace tb {
namespace {

using D = const StepDims&;

bool always(D) { return true; }
bool with_stats(D d) { return d.norm_statistics; }
bool with_dropout(D d) { return d.dropout; }

double bsh(D d) { return d.b * d.s * d.h; }
double bs_stats(D d) { return d.b * d.s * d.norm_stats; }
const char* stats_tensor(D d) {
  return d.norm_stats == 1.0 ? "fp32 reciprocal RMS per token, saved by the norm kernel"
                             : "fp32 mean and reciprocal std per token, saved by the norm kernel";
}
const char* stats_formula(D d) { return d.norm_stats == 1.0 ? "b*s*4" : "b*s*2*4"; }
const char* f_bshe(D) { return "b*s*h*e"; }
const char* f_bsh1(D) { return "b*s*h*1"; }
bool eager_rms(D d) { return d.norm != NormImpl::kFused && d.norm_stats == 1.0; }
// LoRA and QLoRA freeze the norms: autograd keeps no tensor only their weight's gradient needs.
bool trained_norm(D d) { return d.adapter_ranks == 0.0; }
const char* f_norm_input(D d) {
  return d.norm == NormImpl::kEagerFp32 && d.norm_stats == 1.0 ? "b*s*h*4" : "b*s*h*e";
}

// Eager attention with grouped KV heads expands K and V to all a heads before the matmuls
// (transformers' repeat_kv), and the matmuls save the expanded copies; FlashAttention takes
// the a_kv heads directly.
bool kv_expanded(D d) { return d.eager && d.a_kv != d.a; }
double kv_heads(D d) { return kv_expanded(d) ? d.a : d.a_kv; }

// A norm over h channels keeps its input (backward re-normalizes it) and, optionally, its fp32
// per-token statistics (Korthikanti et al. 2022 sec. 4.1: "LayerNorm stores its input 2sbh").
// An RMSNorm written out op by op (docs/frameworks.md, "Norms") also keeps x^2 (mean's input,
// saved by torch 1.13's autograd) and, when its weight trains, x * rsqrt (the weight's
// gradient); transformers' LlamaRMSNorm does that after upcasting x to fp32, so its input and
// x^2 are fp32.
#define TB_NORM_ROWS(module, which, when, when_stats, what)                                        \
  ActivationRow{module,                                                                            \
                which "_input",                                                                    \
                when,                                                                              \
                bsh,                                                                               \
                ElementBytes::kNorm,                                                               \
                false,                                                                             \
                [](D d) {                                                                          \
                  return d.norm == NormImpl::kEagerFp32 && d.norm_stats == 1.0                     \
                             ? what " upcast to fp32; the norm's backward needs it"                \
                             : what " (activation dtype); the norm's backward needs it";           \
                },                                                                                 \
                f_norm_input},                                                                     \
      ActivationRow{module, which "_stats", when_stats,   bs_stats, ElementBytes::kFp32,           \
                    false,  stats_tensor,   stats_formula},                                        \
      ActivationRow{module,                                                                        \
                    which "_square",                                                               \
                    [](D n) { return eager_rms(n) && (when)(n); },                                 \
                    bsh,                                                                           \
                    ElementBytes::kNorm,                                                           \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "x^2 [b, s, h] of an RMSNorm written out op by op: mean's saved "     \
                             "input";                                                              \
                    },                                                                             \
                    f_norm_input},                                                                 \
      ActivationRow {                                                                              \
    module, which "_normalized", [](D n) { return eager_rms(n) && trained_norm(n) && (when)(n); }, \
        bsh, ElementBytes::kActivation, false,                                                     \
        [](D) {                                                                                    \
          return "x * rsqrt(mean(x^2) + eps) [b, s, h] (activation dtype): the trained norm "      \
                 "weight's gradient needs it";                                                     \
        },                                                                                         \
        f_bshe                                                                                     \
  }

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
          when,                                                                                    \
          elements,                                                                                \
          ElementBytes::kActivation,                                                               \
          false,                                                                                   \
          [](D) { return "activation output " shape " (activation dtype): operand of act * up"; }, \
          [](D) { return formula; }},                                                              \
      ActivationRow {                                                                              \
    module, prefix "down_input", [](D n) { return (when)(n) && n.keep_down_input; }, elements,     \
        ElementBytes::kActivation, false,                                                          \
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
                  ElementBytes::kActivation, false,
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
                  [](D d) { return d.b * d.s * d.r_q; }, ElementBytes::kActivation, false,
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
                  [](D d) { return d.b * d.s * d.r_kv; }, ElementBytes::kActivation, false,
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
                  [](D d) { return d.b * d.s * d.a * d.d_v; }, ElementBytes::kActivation, false,
                  [](D) {
                    return "attention output [b, s, a*d_v] (activation dtype): o_proj input; "
                           "FlashAttention's saved O is the same tensor";
                  },
                  [](D) { return "b*s*a*d_v*e"; }},
    ActivationRow{"attention", "attention_residual_dropout_mask", with_dropout, bsh,
                  ElementBytes::kMask, false,
                  [](D) { return "dropout mask on o_proj's output [b, s, h] (bool)"; }, f_bsh1},
    // Gemma 2/3 also normalize each sublayer's output before adding it to the residual stream.
    TB_NORM_ROWS(
        "norms", "post_attention_norm", [](D d) { return d.post_norms; },
        [](D d) { return d.post_norms && d.norm_statistics; },
        "o_proj output [b, s, h], post-attention norm input"),
    TB_NORM_ROWS("norms", "mlp_norm", always, with_stats,
                 "residual stream [b, s, h], input of the pre-MLP norm"),
    ActivationRow{"mlp", "mlp_input", [](D d) { return dense(d) && d.keep_mlp_input; }, bsh,
                  ElementBytes::kActivation, false,
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
                  ElementBytes::kActivation, false,
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
                  ElementBytes::kActivation, false,
                  [](D) {
                    return "each routed token's hidden state, gathered per expert [b*s*k, h] "
                           "(activation dtype)";
                  },
                  [](D) { return "b*s*k*h*e"; }},
    TB_GATED_ROWS("moe", "expert_", moe, bski_e, "[b*s*k, i_e]", "b*s*k*i_e*e"),
    ActivationRow{"moe", "expert_outputs", moe, bskh, ElementBytes::kActivation, false,
                  [](D) {
                    return "expert outputs before the routing weight [b*s*k, h] (activation "
                           "dtype): the weight's gradient needs them";
                  },
                  [](D) { return "b*s*k*h*e"; }},
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
};

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
    ActivationRow{"head", "lm_head_input", always, bsh, ElementBytes::kActivation, false,
                  [](D) {
                    return "final norm output [b, s, h] (activation dtype): the LM head's weight "
                           "gradient needs it";
                  },
                  f_bshe},
    ActivationRow{"head", "logits",
                  [](D d) { return d.keep_logits || d.loss == LossImpl::kChunked; },
                  [](D d) { return d.b * d.s * d.V; }, ElementBytes::kActivation, false,
                  [](D d) {
                    return d.loss == LossImpl::kChunked
                               ? "LM head output [b, s, V] in chunks (activation dtype): the "
                                 "compiled per-chunk loss saves its input"
                               : "LM head output [b, s, V] (activation dtype), the returned "
                                 "logits the training loop holds through backward";
                  },
                  [](D) { return "b*s*V*e"; }},
    ActivationRow{"head", "loss_buffer", [](D d) { return d.loss == LossImpl::kFused; },
                  [](D d) { return d.b * d.s * d.V; }, ElementBytes::kFp32, false,
                  [](D) {
                    return "fp32 softmax [b, s, V] a fused cross-entropy keeps for its "
                           "backward (which writes the gradient once)";
                  },
                  [](D) { return "b*s*V*4"; }},
    ActivationRow{"head", "log_probs", [](D d) { return d.loss == LossImpl::kFull; },
                  [](D d) { return d.b * d.s * d.V; }, ElementBytes::kLoss, false,
                  [](D d) {
                    return d.logits_fp32 ? "log_softmax output [b, s, V] of the fp32-upcast "
                                           "logits (fp32): F.cross_entropy saves it"
                                         : "log_softmax output [b, s, V] (the logits' dtype): "
                                           "F.cross_entropy saves it";
                  },
                  [](D d) { return d.logits_fp32 ? "b*s*V*4" : "b*s*V*e"; }},
};

#undef TB_NORM_ROWS
#undef TB_GATED_ROWS

}  // namespace

std::span<const ActivationRow> decoder_layer_rows() { return kDecoderRows; }
std::span<const ActivationRow> head_rows() { return kHeadRows; }

// The rows torchtitan's per-op selective AC keeps (torchtitan
// distributed/activation_checkpoint.py _apply_op_sac: outputs of the ops in _save_list, SDPA
// included, but every second aten.mm recomputed; per layer the matmuls run q, k, v, o, gate,
// up, down, so q, v, gate and down are kept). The down projection's output has no row of its
// own: layer_kind_bytes adds it.
bool op_saved(const ActivationRow& row) noexcept {
  constexpr std::array<std::string_view, 5> kSaved{"query", "value", "output_proj_input",
                                                   "softmax_logsumexp", "gate_output"};
  return std::find(kSaved.begin(), kSaved.end(), std::string_view{row.name}) != kSaved.end();
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
    const double bytes = row.elements(d) * per_element;
    all += bytes;
    if (!row.attention_core) kept += bytes;
    if (recompute == Recompute::kSelectiveOp && !d.moe_layer && op_saved(row)) op += bytes;
    if (per_element == d.e) largest = std::max(largest, bytes);
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

Bytes logits_gradient_bytes(const StepDims& d) noexcept {
  const double bsv = d.b * d.s * d.V;
  switch (d.loss) {
    case LossImpl::kFused:
      return Bytes{bsv * 4.0};
    case LossImpl::kFull:
      return Bytes{2.0 * bsv * element_bytes(ElementBytes::kLoss, d)};
    case LossImpl::kChunked:
      return Bytes{bsv * (4.0 + d.e) / d.loss_chunks};
  }
  return Bytes{bsv * 4.0};
}

Bytes loss_released_bytes(const StepDims& d) noexcept {
  if (d.loss != LossImpl::kFull) return Bytes{0.0};
  return Bytes{d.b * d.s * d.V * element_bytes(ElementBytes::kLoss, d)};
}

Bytes head_bytes(const StepDims& d) noexcept {
  double sum = 0.0;
  for (const ActivationRow& row : kHeadRows) {
    if (row.applies(d)) sum += row.elements(d) * element_bytes(row.bytes, d);
  }
  return Bytes{sum};
}

}  // namespace tb
