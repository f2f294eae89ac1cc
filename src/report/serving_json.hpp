// The infer result's JSON object, for documents that embed it (compare's serve task). Private
// to the report library.
#pragma once

#include <nlohmann/json.hpp>

#include "trainbudget/eval/inference.hpp"

namespace tb::report {

[[nodiscard]] nlohmann::ordered_json serving_object(const ServingEstimate& estimate);
[[nodiscard]] nlohmann::ordered_json serving_machine_object(const ServingMachine& machine);

}  // namespace tb::report
