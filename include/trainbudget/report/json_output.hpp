// JSON documents (docs/json.md): base units, the unit in the key name, a schema version.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::report {

// Serialised JSON text (2-space indent) of each document.
[[nodiscard]] std::string estimate_json(const Estimate& estimate);
[[nodiscard]] std::string devices_json(const std::vector<Device>& devices);
[[nodiscard]] std::string device_json(const Device& device);
[[nodiscard]] std::string recipes_json(double params);

}  // namespace tb::report
