// config.json readers of the Mamba-2 hybrids (docs/models.md, "Mamba-2 hybrids"), read at
// huggingface/transformers: falcon_h1 (configuration_falcon_h1.py at 020a37d, modular_falcon_h1.py
// at 00511f5), bamba (configuration_bamba.py at 001f85b), granitemoehybrid
// (configuration_granitemoehybrid.py at 008f5c8, modeling_granitemoehybrid.py at 00511f5) and
// nemotron_h (below).
#include "hf_mamba.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hf_moe_families.hpp"
#include "trainbudget/spec/checked.hpp"

namespace tb::io {
namespace {

using Fields = FieldReader<JsonSource>;

// The Mamba-2 mixer's shape from the mamba_* keys over an inner width `inner` (d_ssm):
// mamba_d_head "auto" (or absent) is inner / mamba_n_heads, which must then divide it, and a given
// one must make heads x head_dim = inner (FalconH1Config's and BambaConfig's checks).
LinearAttentionSpec read_mamba2(Fields& f, std::int64_t inner) {
  LinearAttentionSpec g;
  g.mixer = LinearMixer::kMamba2;
  g.value_heads = f.required("mamba_n_heads");
  g.key_heads = f.optional("mamba_n_groups", 1);
  g.key_head_dim = f.required("mamba_d_state");
  g.conv_kernel = f.optional("mamba_d_conv", 4);
  g.chunk_size = f.optional("mamba_chunk_size", 256);
  g.conv_bias = f.flag("mamba_conv_bias", true);
  g.in_proj_bias = f.flag("mamba_proj_bias", false);
  const auto* head = f.find("mamba_d_head");
  const bool automatic =
      head == nullptr || (head->is_string() && head->template get<std::string>() == "auto");
  if (automatic) {
    if (g.value_heads > 0 && inner % g.value_heads != 0) {
      f.fail(fmt::format("{}: {} does not divide the inner width {}", f.name("mamba_n_heads"),
                         g.value_heads, inner));
    }
    g.value_head_dim = g.value_heads > 0 ? inner / g.value_heads : 0;
  } else {
    g.value_head_dim = f.required("mamba_d_head");
    if (g.value_head_dim * g.value_heads != inner) {
      f.fail(fmt::format("{}: {} x mamba_n_heads {} is not the inner width {}",
                         f.name("mamba_d_head"), g.value_head_dim, g.value_heads, inner));
    }
  }
  return g;
}

// The layers that attend, from a list of indices (Bamba's attn_layer_indices) or from one type a
// layer (Granite's layer_types / layers_block_type: "mamba" or "attention"): sorted, each once.
std::vector<std::int64_t> attention_layers(Fields& f, const nlohmann::json& types,
                                           std::int64_t layers) {
  std::vector<std::int64_t> out;
  if (!types.is_array() || static_cast<std::int64_t>(types.size()) != layers) {
    f.fail(fmt::format("{}: must list \"mamba\" or \"attention\" for each of the {} layers",
                       f.name("layer_types"), layers));
    return out;
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    const bool attention = types[i] == "attention";
    if (!attention && types[i] != "mamba") {
      f.fail(fmt::format("{}: {} is not \"mamba\" or \"attention\"", f.name("layer_types"),
                         types[i].dump().substr(0, 40)));
      return {};
    }
    if (attention) out.push_back(static_cast<std::int64_t>(i));
  }
  return out;
}

// Falcon-H1: Llama's attention, MLP and norms (two a layer), with a Mamba-2 mixer beside the
// attention on the same normed input in every layer; d_ssm from mamba_d_ssm (null: mamba_expand x
// hidden), the gated norm only with mamba_rms_norm (default false), out_proj biased by
// projectors_bias.
ModelArchitecture read_falcon_h1(Fields& f) {
  ModelArchitecture a = read_llama_like(f, "falcon_h1", {});
  const std::int64_t inner =
      f.optional("mamba_d_ssm", checked_mul(f.optional("mamba_expand", 2), a.hidden));
  LinearAttentionSpec g = read_mamba2(f, inner);
  g.gated_norm = f.flag("mamba_rms_norm", false);
  g.out_proj_bias = f.flag("projectors_bias", false);
  g.parallel = true;
  a.linear_attention = g;
  return a;
}

// Bamba and Granite 4.0's hybrids: d_ssm = mamba_expand x hidden, the gated norm always, out_proj
// biased by mamba_proj_bias; Llama's attention (attention_bias, Granite's; Bamba's none) in the
// layers listed.
ModelArchitecture read_sequential_hybrid(Fields& f, const nlohmann::json& object,
                                         const std::string& type) {
  const bool granite = type == "granitemoehybrid";
  ModelArchitecture a;
  a.model_type = type;
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", 0);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  read_attention_heads(f, a);
  a.attention.qkv_bias = a.attention.output_bias = granite && f.flag("attention_bias", false);
  LinearAttentionSpec g = read_mamba2(f, checked_mul(f.optional("mamba_expand", 2), a.hidden));
  g.out_proj_bias = g.in_proj_bias;
  if (granite) {
    const char* key = object.contains("layer_types") ? "layer_types" : "layers_block_type";
    const auto types = object.find(key);
    g.attention_layers =
        attention_layers(f, types == object.end() ? nlohmann::json() : *types, a.num_layers);
    // GraniteMoeHybridDecoderLayer: the MoE block (num_local_experts > 0, experts of
    // intermediate_size) beside shared_mlp (shared_intermediate_size), or shared_mlp alone.
    const std::int64_t experts = f.required("num_local_experts");
    const std::int64_t shared = f.required("shared_intermediate_size");
    if (experts > 0) {
      MoeSpec m;
      m.num_experts = experts;
      m.experts_per_token = f.required("num_experts_per_tok");
      m.expert_intermediate = f.required("intermediate_size");
      m.shared_intermediate = shared;
      m.num_shared_experts = shared > 0 ? 1 : 0;
      a.moe = m;
    } else {
      a.mlp.intermediate = shared;
    }
  } else {
    g.attention_layers = f.integer_list("attn_layer_indices");
    std::sort(g.attention_layers.begin(), g.attention_layers.end());
    g.attention_layers.erase(std::unique(g.attention_layers.begin(), g.attention_layers.end()),
                             g.attention_layers.end());
    a.mlp.intermediate = f.required("intermediate_size");
  }
  if (g.attention_layers.empty()) {
    f.fail(
        fmt::format("{}: names no attention layer (a Mamba-2 model without attention is not "
                    "modelled)",
                    f.name(granite ? "layer_types" : "attn_layer_indices")));
  }
  a.linear_attention = g;
  return a;
}

// Nemotron-H's blocks in order, from hybrid_override_pattern (M Mamba-2, * attention, - MLP, E
// MoE) or from layers_block_type ("mamba"/"linear_attention", "attention"/"full_attention",
// "mlp", "moe"), as NemotronHConfig reads them (configuration_nemotron_h.py _pattern_to_list).
std::string nemotron_h_blocks(Fields& f, const nlohmann::json& object) {
  std::string out;
  if (const auto it = object.find("hybrid_override_pattern");
      it != object.end() && it->is_string()) {
    out = it->get<std::string>();
  } else if (const auto types = object.find("layers_block_type");
             types != object.end() && types->is_array()) {
    for (const auto& t : *types) {
      const std::string v = t.is_string() ? t.get<std::string>() : std::string{};
      out += v == "mamba" || v == "linear_attention"     ? 'M'
             : v == "attention" || v == "full_attention" ? '*'
             : v == "mlp"                                ? '-'
             : v == "moe"                                ? 'E'
                                                         : '?';
    }
  }
  if (out.empty()) {
    f.fail(fmt::format("{}: missing (a string of M, *, - and E, one a block)",
                       f.name("hybrid_override_pattern")));
  }
  return out;
}

// Nemotron-H (modeling_nemotron_h.py at 008d9e9, configuration_nemotron_h.py at 13923c6): a
// stack of blocks of one sublayer each behind its own RMSNorm: a Mamba-2 mixer of
// mamba_num_heads x mamba_head_dim, attention without RoPE or biases, or a plain MLP (up, relu2,
// down) or an MoE block (E, Nemotron 3); the embedding and an untied LM head. Each MLP or MoE
// block joins a mixer into one decoder layer; the mixers beyond their count have none
// (ModelArchitecture::mlp_free_layers).
ModelArchitecture read_nemotron_h(Fields& f, const nlohmann::json& object) {
  ModelArchitecture a;
  a.model_type = "nemotron_h";
  a.hidden = f.required("hidden_size");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", 0);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  const std::string blocks = nemotron_h_blocks(f, object);
  std::int64_t mixers = 0;
  std::int64_t mlps = 0;
  std::int64_t moes = 0;
  LinearAttentionSpec g;
  g.mixer = LinearMixer::kMamba2;
  for (const char c : blocks) {
    if (c == '*') g.attention_layers.push_back(mixers);
    if (c == 'M' || c == '*') {
      ++mixers;
    } else if (c == '-') {
      ++mlps;
    } else if (c == 'E') {
      ++moes;
    } else {
      f.fail(fmt::format("{}: '{}' is not a block (M, *, - or E)",
                         f.name("hybrid_override_pattern"), c));
      return a;
    }
  }
  if (moes > 0 && mlps > 0) {
    f.fail(fmt::format("{}: MLP and MoE blocks in one model are not modelled",
                       f.name("hybrid_override_pattern")));
    return a;
  }
  mlps += moes;
  if (mlps > mixers || g.attention_layers.empty() ||
      static_cast<std::int64_t>(g.attention_layers.size()) == mixers) {
    f.fail(
        fmt::format("{}: {} mixers, {} of them attention, and {} MLPs are not modelled (a "
                    "Mamba-2 mixer and attention, an MLP for at most each mixer)",
                    f.name("hybrid_override_pattern"), mixers, g.attention_layers.size(), mlps));
    return a;
  }
  a.num_layers = mixers;
  a.mlp_free_layers = mixers - mlps;
  a.attention.num_heads = f.required("num_attention_heads");
  a.attention.num_kv_heads = f.optional("num_key_value_heads", a.attention.num_heads);
  // head_dim, else attention_head_dim (the first configs), else hidden / heads.
  a.attention.head_dim = f.optional(
      "head_dim", f.optional("attention_head_dim",
                             a.attention.num_heads > 0 ? a.hidden / a.attention.num_heads : 0));
  a.mlp.gated = false;
  a.mlp.activation = "relu2";
  a.mlp.intermediate = f.required("intermediate_size");
  a.mlp.bias = f.flag("mlp_bias", false);
  if (moes > 0) {
    // Nemotron 3's MoE blocks (NemotronHMoE): relu2 experts of moe_intermediate_size, top
    // num_experts_per_tok of n_routed_experts by a sigmoid router with e_score_correction_bias,
    // and one shared MLP of moe_shared_expert_intermediate_size (n_shared_experts multiplies
    // nothing). Latent experts (moe_latent_size: Nemotron 3 Super) are refused.
    if (const auto* latent = f.find("moe_latent_size"); latent != nullptr && !latent->is_null()) {
      f.fail(
          fmt::format("{}: latent experts (Nemotron 3 Super's fc1/fc2_latent_proj) are not "
                      "modelled",
                      f.name("moe_latent_size")));
      return a;
    }
    MoeSpec m;
    m.num_experts = f.required("n_routed_experts");
    m.experts_per_token = f.required("num_experts_per_tok");
    m.expert_intermediate = f.required("moe_intermediate_size");
    m.shared_intermediate = f.optional("n_shared_experts", 1) > 0
                                ? f.optional("moe_shared_expert_intermediate_size", 0)
                                : 0;
    m.num_shared_experts = m.shared_intermediate > 0 ? 1 : 0;
    m.router_score_bias = true;
    m.expert_bias = a.mlp.bias;
    m.gated = false;
    a.moe = m;
  }
  g.value_heads = f.required("mamba_num_heads");
  g.value_head_dim = f.required("mamba_head_dim");
  g.key_heads = f.optional("n_groups", f.optional("mamba_n_groups", 1));
  g.key_head_dim = f.required("ssm_state_size");
  g.conv_kernel = f.optional("conv_kernel", f.optional("mamba_d_conv", 4));
  g.conv_bias = f.flag("use_conv_bias", f.flag("mamba_conv_bias", true));
  g.in_proj_bias = g.out_proj_bias = f.flag("use_bias", false);
  g.chunk_size = f.optional("chunk_size", f.optional("mamba_chunk_size", 256));
  a.linear_attention = g;
  return a;
}

}  // namespace

ModelArchitecture read_mamba_family(Fields& f, const nlohmann::json& object,
                                    const std::string& type) {
  if (type == "nemotron_h") return read_nemotron_h(f, object);
  return type == "falcon_h1" ? read_falcon_h1(f) : read_sequential_hybrid(f, object, type);
}

}  // namespace tb::io
