// config.json readers of the Llama-like dense families (hf_dense_families.hpp). Each comment
// names the transformers config class whose defaults apply where a key is absent, and the
// modeling file's weights; parameter counts by hand in tests/unit/dense_families_test.cpp and
// docs/models.md.
#include "hf_dense_families.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "hf_moe_families.hpp"
#include "layer_pattern.hpp"

namespace tb::io {
namespace {

using Fields = FieldReader<JsonSource>;

// The sliding-window layers of a 3-local-to-1-global family (Cohere2, EXAONE 4.0): layer_types
// ("sliding_attention" / "full_attention") when the config lists them, else
// sliding_window_pattern (layer i global when (i + 1) % pattern == 0, the classes' rule);
// sliding_window null means every layer attends fully, absent the class default. A layer_types
// list off that rule is refused (the model prices one global layer every N).
void read_local_global(Fields& f, std::int64_t window_default, std::int64_t pattern_default,
                       ModelArchitecture& a) {
  AttentionSpec& at = a.attention;
  const bool null_window = f.present("sliding_window") && f.find("sliding_window") == nullptr;
  at.sliding_window = null_window ? 0 : f.optional("sliding_window", window_default);
  at.global_every = f.optional("sliding_window_pattern", pattern_default);
  const auto* types = f.find("layer_types");
  if (types == nullptr) {
    if (at.global_every < 1) {
      f.fail(fmt::format("{}: {} must be at least 1 (one global layer in that many)",
                         f.name("sliding_window_pattern"), at.global_every));
    }
    return;
  }
  std::vector<bool> full;
  const bool list = JsonSource::for_each_item(*types, [&](const nlohmann::json& t) {
    full.push_back(!(t.is_string() && t.get_ref<const std::string&>() == "sliding_attention"));
  });
  if (!list || static_cast<std::int64_t>(full.size()) != a.num_layers) {
    f.fail(
        fmt::format("{}: must list \"sliding_attention\" / \"full_attention\" for each of the "
                    "{} layers",
                    f.name("layer_types"), a.num_layers));
    return;
  }
  if (std::all_of(full.begin(), full.end(), [](bool b) { return b; })) {
    at.sliding_window = 0;
    at.global_every = 0;
    return;
  }
  const FullEvery p = one_full_in_every(full);
  if (p.breaks_at >= 0) {
    f.fail(fmt::format(
        "{}: layer {} breaks the pattern of one full-attention layer every {} (not modelled)",
        f.name("layer_types"), p.breaks_at, p.every));
    return;
  }
  at.global_every = p.every;
}

// Multi-head attention whose heads split the width exactly (MPT, GPT-J): `key` heads (its class
// default `fallback`), each hidden / heads wide.
void read_full_heads(Fields& f, const char* key, std::int64_t fallback, const char* width,
                     ModelArchitecture& a) {
  AttentionSpec& at = a.attention;
  at.num_heads = at.num_kv_heads = f.optional(key, fallback);
  if (at.num_heads > 0 && a.hidden % at.num_heads != 0) {
    f.fail(fmt::format("{}: {} does not divide {} {}", f.name(key), at.num_heads, width, a.hidden));
  }
  at.head_dim = at.num_heads > 0 ? std::max<std::int64_t>(1, a.hidden / at.num_heads) : 1;
}

// SeedOssConfig (configuration_seed_oss.py; Seed-OSS-36B): head_dim 128, untied; q/k/v biased by
// attention_bias (default True), o_proj by attention_out_bias (default False); a gated MLP biased
// by mlp_bias (default False); two RMSNorms a layer.
ModelArchitecture read_seed_oss(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a = read_llama_like(f, "seed_oss", {false, 128, 524288});
  a.attention.qkv_bias = f.flag("attention_bias", true);
  a.attention.output_bias = f.flag("attention_out_bias", false);
  return a;
}

// CohereConfig / Cohere2Config (configuration_cohere.py, configuration_cohere2.py; Command R,
// Command R7B): tied (default True), heads' width hidden / heads; one CohereLayerNorm (a weight,
// no bias) a layer, attention and a gated MLP (no biases) in parallel from it; logit_scale a
// constant. Cohere's use_qk_norm (a weight per head for q and k) is refused by name; Cohere2
// slides a window in three layers of four.
ModelArchitecture read_cohere(Fields& f, const std::string& type) {
  ModelArchitecture a = read_llama_like(f, type, {true, std::nullopt, 8192});
  a.norm = {NormKind::kLayerNorm, false};
  a.norms_per_layer = 1;
  a.mlp.bias = false;
  if (type == "cohere2") {
    read_local_global(f, 4096, 4, a);
  } else if (f.flag("use_qk_norm", false)) {
    f.fail(fmt::format("{}: true (a LayerNorm weight per head on q and k): not modelled",
                       f.name("use_qk_norm")));
  }
  return a;
}

// NemotronConfig (configuration_nemotron.py; Nemotron-4, Minitron): untied, q/k/v/o biased by
// attention_bias, a non-gated up/down MLP (relu2) biased by mlp_bias; NemotronLayerNorm1P, a
// LayerNorm with weight and bias, twice a layer and at the end; partial rotary (no weights).
ModelArchitecture read_nemotron(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a = read_llama_like(f, "nemotron", {false, std::nullopt, 4096});
  a.norm = {NormKind::kLayerNorm, true};
  a.mlp.gated = false;
  a.mlp.activation = f.text("hidden_act", "relu2");
  return a;
}

// MptConfig (configuration_mpt.py; MPT-7B): d_model, n_heads, n_layers, max_seq_len, vocab_size;
// tied (PretrainedConfig's default). MptBlock: norm_1 and norm_2, LayerNorms whose bias is set to
// None, a fused Wqkv and out_proj without bias, up_proj (4 x d_model) and down_proj without bias,
// ALiBi (no position table); a final norm_f. transformers hard-codes the MLP's 4x and the
// missing biases, so a config that asks otherwise (expansion_ratio, no_bias false) is refused.
ModelArchitecture read_mpt(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a;
  a.model_type = "mpt";
  a.hidden = f.optional("d_model", 2048);
  a.num_layers = f.optional("n_layers", 24);
  a.vocab = f.optional("vocab_size", 50368);
  a.max_positions = f.optional("max_seq_len", 2048);
  a.tie_embeddings = f.flag("tie_word_embeddings", true);
  a.norm = {NormKind::kLayerNorm, false};
  AttentionSpec& at = a.attention;
  read_full_heads(f, "n_heads", 16, "d_model", a);
  at.fused_qkv = true;
  a.mlp.gated = false;
  a.mlp.activation = "gelu";
  const std::int64_t ratio = f.optional("expansion_ratio", 4);
  if (ratio != 4) {
    f.fail(fmt::format("{}: {} (transformers' MPT builds a 4x MLP): not modelled",
                       f.name("expansion_ratio"), ratio));
  }
  a.mlp.intermediate = 4 * a.hidden;
  if (!f.flag("no_bias", true)) {
    f.fail(fmt::format("{}: false (biased linears; transformers' MPT has none): not modelled",
                       f.name("no_bias")));
  }
  return a;
}

// EXAONE 4.0 (Exaone4Config, configuration_exaone4.py): untied by default; q/k/v/o without bias,
// q_norm and k_norm (RMSNorm over head_dim), a gated MLP without bias, the two RMSNorms after
// attention and after the MLP (post_attention_layernorm, post_feedforward_layernorm: the count
// of two pre-norms), sliding windows in three layers of four.
ModelArchitecture read_exaone4(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a = read_llama_like(f, "exaone4", {false, std::nullopt, 2048});
  a.attention.qkv_bias = a.attention.output_bias = false;
  a.mlp.bias = false;
  a.attention.qk_norm = true;
  read_local_global(f, 4096, 4, a);
  return a;
}

// Qwen (1) (model_type "qwen", its remote code modeling_qwen.py; Qwen-7B, 14B, 72B): QWenConfig's
// defaults (vocabulary 151936, hidden 4096, 32 layers and heads, kv_channels 128, 8192 positions,
// intermediate_size 22016, no_bias true, untied). QWenAttention: c_attn, the fused q/k/v, always
// biased; c_proj biased unless no_bias. QWenMLP: w1 and w2 each hidden -> intermediate_size / 2,
// a1 x SiLU(a2), c_proj back, biased unless no_bias; RMSNorms ln_1, ln_2 and ln_f.
ModelArchitecture read_qwen1(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a;
  a.model_type = "qwen";
  a.hidden = f.optional("hidden_size", 4096);
  a.num_layers = f.optional("num_hidden_layers", 32);
  a.vocab = f.optional("vocab_size", 151936);
  a.max_positions = f.optional("max_position_embeddings", 8192);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  AttentionSpec& at = a.attention;
  at.num_heads = at.num_kv_heads = f.optional("num_attention_heads", 32);
  at.head_dim = f.optional("kv_channels", 128);
  at.fused_qkv = at.qkv_bias = true;
  const bool bias = !f.flag("no_bias", true);
  at.output_bias = a.mlp.bias = bias;
  const std::int64_t intermediate = f.optional("intermediate_size", 22016);
  if (intermediate % 2 != 0) {
    f.fail(fmt::format("{}: {} is odd (w1 and w2 are each half of it)", f.name("intermediate_size"),
                       intermediate));
  }
  a.mlp.intermediate = intermediate / 2;
  return a;
}

// GPTJConfig (configuration_gptj.py; GPT-J-6B): n_embd 4096, n_layer 28, n_head 16, n_positions
// 2048, vocab_size 50400, n_inner None (= 4 x n_embd), rotary_dim 64 (no weights), untied.
// GPTJBlock: one ln_1 (LayerNorm with bias) feeding attention and the MLP in parallel; q/k/v and
// out_proj without bias; fc_in and fc_out (gelu_new) with bias; ln_f and a biased lm_head.
ModelArchitecture read_gptj(Fields& f, const std::string& /*type*/) {
  ModelArchitecture a;
  a.model_type = "gptj";
  a.hidden = f.optional("n_embd", 4096);
  a.num_layers = f.optional("n_layer", 28);
  a.vocab = f.optional("vocab_size", 50400);
  a.max_positions = f.optional("n_positions", 2048);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  a.head_bias = true;
  a.norm = {NormKind::kLayerNorm, true};
  a.norms_per_layer = 1;
  read_full_heads(f, "n_head", 16, "n_embd", a);
  a.mlp.gated = false;
  a.mlp.bias = true;
  a.mlp.intermediate = f.optional("n_inner", 4 * a.hidden);
  a.mlp.activation = f.text("activation_function", "gelu_new");
  return a;
}

ModelArchitecture read_apertus(Fields& f, const std::string& type) {
  // ApertusConfig (configuration_apertus.py; Apertus 8B and 70B): Llama's attention with
  // q_norm / k_norm over head_dim, a non-gated up/down MLP without biases whose xIELU activation
  // learns alpha_p and alpha_n (XIELUActivation), attention_layernorm and feedforward_layernorm
  // (RMSNorm), untied.
  ModelArchitecture a = read_llama_like(f, type, {false, std::nullopt, 65536});
  a.attention.qk_norm = true;
  a.mlp.gated = false;
  a.mlp.bias = false;
  a.mlp.activation = f.text("hidden_act", "xielu");
  if (a.mlp.activation == "xielu") a.mlp.activation_params = 2;
  return a;
}

// Olmo2Config / Olmo3Config (OLMo 2, Olmo 3): untied, no biases; q_norm and k_norm (RMSNorm) over
// the whole q and k projections; the two RMSNorms after attention and after the MLP
// (post_attention_layernorm, post_feedforward_layernorm: the count of two pre-norms). Olmo 3
// slides a 4,096-token window in three layers of four.
ModelArchitecture read_olmo2(Fields& f, const std::string& type) {
  ModelArchitecture a = read_llama_like(f, type, {false, std::nullopt, 2048});
  a.attention.qk_norm = a.attention.qk_norm_whole = true;
  if (type == "olmo3") read_local_global(f, 4096, 4, a);
  return a;
}

// ArceeConfig (configuration_arcee.py; AFM-4.5B): Llama's layers with a non-gated up/down MLP
// (ArceeMLP, relu2).
ModelArchitecture read_arcee(Fields& f, const std::string& type) {
  ModelArchitecture a = read_llama_like(f, type, {false, std::nullopt, 4096});
  a.mlp.gated = false;
  a.mlp.activation = f.text("hidden_act", "relu2");
  return a;
}

// HunYuanDenseV1Config (configuration_hunyuan_v1_dense.py): Llama's layers with query_layernorm /
// key_layernorm (RMSNorm over head_dim) and an MLP without biases.
ModelArchitecture read_hunyuan(Fields& f, const std::string& type) {
  ModelArchitecture a = read_llama_like(f, type, {false, std::nullopt, 2048});
  a.attention.qk_norm = true;
  a.mlp.bias = false;
  return a;
}

// HeliumConfig (head_dim 128): Llama's weights, but HeliumAttention's o_proj is hidden -> hidden,
// so the heads' width must be hidden.
ModelArchitecture read_helium(Fields& f, const std::string& type) {
  ModelArchitecture a = read_llama_like(f, type, {false, 128, 4096});
  if (a.attention.num_heads * a.attention.head_dim != a.hidden) {
    f.fail(fmt::format(
        "{}: {} heads of {} are not hidden_size {} (Helium's o_proj is hidden -> hidden): not "
        "modelled",
        f.name("num_attention_heads"), a.attention.num_heads, a.attention.head_dim, a.hidden));
  }
  return a;
}

// SmolLM3Config (tied by default; NoPE layers have no weights) and GraniteConfig (its
// multipliers are constants): Llama's layers and weights.
ModelArchitecture read_smollm3(Fields& f, const std::string& type) {
  return read_llama_like(f, type, {true, std::nullopt, 32768});
}
ModelArchitecture read_granite(Fields& f, const std::string& type) {
  return read_llama_like(f, type, {false, std::nullopt, 2048});
}

// Each model_type with its reader: the one list is_dense_family and read_dense_family share.
struct DenseReader {
  std::string_view type;
  ModelArchitecture (*read)(Fields&, const std::string&);
};
constexpr std::array<DenseReader, 16> kReaders{{{"apertus", read_apertus},
                                                {"arcee", read_arcee},
                                                {"cohere", read_cohere},
                                                {"cohere2", read_cohere},
                                                {"exaone4", read_exaone4},
                                                {"gptj", read_gptj},
                                                {"granite", read_granite},
                                                {"helium", read_helium},
                                                {"hunyuan_v1_dense", read_hunyuan},
                                                {"mpt", read_mpt},
                                                {"nemotron", read_nemotron},
                                                {"olmo2", read_olmo2},
                                                {"olmo3", read_olmo2},
                                                {"qwen", read_qwen1},
                                                {"seed_oss", read_seed_oss},
                                                {"smollm3", read_smollm3}}};

const DenseReader* find_reader(const std::string& type) {
  const auto it = std::find_if(kReaders.begin(), kReaders.end(),
                               [&](const DenseReader& r) { return r.type == type; });
  return it == kReaders.end() ? nullptr : &*it;
}

}  // namespace

bool is_dense_family(const std::string& type) { return find_reader(type) != nullptr; }

ModelArchitecture read_dense_family(Fields& f, const std::string& type) {
  const DenseReader* reader = find_reader(type);
  if (reader == nullptr) {
    f.fail(fmt::format("model_type: \"{}\" is not one of the dense families", type));
    return {};
  }
  return reader->read(f, type);
}

}  // namespace tb::io
