// The config.json model_types the readers know (hf_config.hpp): the list an unknown one is
// refused with.
#include <string>
#include <vector>

#include "trainbudget/io/hf_config.hpp"

namespace tb::io {

const std::vector<std::string>& supported_model_types() {
  // clang-format off
  static const std::vector<std::string> kTypes{
      "apertus", "arcee", "bamba", "cohere", "cohere2", "dbrx", "deepseek_v2", "deepseek_v3", "exaone4", "falcon", "falcon_h1",
      "gemma", "gemma2", "gemma3", "gemma3_text", "glm4", "glm4_moe", "glm4_moe_lite", "gpt2",
      "gpt_neox", "gpt_oss", "gptj", "granite", "granitemoehybrid", "helium", "lfm2", "lfm2_moe", "hunyuan_v1_dense", "llama", "llama4",
      "llama4_text", "ministral3", "mistral", "mistral3", "mistral4", "mixtral", "mllama", "mpt",
      "nemotron", "nemotron_h", "olmo", "olmo2", "olmo3", "opt", "phi", "phi3", "seed_oss", "smollm3", "stablelm", "starcoder2",
      "qwen", "qwen2", "qwen2_5_vl", "qwen2_moe",
      "qwen2_vl", "qwen3", "qwen3_moe", "qwen3_vl", "qwen3_vl_moe", "qwen3_next", "qwen3_5",
      "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"};
  // clang-format on
  return kTypes;
}

}  // namespace tb::io
