// Multiply-adds per token from the linear-layer inventory, and each layer's attention window.
#include "trainbudget/model/flop_shape.hpp"

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

// Multiply-adds per token of the linears at `place`: in*out per active copy per layer.
double macs_at(const std::vector<LinearLayer>& linears, LinearPlace place) {
  double macs = 0.0;
  for (const LinearLayer& l : linears) {
    if (l.place != place) continue;
    macs += static_cast<double>(l.in_features) * static_cast<double>(l.out_features) *
            static_cast<double>(l.active_copies) * static_cast<double>(l.layers);
  }
  return macs;
}

}  // namespace

double gated_delta_flops(const LinearAttentionSpec& g) noexcept {
  const auto kh = static_cast<double>(g.key_heads);
  const auto vh = static_cast<double>(g.value_heads);
  const auto dk = static_cast<double>(g.key_head_dim);
  const auto dv = static_cast<double>(g.value_head_dim);
  if (g.mixer == LinearMixer::kShortConv) {
    // LFM2's depthwise causal conv over the hidden width (modeling_lfm2.py Lfm2ShortConv).
    return 2.0 * static_cast<double>(g.conv_kernel) * vh * dv;
  }
  if (g.mixer == LinearMixer::kMamba2) {
    // Mamba-2's SSD in chunks of Q tokens (Dao & Gu 2024, sec. 6; mamba_ssm's ssd_combined.py):
    // C B^T within a chunk once per group (Q x d_state a token), that times x per head (Q x
    // head_dim), the chunk's state B^T x and the output's C h per head (d_state x head_dim each).
    const auto q = static_cast<double>(g.chunk_size);
    const double ssd = 2.0 * (kh * q * dk + vh * (q * dv + 2.0 * dk * dv));
    return ssd + 2.0 * static_cast<double>(g.conv_kernel) * (2.0 * kh * dk + vh * dv);
  }
  const double recurrence = 2.0 * 4.0 * vh * dk * dv;
  const double conv = 2.0 * static_cast<double>(g.conv_kernel) * (2.0 * kh * dk + vh * dv);
  return recurrence + conv;
}

FlopShape flop_shape(const ModelArchitecture& arch, bool frozen_base,
                     const std::vector<AdapterShape>& adapters) {
  FlopShape out;
  const std::vector<LinearLayer> linears = model_linears(arch);
  constexpr std::array<LinearPlace, 5> kGroups{LinearPlace::kAttention, LinearPlace::kDenseMlp,
                                               LinearPlace::kRoutedExpert,
                                               LinearPlace::kSharedExpert, LinearPlace::kRouter};
  for (std::size_t g = 0; g < kGroups.size(); ++g) out.group_macs[g] = macs_at(linears, kGroups[g]);
  out.head_macs = macs_at(linears, LinearPlace::kHead);
  for (const AdapterShape& a : adapters) {
    out.adapter_macs += static_cast<double>(a.params()) * static_cast<double>(a.active());
  }
  out.frozen_base = frozen_base;
  const AttentionSpec& at = arch.attention;
  out.a = static_cast<double>(at.num_heads);
  out.d = static_cast<double>(at.head_dim);
  out.d_v = out.d;
  if (at.latent) {
    out.d = static_cast<double>(at.latent->qk_nope_head_dim + at.latent->qk_rope_head_dim);
    out.d_v = static_cast<double>(at.latent->v_head_dim);
  }
  out.windows.reserve(static_cast<std::size_t>(arch.num_layers));
  for (std::int64_t layer = 0; layer < arch.num_layers; ++layer) {
    if (is_linear_attention_layer(arch, layer)) {
      out.linear_attention_flops += gated_delta_flops(*arch.linear_attention);
    }
    if (!is_attention_layer(arch, layer)) continue;
    // attention_span's rule: a layer slides unless the pattern makes it global.
    const bool global =
        at.sliding_window <= 0 || (at.global_every > 0 && (layer + 1) % at.global_every == 0);
    out.windows.push_back(global ? 0 : at.sliding_window);
  }
  out.reference_6n = 6.0 * static_cast<double>(count_params(arch).active);
  return out;
}

}  // namespace tb
