// Hugging Face config.json -> ModelArchitecture, for the model_types trainbudget counts
// exactly. Keys a config leaves out take the defaults of transformers' config class for that
// model_type, except the defining dimensions (hidden size, layers, heads, vocabulary, MLP
// width), which are required: without them a file describes no particular model, and the
// class defaults would silently count a different one. docs/models.md lists the rules.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// The model_type values parse_hf_config accepts, sorted.
[[nodiscard]] const std::vector<std::string>& supported_model_types();

// Parses config.json text. Throws DataError(origin, problems) for malformed JSON, an unknown
// model_type (listing the supported ones), missing or mistyped fields, contradictions and
// absurd values, naming each field.
[[nodiscard]] ModelArchitecture parse_hf_config(std::string_view json_text,
                                                const std::string& origin);

// Reads and parses a config.json file; DataError names the file.
[[nodiscard]] ModelArchitecture load_hf_config(const std::filesystem::path& file);

}  // namespace tb::io
