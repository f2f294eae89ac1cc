// The activation rows of an LFM2 short-convolution layer, for the decoder row table in
// activation_terms.cpp: one macro, SHORT_CONV_ROWS. Internal to src/eval.
#pragma once

#include "row_helpers.hpp"

namespace tb::rows {

inline bool short_conv(D d) { return d.linear_share > 0.0 && d.g_mixer == LinearMixer::kShortConv; }

// LFM2's short convolution as transformers trains it (modeling_lfm2.py Lfm2ShortConv: in_proj,
// B, C, x = chunk(3), B * x through the depthwise causal conv1d, C * its output, out_proj):
// autograd keeps in_proj's input, its output B, C, x (the products' backward), the conv's input
// B * x and output, and out_proj's input, each hidden wide. Rows are per conv layer; the sums weigh
// them by linear_share. Never #undef'd, as row_helpers.hpp's macro (a unity build).
#define SHORT_CONV_ROWS                                                                            \
  ActivationRow{                                                                                   \
      "linear_attention",                                                                          \
      "conv_projection_input",                                                                     \
      [](D d) { return short_conv(d) && d.keep_qkv_input; },                                       \
      bsh,                                                                                         \
      ElementBytes::kLinearInput,                                                                  \
      false,                                                                                       \
      [](D) { return "normalized hidden states [b, s, h] (activation dtype): in_proj's input"; },  \
      f_bshe},                                                                                     \
      ActivationRow{"linear_attention",                                                            \
                    "bcx",                                                                         \
                    short_conv,                                                                    \
                    [](D d) { return 3.0 * bsh(d); },                                              \
                    ElementBytes::kActivation,                                                     \
                    false,                                                                         \
                    [](D) { return "in_proj's output B, C, x [b, s, 3h] (activation dtype)"; },    \
                    [](D) { return "b*s*3h*e"; }},                                                 \
      ActivationRow{                                                                               \
          "linear_attention",                                                                      \
          "conv_input_output",                                                                     \
          short_conv,                                                                              \
          [](D d) { return 2.0 * bsh(d); },                                                        \
          ElementBytes::kActivation,                                                               \
          false,                                                                                   \
          [](D) { return "the conv's input B * x and its output [b, s, 2h] (activation dtype)"; }, \
          [](D) { return "b*s*2h*e"; }},                                                           \
      ActivationRow {                                                                              \
    "linear_attention", "conv_out_proj_input",                                                     \
        [](D d) { return short_conv(d) && d.keep_o_input; }, bsh, ElementBytes::kLinearInput,      \
        false, [](D) { return "C * conv [b, s, h] (activation dtype): out_proj's input"; }, f_bshe \
  }

}  // namespace tb::rows
