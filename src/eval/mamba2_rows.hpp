// The activation rows of a Mamba-2 mixer layer (Falcon-H1, Bamba, Granite 4.0's hybrids), for the
// decoder row table in activation_terms.cpp: one macro, MAMBA2_ROWS. Internal to src/eval.
#pragma once

#include "row_helpers.hpp"

namespace tb::rows {

inline bool mamba2(D d) { return d.linear_share > 0.0 && d.g_mixer == LinearMixer::kMamba2; }
inline double m_inner(D d) { return d.g_vh * d.g_dv; }  // d_ssm: heads x head_dim
// in_proj's output: z and x (d_ssm each), B and C (groups x d_state each), dt (one per head).
inline double m_projected(D d) { return 2.0 * m_inner(d) + 2.0 * d.g_kh * d.g_dk + d.g_vh; }

// A Mamba-2 mixer (Dao & Gu 2024, arXiv 2405.21060) as the fused path trains it (mamba_ssm's
// MambaSplitConv1dScanCombinedFn, which transformers' FalconH1Mixer and BambaMixer call in
// training): in_proj on the normed hidden state (an nn.Linear, its input saved), then one function
// that saves in_proj's output zxbcdt whole, the scan's output out_x and the gated norm's fp32 rstd
// per group, and recomputes the conv, the norm's output and out_proj's input in backward. Rows
// are per mixer layer; the sums weigh them by linear_share. Never #undef'd, as
// row_helpers.hpp's macro (a unity build).
#define MAMBA2_ROWS                                                                            \
  ActivationRow{"linear_attention",                                                            \
                "mamba_projection_input",                                                      \
                [](D d) { return mamba2(d) && d.keep_qkv_input; },                             \
                bsh,                                                                           \
                ElementBytes::kLinearInput,                                                    \
                false,                                                                         \
                [](D) {                                                                        \
                  return "normalized hidden states [b, s, h] (activation dtype): input of "    \
                         "in_proj";                                                            \
                },                                                                             \
                f_bshe},                                                                       \
      ActivationRow{"linear_attention",                                                        \
                    "zxbcdt",                                                                  \
                    mamba2,                                                                    \
                    [](D d) { return d.b * d.s * m_projected(d); },                            \
                    ElementBytes::kActivation,                                                 \
                    false,                                                                     \
                    [](D) {                                                                    \
                      return "in_proj's output z, x, B, C, dt [b, s, 2*vh*dv + 2*kh*dk + vh] " \
                             "(activation dtype): the fused scan's saved input";               \
                    },                                                                         \
                    [](D) { return "b*s*(2*vh*dv+2*kh*dk+vh)*e"; }},                           \
      ActivationRow{                                                                           \
          "linear_attention",                                                                  \
          "scan_output",                                                                       \
          mamba2,                                                                              \
          [](D d) { return d.b * d.s * m_inner(d); },                                          \
          ElementBytes::kActivation,                                                           \
          false,                                                                               \
          [](D) { return "the SSD scan's output out_x [b, s, vh*dv] (activation dtype)"; },    \
          [](D) { return "b*s*vh*dv*e"; }},                                                    \
      ActivationRow {                                                                          \
    "linear_attention", "gated_norm_rstd", mamba2, [](D d) { return d.b * d.s * d.g_kh; },     \
        ElementBytes::kFp32, false,                                                            \
        [](D) { return "the gated RMSNorm's rstd per group [b, s, kh] (fp32)"; },              \
        [](D) { return "b*s*kh*4"; }                                                           \
  }

}  // namespace tb::rows
