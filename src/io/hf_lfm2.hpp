// config.json readers of Liquid AI's LFM2 (short convolutions with attention in a few layers) and
// LFM2-MoE.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "field_reader.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::io {

// "lfm2" or "lfm2_moe" read through `f` from `object`, as transformers' Lfm2Config and
// Lfm2MoeConfig read them.
ModelArchitecture read_lfm2_family(FieldReader<JsonSource>& f, const nlohmann::json& object,
                                   const std::string& type);

}  // namespace tb::io
