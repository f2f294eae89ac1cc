// The builder the linear-layer lists are made with (linear_layers.cpp, vision_linears.cpp,
// hybrid_linears.cpp):
// one entry per module kind, merged across layers by accumulate().
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "trainbudget/model/linear_layers.hpp"

namespace tb::detail {

struct Builder {
  const ModelArchitecture& arch;
  std::vector<LinearLayer> out;

  void add(std::string name, std::string path, LinearKind kind, LinearPlace place, std::int64_t in,
           std::int64_t out_features, bool bias, std::int64_t copies = 1, std::int64_t active = 1) {
    LinearLayer l;
    l.name = std::move(name);
    l.path = std::move(path);
    l.kind = kind;
    l.place = place;
    l.in_features = in;
    l.out_features = out_features;
    l.bias = bias;
    l.copies = copies;
    l.active_copies = active;
    out.push_back(std::move(l));
  }
};

// Whether two entries are the same module (merged by accumulate).
inline bool same_layer(const LinearLayer& a, const LinearLayer& b) {
  return a.path == b.path && a.place == b.place && a.in_features == b.in_features &&
         a.out_features == b.out_features && a.bias == b.bias && a.copies == b.copies;
}

// Adds `layers` decoder layers' worth of `linears`, merging entries that are already there.
inline void accumulate(std::vector<LinearLayer>& into, const std::vector<LinearLayer>& linears,
                       std::int64_t layers) {
  if (layers == 0) return;
  for (LinearLayer l : linears) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const LinearLayer& x) { return same_layer(x, l); });
    if (it != into.end()) {
      it->layers += layers;
    } else {
      l.layers = layers;
      into.push_back(std::move(l));
    }
  }
}

// The vision encoder's and projector's linears of a vision-language checkpoint, each counted over
// its layers (none without a tower).
[[nodiscard]] std::vector<LinearLayer> vision_tower_linears(const ModelArchitecture& arch);

// A Mamba-2 mixer's in_proj and out_proj (hybrid_linears.cpp).
void mamba2_mixer(Builder& b);
// Granite 4.0's MoE block: the router, the fused experts and the shared MLP (hybrid_linears.cpp).
void granite_moe_block(Builder& b);
// LFM2's short convolution's in_proj and out_proj, and LFM2-MoE's block (hybrid_linears.cpp).
void short_conv_mixer(Builder& b);
void lfm2_moe_block(Builder& b);
// Nemotron 3's MoE block: the router, the stacked relu2 experts, the shared MLP
// (hybrid_linears.cpp).
void nemotron_h_moe_block(Builder& b);

}  // namespace tb::detail
