// The step a plan searches, when the request counts it as an estimate does (docs/scale.md,
// "Planning"): a training config's accumulation read as the global batch it makes. Private to
// the api library (plan_session.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {

// grad_accum given (a flag, a request, a training config): global_batch = micro_batch x
// grad_accum x devices, with a note; the plan derives each layout's own accumulation. Refused
// beside global_batch. For online RL returns how many optimizer steps a generation batch spans
// (steps_per_generation / grad_accum), which each layout keeps; 0 when steps_per_generation is
// not given. Throws InvalidRequest for a steps_per_generation that is no whole multiple of the
// accumulation, or given without it.
[[nodiscard]] std::int64_t accumulation_as_global_batch(EstimateRequest& r,
                                                        std::vector<Problem>& notes);

}  // namespace tb::api
