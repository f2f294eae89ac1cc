// config.json reader of StableLM 2 ("stablelm"): Llama's layers with LayerNorms and q/k/v biases.
#pragma once

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

ModelArchitecture read_stablelm(FieldReader<JsonSource>& f);

}  // namespace tb::io
