// torchtune's generic Llama 2 builders, whose dimensions a recipe config gives (docs/configs.md,
// "torchtune YAML").
#include <cstdint>
#include <optional>

#include "config_formats.hpp"

namespace tb::api::config_detail {

// torchtune/models/llama2/_component_builders.py at bd2a0fc: llama2 (and its lora_ and qlora_
// forms, and llama2_classifier) build a Llama decoder of embed_dim, num_layers, num_heads and
// num_kv_heads (default num_heads), head_dim embed_dim / num_heads, an untied output projection
// (nn.Linear(embed_dim, vocab_size)) and an MLP of intermediate_dim, by default
// scale_hidden_dim_for_mlp(embed_dim) (_model_utils.py: 4 x int(2 x dim / 3), rounded up to a
// multiple of 256). As a config.json of model_type llama, which the model reader takes as text.
std::optional<std::string> torchtune_llama2_config(const json& args) {
  if (!args.is_object()) return std::nullopt;
  constexpr std::int64_t kMost = std::int64_t{1} << 24;
  const auto whole = [&](const char* key) -> std::optional<std::int64_t> {
    const auto it = args.find(key);
    if (it == args.end() || !it->is_number_integer()) return std::nullopt;
    const auto v = it->get<std::int64_t>();
    if (v <= 0 || v > kMost) return std::nullopt;
    return v;
  };
  const auto number = [&](const char* key, double fallback) {
    const auto it = args.find(key);
    return it != args.end() && it->is_number() ? it->get<double>() : fallback;
  };
  const auto vocab = whole("vocab_size");
  const auto layers = whole("num_layers");
  const auto heads = whole("num_heads");
  const auto dim = whole("embed_dim");
  const auto positions = whole("max_seq_len");
  if (!vocab || !layers || !heads || !dim || !positions) return std::nullopt;
  std::int64_t intermediate = 0;
  if (const auto given = whole("intermediate_dim")) {
    intermediate = *given;
  } else {
    const std::int64_t scaled = 4 * (2 * *dim / 3);
    intermediate = 256 * ((scaled + 255) / 256);
  }
  const json config{{"model_type", "llama"},
                    {"architectures", json::array({"LlamaForCausalLM"})},
                    {"hidden_size", *dim},
                    {"intermediate_size", intermediate},
                    {"num_attention_heads", *heads},
                    {"num_key_value_heads", whole("num_kv_heads").value_or(*heads)},
                    {"num_hidden_layers", *layers},
                    {"vocab_size", *vocab},
                    {"max_position_embeddings", *positions},
                    {"rms_norm_eps", number("norm_eps", 1e-5)},
                    {"rope_theta", number("rope_base", 10000.0)},
                    {"tie_word_embeddings", false},
                    {"hidden_act", "silu"}};
  return config.dump();
}

bool torchtune_llama2_dimension(std::string_view key) {
  for (const std::string_view k :
       {"vocab_size", "num_layers", "num_heads", "num_kv_heads", "embed_dim", "max_seq_len",
        "intermediate_dim", "norm_eps", "rope_base"}) {
    if (key == k) return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
