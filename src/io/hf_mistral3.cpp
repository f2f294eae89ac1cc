// config.json reader of Mistral 3 (hf_mistral3.hpp), mirroring transformers'
// configuration_mistral3.py and modeling_mistral3.py.
#include "hf_mistral3.hpp"

#include <fmt/format.h>

#include "hf_moe_families.hpp"
#include "vision_config.hpp"

namespace tb::io {

// Ministral3Config (configuration_ministral3.py): Mistral's parameters (q/k/v/o and a gated MLP
// without biases, two RMSNorms a layer), its query scaled by position without weights; defaults
// head_dim 128, 262144 positions, untied, no sliding window. MistralConfig: head_dim hidden /
// heads, untied.
// Mistral4Config (configuration_mistral4.py, modeling_mistral4.py): DeepSeek-V3's latent
// attention (q_lora_rank 1024, kv_lora_rank 256, rope 64 and nope 64 of each query head, v 128)
// and a mixture in every layer (first_k_dense_replace 0) of 128 routed experts of 2048, top 4,
// beside one shared expert, routed by softmax with no score bias; hidden 4096, 36 layers, 32
// heads, vocabulary 131072, untied, no multi-token prediction. With these defaults the language
// model counts 118,972,826,624 (Mistral Small 4's "119B").
ModelArchitecture read_text_model(FieldReader<JsonSource>& f, const std::string& kind) {
  if (kind == "ministral3") return read_llama_like(f, "ministral3", {false, 128, 262144});
  if (kind == "mistral4") {
    ModelArchitecture a =
        read_latent_moe(f, {"mistral4", 1024, 256, 64, 64, 128, 128, 4, 2048, 1, 0, "greedy"});
    if (a.max_positions == 0) a.max_positions = 1048576;
    return a;
  }
  return read_llama_like(f, "mistral", {});
}

// Mistral3Config: text_config a MistralConfig ("mistral"), and where it is absent the class's
// own default language model (Mistral Small 3.1's: hidden 5120, intermediate 32768, 40 layers,
// 32 heads of 128, 8 KV heads, vocabulary 131072, 131072 positions); vision_config a
// PixtralVisionConfig (vision_config.cpp); text_config may be a Ministral3Config ("ministral3",
// Ministral 3) instead. The LM head is tied as text_config says, else as the top level does,
// else untied (both text classes' default).
ModelArchitecture read_mistral3(const nlohmann::json& root, std::vector<std::string>& problems) {
  using Json = nlohmann::json;
  Json text = Json::object();
  if (const auto it = root.find("text_config"); it != root.end()) {
    if (it->is_object()) {
      text = *it;
    } else if (!it->is_null()) {
      problems.emplace_back("text_config: must be an object");
    }
  }
  if (text.empty()) {
    text = {{"model_type", "mistral"},
            {"hidden_size", 5120},
            {"intermediate_size", 32768},
            {"num_hidden_layers", 40},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"head_dim", 128},
            {"vocab_size", 131072},
            {"max_position_embeddings", 131072}};
  }
  const std::string kind = text.contains("model_type") && text["model_type"].is_string()
                               ? text["model_type"]
                               : "mistral";
  if (kind != "mistral" && kind != "ministral3" && kind != "mistral4") {
    problems.push_back(
        fmt::format("text_config.model_type: \"{}\" is not read inside mistral3 "
                    "(accepted: mistral, ministral3, mistral4)",
                    kind));
    return {};
  }
  // The LM head's tie as the language model's config says, else as the wrapper's.
  if (!text.contains("tie_word_embeddings") && root.contains("tie_word_embeddings")) {
    text["tie_word_embeddings"] = root["tie_word_embeddings"];
  }
  FieldReader<JsonSource> f(text, "text_config", problems);
  ModelArchitecture a = read_text_model(f, kind);
  a.model_type = "mistral3";
  // Without vision_config, Mistral3Config builds its own tower (Mistral Small 3.1's: patch 14,
  // image 1540, PixtralVisionConfig's other defaults).
  Json outer = root;
  if (!outer.contains("vision_config") || outer["vision_config"].is_null()) {
    outer["vision_config"] = {{"patch_size", 14}, {"image_size", 1540}};
  }
  FieldReader<JsonSource> top(outer, "", problems);
  a.vision = read_vision_config(top, VisionKind::kPixtral, "mistral3", problems);
  return a;
}

}  // namespace tb::io
