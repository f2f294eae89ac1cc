// config.json readers of Llama 4: the language model ("llama4_text", Llama4TextConfig) and the
// wrapper around it and its vision encoder ("llama4", Llama4Config).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

ModelArchitecture read_llama4_text(FieldReader<JsonSource>& f);
// Llama4Config: text_config read as above, vision_config as Llama4VisionConfig.
ModelArchitecture read_llama4(FieldReader<JsonSource>& top, std::vector<std::string>& problems);

}  // namespace tb::io
