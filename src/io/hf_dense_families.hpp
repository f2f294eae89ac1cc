// config.json readers of dense families whose layers are Llama's with a switch or two: Seed-OSS,
// Cohere (Command R, R7B), Nemotron (Minitron), MPT, Arcee (AFM), SmolLM3, Granite, Helium,
// EXAONE 4.0 and Hunyuan (dense). Each mirrors its transformers configuration and modeling file.
#pragma once

#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// Whether read_dense_family reads `type`.
[[nodiscard]] bool is_dense_family(const std::string& type);
ModelArchitecture read_dense_family(FieldReader<JsonSource>& f, const std::string& type);

}  // namespace tb::io
