// The row helpers the activation term tables share (src/eval/activation_terms.cpp for the
// decoder layers, src/eval/head_terms.cpp for the head): element counts, when a row exists, its
// formula text, and the norm rows' macro. Internal to src/eval.
#pragma once

#include "trainbudget/eval/activation_terms.hpp"

namespace tb::rows {

using D = const StepDims&;

inline bool always(D) { return true; }
inline bool with_stats(D d) { return d.norm_statistics; }
inline bool with_dropout(D d) { return d.dropout; }

inline double bsh(D d) { return d.b * d.s * d.h; }
inline double bs_stats(D d) { return d.b * d.s * d.norm_stats; }
inline const char* stats_tensor(D d) {
  return d.norm_stats == 1.0 ? "fp32 reciprocal RMS per token, saved by the norm kernel"
                             : "fp32 mean and reciprocal std per token, saved by the norm kernel";
}
inline const char* stats_formula(D d) { return d.norm_stats == 1.0 ? "b*s*4" : "b*s*2*4"; }
inline const char* f_bshe(D) { return "b*s*h*e"; }
inline const char* f_bsh1(D) { return "b*s*h*1"; }
inline bool eager_rms(D d) { return d.norm != NormImpl::kFused && d.norm_stats == 1.0; }
// LoRA and QLoRA freeze the norms: autograd keeps no tensor only their weight's gradient needs.
inline bool trained_norm(D d) { return d.adapter_ranks == 0.0; }
inline const char* f_norm_input(D d) {
  return d.norm == NormImpl::kEagerFp32 && d.norm_stats == 1.0 ? "b*s*h*4" : "b*s*h*e";
}

// axolotl's fused LoRA MLP runs in place of the dense gated MLP's rows (StepDims::lora_kernels).
inline bool lora_fused_mlp(D d) { return d.lora_kernels && d.mlp_fully_adapted && !d.moe_layer; }

// Eager attention with grouped KV heads expands K and V to all a heads before the matmuls
// (transformers' repeat_kv), and the matmuls save the expanded copies; FlashAttention takes
// the a_kv heads directly.
inline bool kv_expanded(D d) { return d.eager && d.a_kv != d.a; }
inline double kv_heads(D d) { return kv_expanded(d) ? d.a : d.a_kv; }

// A norm over h channels keeps its input (backward re-normalizes it) and, optionally, its fp32
// per-token statistics (Korthikanti et al. 2022 sec. 4.1: "LayerNorm stores its input 2sbh").
// An RMSNorm written out op by op (docs/frameworks.md, "Norms") also keeps x^2 (mean's input,
// saved by torch 1.13's autograd) and, when its weight trains, x * rsqrt (the weight's
// gradient); transformers' LlamaRMSNorm does that after upcasting x to fp32, so its input and
// x^2 are fp32. Never #undef'd: a unity build (the release preset) includes this header once
// for several files.
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

}  // namespace tb::rows
