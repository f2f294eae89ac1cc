// The vision_config of a vision-language config.json (Gemma 3, Qwen2-VL, Qwen2.5-VL). Private to
// the io library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// The encoder `kind` from top.vision_config (and, for Gemma 3, top.mm_tokens_per_image); every
// problem appended to `problems`, named by its dotted key. nullopt when the object is missing
// where it is required (Gemma 3) or is not an object.
[[nodiscard]] std::optional<VisionTowerSpec> read_vision_config(FieldReader<JsonSource>& top,
                                                                VisionKind kind,
                                                                const std::string& model_type,
                                                                std::vector<std::string>& problems);

}  // namespace tb::io
