// config.json readers of the Gated DeltaNet hybrids (Qwen3-Next, Qwen3.5's language models).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// "qwen3_next", "qwen3_5_text" or "qwen3_5_moe_text" from `object` (the config, or a wrapper's
// text_config) read through `f`, with the config class's defaults; layer_types must put one
// full-attention layer every N layers.
ModelArchitecture read_gated_delta_family(FieldReader<JsonSource>& f, const nlohmann::json& object,
                                          const std::string& type);

}  // namespace tb::io
