// config.json readers of the GLM-4 families: the dense GLM-4-0414 ("glm4"), the GLM-4.5 to 4.7
// mixtures ("glm4_moe") and GLM-4.7-Flash's latent-attention mixture ("glm4_moe_lite").
#pragma once

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

ModelArchitecture read_glm4(FieldReader<JsonSource>& f);
ModelArchitecture read_glm4_moe(FieldReader<JsonSource>& f);
ModelArchitecture read_glm4_moe_lite(FieldReader<JsonSource>& f);

}  // namespace tb::io
