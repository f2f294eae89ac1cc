// config.json readers of the Mamba-2 hybrids: Falcon-H1 (a Mamba-2 mixer beside attention in
// every layer), Bamba and Granite 4.0's hybrids (Mamba-2 layers with attention in a few).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// "falcon_h1", "bamba", "granitemoehybrid" or "nemotron_h" read through `f`, each as its
// transformers config class reads it; the Mamba-2 mixer's keys are required where the class's
// default is not used.
ModelArchitecture read_mamba_family(FieldReader<JsonSource>& f, const nlohmann::json& object,
                                    const std::string& type);

}  // namespace tb::io
