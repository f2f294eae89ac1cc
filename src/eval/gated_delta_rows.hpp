// The activation rows of a Gated DeltaNet layer (Qwen3-Next, Qwen3.5), for the decoder row table
// in activation_terms.cpp: its helpers and one macro, GATED_DELTA_ROWS. Internal to src/eval.
#pragma once

#include "row_helpers.hpp"

namespace tb::rows {

inline bool gated_delta(D d) {
  return d.linear_share > 0.0 && d.g_mixer == LinearMixer::kGatedDelta;
}
inline double g_key(D d) { return d.g_vh * d.g_dk; }  // q and k are repeated to the value heads
inline double g_value(D d) { return d.g_vh * d.g_dv; }
inline double g_conv_width(D d) { return 2.0 * d.g_kh * d.g_dk + d.g_vh * d.g_dv; }

// A Gated DeltaNet layer (Yang et al. 2024, arXiv:2412.06464) as transformers' fast path runs it
// (modeling_qwen3_next.py Qwen3NextGatedDeltaNet): in_proj_* on the normed hidden state, the
// causal conv1d (Dao-AILab causal_conv1d_fn saves its input and recomputes its output), fla's
// chunk_gated_delta_rule (ChunkGatedDeltaRuleFunction saves q and k after their L2 norm, repeated
// to the value heads, their fp32 rstd, v, the fp32 decay cumsum g, beta and the chunk's inverse
// A, 64 values per head and token; the states are recomputed in backward), the fp32 softplus of
// the decay's input, the gated RMSNorm (fla FusedRMSNormGated saves x, the gate z and rstd) and
// out_proj. Rows are per Gated DeltaNet layer; the sums weigh them by linear_share. Never
// #undef'd, as row_helpers.hpp's macro (a unity build).
#define GATED_DELTA_ROWS                                                                           \
  ActivationRow{"linear_attention",                                                                \
                "projection_input",                                                                \
                [](D d) { return gated_delta(d) && d.keep_qkv_input; },                            \
                bsh,                                                                               \
                ElementBytes::kLinearInput,                                                        \
                false,                                                                             \
                [](D) {                                                                            \
                  return "normalized hidden states [b, s, h] (activation dtype): input of the "    \
                         "in_proj projections";                                                    \
                },                                                                                 \
                f_bshe},                                                                           \
      ActivationRow{"linear_attention",                                                            \
                    "conv_input",                                                                  \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * g_conv_width(d); },                               \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "q, k, v before the causal conv [b, s, 2*kh*dk + vh*dv] "             \
                             "(activation dtype): the conv's backward input";                      \
                    },                                                                             \
                    [](D) { return "b*s*(2*kh*dk+vh*dv)*e"; }},                                    \
      ActivationRow{"linear_attention",                                                            \
                    "normalized_qk",                                                               \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * 2.0 * g_key(d); },                                \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "q and k after their L2 norm, repeated to the value heads [b, s, "    \
                             "2*vh*dk] (activation dtype)";                                        \
                    },                                                                             \
                    [](D) { return "b*s*2*vh*dk*e"; }},                                            \
      ActivationRow{"linear_attention",                                                            \
                    "values",                                                                      \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * g_value(d); },                                    \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) { return "v [b, s, vh*dv] (activation dtype)"; },                        \
                    [](D) { return "b*s*vh*dv*e"; }},                                              \
      ActivationRow{"linear_attention",                                                            \
                    "chunk_inverse",                                                               \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * 64.0 * d.g_vh; },                                 \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "(I + beta K K^T)^-1 of each 64-token chunk [b, s, vh, 64] "          \
                             "(activation dtype)";                                                 \
                    },                                                                             \
                    [](D) { return "b*s*vh*64*e"; }},                                              \
      ActivationRow{"linear_attention",                                                            \
                    "gate_stats",                                                                  \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * 6.0 * d.g_vh; },                                  \
                    ElementBytes::kFp32,                                                           \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "fp32 per value head: q and k rstd, the decay cumsum g, softplus's "  \
                             "input and output, the gated norm's rstd";                            \
                    },                                                                             \
                    [](D) { return "b*s*6*vh*4"; }},                                               \
      ActivationRow{"linear_attention",                                                            \
                    "beta",                                                                        \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * d.g_vh; },                                        \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) { return "beta = sigmoid(b) [b, s, vh] (activation dtype)"; },           \
                    [](D) { return "b*s*vh*e"; }},                                                 \
      ActivationRow{"linear_attention",                                                            \
                    "gated_norm_inputs",                                                           \
                    gated_delta,                                                                   \
                    [](D d) { return d.b * d.s * 2.0 * g_value(d); },                              \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) {                                                                        \
                      return "the recurrence's output and the gate z [b, s, 2*vh*dv] (activation " \
                             "dtype): the gated RMSNorm's backward";                               \
                    },                                                                             \
                    [](D) { return "b*s*2*vh*dv*e"; }},                                            \
      ActivationRow {                                                                              \
    "linear_attention", "out_proj_input", [](D d) { return gated_delta(d) && d.keep_o_input; },    \
        [](D d) { return d.b * d.s * g_value(d); }, ElementBytes::kLinearInput, false,             \
        [](D) { return "gated norm output [b, s, vh*dv] (activation dtype): out_proj input"; },    \
        [](D) { return "b*s*vh*dv*e"; }                                                            \
  }

}  // namespace tb::rows
