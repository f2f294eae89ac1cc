// config.json reader of Mistral 3 ("mistral3", Mistral3Config): a Mistral language model in
// text_config and a Pixtral vision encoder in vision_config (Mistral Small 3.1 and later).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// A Mistral-family language model: "mistral" (MistralConfig) or "ministral3" (Ministral3Config).
ModelArchitecture read_text_model(FieldReader<JsonSource>& f, const std::string& kind);
// Mistral3Config: text_config as above, vision_config a PixtralVisionConfig.
ModelArchitecture read_mistral3(const nlohmann::json& root, std::vector<std::string>& problems);

}  // namespace tb::io
