// config.json readers of LFM2 (docs/models.md, "LFM2"), read at huggingface/transformers:
// modeling_lfm2.py (0096ba4f), configuration_lfm2.py (05cd1ec1), modular_lfm2_moe.py (0c67e26d),
// configuration_lfm2_moe.py (06053b84).
#include "hf_lfm2.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hf_moe_families.hpp"

namespace tb::io {
namespace {

using Fields = FieldReader<JsonSource>;

// Lfm2MLP's width: intermediate_size (block_ff_dim where given); with block_auto_adjust_ff_dim
// (default true) two thirds of it, then, with a block_ffn_dim_multiplier, that multiple rounded up
// to block_multiple_of (default 256), as transformers computes it.
std::int64_t lfm2_mlp_width(Fields& f) {
  std::int64_t width = f.optional("block_ff_dim", f.optional("intermediate_size", 12288));
  if (!f.flag("block_auto_adjust_ff_dim", true)) return width;
  width = 2 * width / 3;
  const auto multiplier = f.number("block_ffn_dim_multiplier", false);
  if (!multiplier) return width;
  const std::int64_t multiple = std::max<std::int64_t>(1, f.optional("block_multiple_of", 256));
  width = static_cast<std::int64_t>(*multiplier * static_cast<double>(width));
  return multiple * ((width + multiple - 1) / multiple);
}

// The attending layers: layer_types ("full_attention" or "conv" each), else full_attn_idxs; with
// neither, Lfm2Config makes every layer attend.
std::vector<std::int64_t> lfm2_attention_layers(Fields& f, const nlohmann::json& object,
                                                std::int64_t layers) {
  std::vector<std::int64_t> out;
  const auto types = object.find("layer_types");
  if (types != object.end() && !types->is_null()) {
    if (!types->is_array() || static_cast<std::int64_t>(types->size()) != layers) {
      f.fail(fmt::format("{}: must list \"full_attention\" or \"conv\" for each of the {} layers",
                         f.name("layer_types"), layers));
      return out;
    }
    for (std::size_t i = 0; i < types->size(); ++i) {
      if ((*types)[i] == "full_attention") out.push_back(static_cast<std::int64_t>(i));
    }
    return out;
  }
  if (object.contains("full_attn_idxs") && !object.at("full_attn_idxs").is_null()) {
    out = f.integer_list("full_attn_idxs");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  for (std::int64_t i = 0; i < layers; ++i) out.push_back(i);
  return out;
}

}  // namespace

// LFM2: embed_tokens tied to the head (tie_embedding, the legacy key, or tie_word_embeddings;
// default true), the final embedding_norm, and in every layer operator_norm and ffn_norm
// (RMSNorms), a short convolution or attention (q/k/v and out_proj, q/k norms a head wide, no
// biases) and the SwiGLU MLP. LFM2-MoE: its first num_dense_layers keep an MLP of
// intermediate_size (not adjusted); the rest hold num_experts experts of moe_intermediate_size
// behind a sigmoid router without bias, whose expert_bias (use_expert_bias) the checkpoint keeps.
ModelArchitecture read_lfm2_family(Fields& f, const nlohmann::json& object,
                                   const std::string& type) {
  const bool moe = type == "lfm2_moe";
  ModelArchitecture a;
  a.model_type = type;
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.optional("vocab_size", 65536);
  a.max_positions = f.optional("max_position_embeddings", 128000);
  a.tie_embeddings = f.flag("tie_embedding", f.flag("tie_word_embeddings", true));
  read_attention_heads(f, a);
  a.attention.qk_norm = true;
  if (moe) {
    a.mlp.intermediate = f.required("intermediate_size");
    MoeSpec m;
    m.num_experts = f.required("num_experts");
    m.experts_per_token = f.required("num_experts_per_tok");
    m.expert_intermediate = f.required("moe_intermediate_size");
    m.first_dense_layers = f.optional("num_dense_layers", 2);
    m.router_score_bias = f.flag("use_expert_bias", true);
    a.moe = m;
  } else {
    a.mlp.intermediate = lfm2_mlp_width(f);
  }
  LinearAttentionSpec g;
  g.mixer = LinearMixer::kShortConv;
  g.key_heads = 0;
  g.key_head_dim = 0;
  g.value_heads = 1;
  g.value_head_dim = a.hidden;
  g.conv_kernel = f.optional("conv_L_cache", 3);
  g.conv_bias = f.flag("conv_bias", false);
  g.attention_layers = lfm2_attention_layers(f, object, a.num_layers);
  if (g.attention_layers.empty()) {
    f.fail(
        fmt::format("{}: names no attention layer (a model of convolutions alone is not "
                    "modelled)",
                    f.name("layer_types")));
  } else if (static_cast<std::int64_t>(g.attention_layers.size()) < a.num_layers) {
    a.linear_attention = g;
  }
  return a;
}

}  // namespace tb::io
