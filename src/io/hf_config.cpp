// config.json -> ModelArchitecture. Each family's reader mirrors its transformers config class
// (configuration_<family>.py defaults) and modeling file (which weights exist).
#include "trainbudget/io/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "field_reader.hpp"
#include "hf_dbrx.hpp"
#include "hf_dense_families.hpp"
#include "hf_gated_delta.hpp"
#include "hf_glm.hpp"
#include "hf_lfm2.hpp"
#include "hf_llama4.hpp"
#include "hf_mamba.hpp"
#include "hf_mistral3.hpp"
#include "hf_moe_families.hpp"
#include "hf_stablelm.hpp"
#include "json_text.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "vision_config.hpp"

namespace tb::io {
namespace {

using Json = nlohmann::json;

using Fields = FieldReader<JsonSource>;

// The attention heads: num_key_value_heads defaults to num_attention_heads (every config class
// here); head_dim is the config's, else the class default, else hidden / heads, which must
// then divide exactly.
void read_heads(Fields& f, const Family& family, ModelArchitecture& a) {
  AttentionSpec& at = a.attention;
  at.num_heads = f.required("num_attention_heads");
  at.num_kv_heads = f.optional("num_key_value_heads", at.num_heads);
  if (auto hd = f.integer("head_dim", false)) {
    at.head_dim = *hd;
  } else if (family.head_dim_default) {
    at.head_dim = *family.head_dim_default;
  } else if (a.hidden > 0 && at.num_heads > 0) {
    if (a.hidden % at.num_heads != 0) {
      f.fail(fmt::format("{}: {} does not divide {} {} and no head_dim is given",
                         f.name("num_attention_heads"), at.num_heads, f.name("hidden_size"),
                         a.hidden));
    }
    at.head_dim = a.hidden / at.num_heads;
  } else {
    // hidden_size or num_attention_heads is already reported; a derived "head_dim: 0" would
    // only repeat it. The placeholder never leaves the parser, which throws.
    at.head_dim = 1;
  }
}

// sliding_window where the family uses it: Mistral, Mixtral and Phi-3 slide in every layer
// when the key is set; Qwen2/Qwen3 only with use_sliding_window (their configs carry a
// window they do not use); Gemma 2 alternates (Gemma2Config default 4096), Gemma 3 keeps one
// global layer in sliding_window_pattern (Gemma3TextConfig: 4096, 6).
void read_sliding_window(Fields& f, const std::string& type, ModelArchitecture& a) {
  AttentionSpec& at = a.attention;
  if (type == "mistral" || type == "mixtral" || type == "phi3" || type == "starcoder2") {
    at.sliding_window = f.optional("sliding_window", 0);
  } else if (type == "qwen2" || type == "qwen3" || type == "qwen3_moe") {
    if (f.flag("use_sliding_window", false)) at.sliding_window = f.optional("sliding_window", 0);
  } else if (type == "gemma2") {
    at.sliding_window = f.optional("sliding_window", 4096);
    at.global_every = 2;
  } else if (type == "gemma3_text") {
    at.sliding_window = f.optional("sliding_window", 4096);
    const std::int64_t every = f.optional("sliding_window_pattern", 6);
    if (every < 1) {
      f.fail(
          fmt::format("sliding_window_pattern: {} must be at least 1 (one global layer in that "
                      "many)",
                      every));
    }
    at.global_every = std::max<std::int64_t>(every, 1);
  }
}

}  // namespace

ModelArchitecture read_llama_like(Fields& f, const std::string& model_type, const Family& family) {
  ModelArchitecture a;
  a.model_type = model_type;
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", family.max_positions_default);
  a.tie_embeddings = f.flag("tie_word_embeddings", family.tie_default);
  read_heads(f, family, a);
  a.attention.qkv_bias = a.attention.output_bias = f.flag("attention_bias", false);
  a.mlp.intermediate = f.required("intermediate_size");
  a.mlp.bias = f.flag("mlp_bias", false);
  a.mlp.activation = f.text("hidden_act", "silu");
  return a;
}

namespace {

// GPT2Config: n_embd 768, n_layer 12, n_head 12, n_positions 1024, n_inner None (= 4 * n_embd),
// tie_word_embeddings True (PretrainedConfig's default). GPT2Block: ln_1, attn (c_attn,
// c_proj), ln_2, mlp (c_fc, c_proj); every Conv1D and LayerNorm has a bias.
ModelArchitecture read_gpt2(Fields& f) {
  ModelArchitecture a;
  a.model_type = "gpt2";
  a.hidden = f.required("n_embd");
  a.num_layers = f.required("n_layer");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("n_positions", 1024);
  a.learned_positions = true;
  a.tie_embeddings = f.flag("tie_word_embeddings", true);
  a.norm = {NormKind::kLayerNorm, true};
  AttentionSpec& at = a.attention;
  at.num_heads = at.num_kv_heads = f.required("n_head");
  if (a.hidden > 0 && at.num_heads > 0) {
    if (a.hidden % at.num_heads != 0) {
      f.fail(fmt::format("n_head: {} does not divide n_embd {}", at.num_heads, a.hidden));
    }
    at.head_dim = a.hidden / at.num_heads;
  }
  at.qkv_bias = at.output_bias = at.fused_qkv = true;
  a.mlp.gated = false;
  a.mlp.bias = true;
  a.mlp.intermediate = f.optional("n_inner", 4 * a.hidden);
  a.mlp.activation = f.text("activation_function", "gelu_new");
  return a;
}

// MixtralConfig: num_local_experts 8, num_experts_per_tok 2; every layer's MLP is the sparse
// block, each expert intermediate_size wide (Jiang et al. 2024, Table 1).
ModelArchitecture read_mixtral(Fields& f) {
  ModelArchitecture a = read_llama_like(f, "mixtral", {});
  MoeSpec m;
  m.num_experts = f.optional("num_local_experts", 8);
  m.experts_per_token = f.optional("num_experts_per_tok", 2);
  m.expert_intermediate = a.mlp.intermediate;
  a.mlp.intermediate = 0;
  a.moe = m;
  return a;
}

// GPTNeoXConfig (Pythia, GPT-NeoX-20B): hidden_act gelu, tie_word_embeddings False,
// use_parallel_residual (no parameter); GPTNeoXLayer has input_layernorm and
// post_attention_layernorm (LayerNorm with bias), attention.query_key_value (fused, biased) and
// attention.dense (attention_bias, default True), mlp.dense_h_to_4h / dense_4h_to_h (biased);
// rotary positions (no table); embed_in and embed_out.
ModelArchitecture read_gpt_neox(Fields& f) {
  ModelArchitecture a = read_llama_like(f, "gpt_neox", {});
  a.norm = {NormKind::kLayerNorm, true};
  a.attention.fused_qkv = true;
  a.attention.qkv_bias = a.attention.output_bias = f.flag("attention_bias", true);
  a.mlp.gated = false;
  a.mlp.bias = true;
  a.mlp.activation = f.text("hidden_act", "gelu");
  return a;
}

// OPTConfig (Zhang et al. 2022, "OPT: Open Pre-trained Transformer Language Models";
// transformers' modeling_opt.py): a learned position table of max_position_embeddings + 2 rows,
// OPTDecoderLayer's self_attn (q_proj, k_proj, v_proj, out_proj) and fc1 / fc2 (ReLU, not
// gated), every linear biased when enable_bias (default True), LayerNorms with bias before each
// sublayer and a final one (do_layer_norm_before), the LM head tied. OPT-350M projects its
// 512-wide embeddings to the 1,024-wide layers and norms after each sublayer: not modelled.
ModelArchitecture read_opt(Fields& f) {
  ModelArchitecture a;
  a.model_type = "opt";
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", 2048);
  a.learned_positions = true;
  a.position_offset = 2;
  a.tie_embeddings = f.flag("tie_word_embeddings", true);
  a.norm = {NormKind::kLayerNorm, true};
  read_heads(f, {}, a);
  const bool bias = f.flag("enable_bias", true);
  a.attention.qkv_bias = a.attention.output_bias = bias;
  a.mlp.gated = false;
  a.mlp.bias = bias;
  a.mlp.intermediate = f.required("ffn_dim");
  a.mlp.activation = f.text("activation_function", "relu");
  const std::int64_t projected = f.optional("word_embed_proj_dim", a.hidden);
  if (projected != a.hidden) {
    f.fail(
        fmt::format("word_embed_proj_dim: {} differs from hidden_size {} (OPT-350M's "
                    "project_in / project_out): not modelled",
                    projected, a.hidden));
  }
  if (!f.flag("do_layer_norm_before", true)) {
    f.fail("do_layer_norm_before: false (norms after each sublayer, OPT-350M's): not modelled");
  }
  if (!f.flag("layer_norm_elementwise_affine", true)) {
    f.fail("layer_norm_elementwise_affine: false (norms without weights): not modelled");
  }
  return a;
}

// FalconConfig (transformers' modeling_falcon.py), Falcon-7B's layout: attention and a GELU
// dense_h_to_4h / dense_4h_to_h MLP (4h unless ffn_hidden_size) in parallel from one LayerNorm
// (parallel_attn), one key/value head shared by all (multi_query), a fused query_key_value, the
// linears biased only with `bias`, rotary positions, the LM head tied. The new decoder
// (Falcon-40B/180B: grouped heads, two LayerNorms), a sequential block and ALiBi are refused.
ModelArchitecture read_falcon(Fields& f) {
  ModelArchitecture a;
  a.model_type = "falcon";
  a.hidden = f.required("hidden_size");
  a.num_layers = f.required("num_hidden_layers");
  a.vocab = f.required("vocab_size");
  a.max_positions = f.optional("max_position_embeddings", 2048);
  a.tie_embeddings = f.flag("tie_word_embeddings", true);
  a.norm = {NormKind::kLayerNorm, true};
  a.norms_per_layer = 1;
  read_heads(f, {}, a);
  if (f.flag("multi_query", true)) a.attention.num_kv_heads = 1;
  a.attention.fused_qkv = true;
  const bool bias = f.flag("bias", false);
  a.attention.qkv_bias = a.attention.output_bias = bias;
  a.mlp.gated = false;
  a.mlp.bias = bias;
  a.mlp.intermediate = f.optional("ffn_hidden_size", 4 * a.hidden);
  a.mlp.activation = f.text("activation", "gelu");
  if (f.flag("new_decoder_architecture", false))
    f.fail("new_decoder_architecture: true (Falcon-40B/180B's grouped heads): not modelled");
  if (!f.flag("parallel_attn", true))
    f.fail("parallel_attn: false (a sequential block): not modelled");
  if (f.flag("alibi", false)) f.fail("alibi: true (ALiBi positions): not modelled");
  return a;
}

ModelArchitecture read_family(Fields& f, const std::string& type) {
  if (type == "opt") return read_opt(f);
  if (type == "falcon") return read_falcon(f);
  if (type == "gpt2") return read_gpt2(f);
  if (type == "gpt_neox") return read_gpt_neox(f);
  // LlamaConfig / MistralConfig: tie_word_embeddings False, head_dim None (= hidden / heads).
  if (type == "llama" || type == "mistral") return read_llama_like(f, type, {});
  if (type == "ministral3" || type == "mistral4") return read_text_model(f, type);
  if (type == "dbrx") return read_dbrx(f);
  if (type == "mixtral") return read_mixtral(f);
  if (type == "qwen2") {
    // Qwen2Attention: q_proj, k_proj, v_proj biased, o_proj not, whatever the config says.
    ModelArchitecture a = read_llama_like(f, type, {});
    a.attention.qkv_bias = true;
    a.attention.output_bias = false;
    return a;
  }
  if (type == "qwen3") {
    // Qwen3Config: head_dim 128, attention_bias False, tie False; q_norm and k_norm.
    ModelArchitecture a = read_llama_like(f, type, {false, 128});
    a.attention.qk_norm = true;
    return a;
  }
  if (type == "qwen3_moe" || type == "qwen2_moe") return read_qwen_moe(f, type);
  if (type == "gpt_oss") return read_gpt_oss(f);
  if (type == "glm4") return read_glm4(f);
  if (type == "llama4_text") return read_llama4_text(f);
  if (type == "stablelm") return read_stablelm(f);
  if (type == "glm4_moe") return read_glm4_moe(f);
  if (type == "glm4_moe_lite") return read_glm4_moe_lite(f);
  if (type == "gemma" || type == "gemma2" || type == "gemma3_text") {
    // GemmaConfig / Gemma2Config / Gemma3TextConfig: head_dim 256, tie_word_embeddings True.
    // Gemma 2 and 3 add pre/post feed-forward and post-attention norms (four per layer);
    // Gemma 3 adds q_norm / k_norm.
    ModelArchitecture a = read_llama_like(f, type, {true, 256});
    a.mlp.activation = f.text("hidden_activation", f.text("hidden_act", "gelu_pytorch_tanh"));
    if (type != "gemma") a.norms_per_layer = 4;
    if (type == "gemma3_text") a.attention.qk_norm = true;
    return a;
  }
  if (type == "phi3") {
    // Phi3Config: tie False; Phi3Attention.qkv_proj and Phi3MLP.gate_up_proj are fused.
    ModelArchitecture a = read_llama_like(f, type, {});
    a.attention.fused_qkv = true;
    a.mlp.fused_gate_up = true;
    return a;
  }
  if (type == "starcoder2") {
    // Starcoder2Config (Lozhkov et al. 2024, "StarCoder 2 and The Stack v2"; transformers'
    // modeling_starcoder2.py): q/k/v/o and the MLP's c_fc / c_proj (not gated,
    // gelu_pytorch_tanh) biased by use_bias (default True), LayerNorms with bias, rotary
    // positions, tie_word_embeddings True by default (the 15B's config unties them).
    ModelArchitecture a = read_llama_like(f, type, {true, std::nullopt});
    a.norm = {NormKind::kLayerNorm, true};
    const bool bias = f.flag("use_bias", true);
    a.attention.qkv_bias = a.attention.output_bias = bias;
    a.mlp.gated = false;
    a.mlp.bias = bias;
    a.mlp.activation = f.text("hidden_act", "gelu_pytorch_tanh");
    return a;
  }
  if (type == "phi") {
    // PhiConfig (modeling_phi.py; Phi-1.5 and Phi-2): attention and a GELU fc1/fc2 MLP in
    // parallel from one LayerNorm, every linear biased (the attention's output is `dense`), the
    // LM head biased too, rotary positions on partial_rotary_factor of each head, untied.
    ModelArchitecture a = read_llama_like(f, type, {});
    a.norm = {NormKind::kLayerNorm, true};
    a.norms_per_layer = 1;
    a.attention.qkv_bias = a.attention.output_bias = true;
    a.mlp.gated = false;
    a.mlp.bias = true;
    a.mlp.activation = f.text("hidden_act", "gelu_new");
    a.head_bias = true;
    if (f.flag("qk_layernorm", false))
      f.fail("qk_layernorm: true (LayerNorms on q and k): not modelled");
    return a;
  }
  if (type == "olmo") {
    // OlmoConfig: tie False, attention_bias False; OlmoLayerNorm has no parameters.
    ModelArchitecture a = read_llama_like(f, type, {});
    a.norm = {NormKind::kNonParametric, false};
    return a;
  }
  if (is_dense_family(type)) return read_dense_family(f, type);
  if (type == "deepseek_v2" || type == "deepseek_v3") return read_deepseek(f, type);
  f.fail(fmt::format("model_type: \"{}\" is listed as supported but has no reader", type));
  return {};
}

ModelArchitecture read_model(Fields& f, const std::string& type) {
  ModelArchitecture a = read_family(f, type);
  read_sliding_window(f, type, a);
  return a;
}

}  // namespace

void read_attention_heads(Fields& f, ModelArchitecture& a,
                          std::optional<std::int64_t> head_dim_default) {
  read_heads(f, {false, head_dim_default}, a);
}

namespace {

// A wrapper's text_config with its config class's defaults where a key is absent or null
// (transformers fills them the same way).
void fill_defaults(Json& text,
                   std::initializer_list<std::pair<const char*, std::int64_t>> defaults) {
  for (const auto& [key, value] : defaults) {
    if (!text.contains(key) || text[key].is_null()) text[key] = value;
  }
}

}  // namespace

ModelArchitecture parse_hf_config(std::string_view json_text, const std::string& origin) {
  const Json root = parse_json_text(json_text, origin);
  if (!root.is_object()) throw DataError(origin, {"not a JSON object"});

  std::vector<std::string> problems;
  Fields top(root, "", problems);
  std::string type = top.text("model_type", "");
  if (!problems.empty()) throw DataError(origin, problems);
  if (type.empty()) throw DataError(origin, {"model_type: missing (a string)"});
  const auto& types = supported_model_types();
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    throw DataError(origin, {fmt::format("model_type: \"{}\" is not supported (supported: {})",
                                         type, fmt::join(types, ", "))});
  }

  ModelArchitecture arch;
  std::string text_prefix;  // where the language model's keys are (Gemma 3: text_config.)
  if (type == "gemma3") {
    text_prefix = "text_config.";
    // Gemma3Config wraps the language model in text_config (plus a SigLIP vision tower that
    // is not counted here). Google's published text_configs omit keys that Gemma3TextConfig
    // defaults (vocab_size 262208, num_attention_heads 8, num_key_value_heads 4, head_dim 256),
    // so inside text_config those defaults apply, as they do in transformers.
    const Json* text = top.find("text_config");
    if (text == nullptr || !text->is_object()) {
      throw DataError(origin, {"text_config: missing (an object; model_type gemma3)"});
    }
    Json filled = *text;
    fill_defaults(filled, {{"vocab_size", 262208},
                           {"hidden_size", 2304},
                           {"intermediate_size", 9216},
                           {"num_hidden_layers", 26},
                           {"num_attention_heads", 8},
                           {"num_key_value_heads", 4}});
    Fields f(filled, "text_config", problems);
    arch = read_model(f, "gemma3_text");
    arch.model_type = "gemma3";
    arch.vision = read_vision_config(top, VisionKind::kSiglip, type, problems);
  } else if (type == "qwen2_vl" || type == "qwen2_5_vl") {
    // Qwen2VLConfig / Qwen2_5_VLConfig: the language model is Qwen2's, its keys at the top level
    // in the released configs (newer transformers also write them under text_config, which
    // then wins); the vision encoder from vision_config.
    const Json* text = top.find("text_config");
    if (text != nullptr && text->is_object()) {
      Fields f(*text, "text_config", problems);
      arch = read_model(f, "qwen2");
      text_prefix = "text_config.";
    } else {
      arch = read_model(top, "qwen2");
    }
    arch.model_type = type;
    arch.vision = read_vision_config(
        top, type == "qwen2_vl" ? VisionKind::kQwen2Vl : VisionKind::kQwen25Vl, type, problems);
  } else if (type == "qwen3_vl" || type == "qwen3_vl_moe" || type == "qwen3_5" ||
             type == "qwen3_5_moe") {
    // Qwen3VLConfig / Qwen3VLMoeConfig (configuration_qwen3_vl.py) and Qwen3_5Config /
    // Qwen3_5MoeConfig (configuration_qwen3_5.py): a Qwen3 (Qwen3-MoE, Qwen3.5) language model in
    // text_config, tie_word_embeddings at the top level where text_config leaves it out; the
    // Qwen3-VL vision encoder from vision_config, which Qwen3.5 runs without its deepstack
    // mergers (Qwen3_5VisionModel deletes them).
    text_prefix = "text_config.";
    const Json* text = top.find("text_config");
    if (text == nullptr || !text->is_object()) {
      throw DataError(origin,
                      {fmt::format("text_config: missing (an object; model_type {})", type)});
    }
    Json filled = *text;
    if (!filled.contains("tie_word_embeddings") && root.contains("tie_word_embeddings")) {
      filled["tie_word_embeddings"] = root["tie_word_embeddings"];
    }
    Fields f(filled, "text_config", problems);
    const bool qwen35 = type.starts_with("qwen3_5");
    if (qwen35) {
      arch = read_gated_delta_family(f, filled, type + "_text");
    } else {
      arch = read_model(f, type == "qwen3_vl" ? "qwen3" : "qwen3_moe");
    }
    arch.model_type = type;
    Json outer = root;
    if (qwen35 && outer.contains("vision_config") && outer["vision_config"].is_object()) {
      outer["vision_config"]["deepstack_visual_indexes"] = Json::array();
    }
    Fields vision_top(outer, "", problems);
    arch.vision = read_vision_config(vision_top, VisionKind::kQwen3Vl, type, problems);
  } else if (type == "qwen3_next" || type == "qwen3_5_text" || type == "qwen3_5_moe_text") {
    arch = read_gated_delta_family(top, root, type);
  } else if (type == "falcon_h1" || type == "bamba" || type == "granitemoehybrid" ||
             type == "nemotron_h") {
    arch = read_mamba_family(top, root, type);
  } else if (type == "lfm2" || type == "lfm2_moe") {
    arch = read_lfm2_family(top, root, type);
  } else if (type == "llama4") {
    text_prefix = "text_config.";
    arch = read_llama4(top, problems);
  } else if (type == "mistral3") {
    text_prefix = "text_config.";
    arch = read_mistral3(root, problems);
  } else if (type == "mllama") {
    // MllamaConfig (configuration_mllama.py): a Llama 3.1 language model in text_config, with
    // MllamaTextConfig's defaults where a key is absent, its cross_attention_layers, and the
    // vision encoder in vision_config.
    text_prefix = "text_config.";
    const Json* text = top.find("text_config");
    Json filled = text != nullptr && text->is_object() ? *text : Json::object();
    if (text != nullptr && !text->is_object()) problems.push_back("text_config: must be an object");
    fill_defaults(filled, {{"vocab_size", 128256},
                           {"hidden_size", 4096},
                           {"intermediate_size", 14336},
                           {"num_hidden_layers", 40},
                           {"num_attention_heads", 32},
                           {"num_key_value_heads", 8},
                           {"max_position_embeddings", 131072}});
    if (!filled.contains("cross_attention_layers")) {
      filled["cross_attention_layers"] = Json::array({3, 8, 13, 18, 23, 28, 33, 38});
    }
    Fields f(filled, "text_config", problems);
    arch = read_model(f, "llama");
    arch.model_type = type;
    arch.vision = read_vision_config(top, VisionKind::kMllama, type, problems);
    if (arch.vision) {
      arch.vision->cross_attention_layers = f.integer_list("cross_attention_layers");
      // MllamaTextModel.embed_tokens: vocab_size + 8 rows (Meta's learnable_embedding).
      arch.vision->extra_token_rows = 8;
    }
  } else {
    arch = read_model(top, type);
  }
  // Consistency problems, except for fields already reported as missing or mistyped.
  const auto read_problems = static_cast<std::ptrdiff_t>(problems.size());
  for (std::string p : architecture_problems(arch)) {
    if (!p.starts_with("vision_config.") && !p.starts_with("mm_")) p = text_prefix + p;
    const std::string field = p.substr(0, p.find(':') + 1);
    const bool known = std::any_of(problems.begin(), problems.begin() + read_problems,
                                   [&](const std::string& q) { return q.starts_with(field); });
    if (!known) problems.push_back(std::move(p));
  }
  if (!problems.empty()) throw DataError(origin, problems);
  return arch;
}

ModelArchitecture load_hf_config(const std::filesystem::path& file) {
  return parse_hf_config(read_regular_file(file, kMaxConfigBytes), shown(file));
}

}  // namespace tb::io
