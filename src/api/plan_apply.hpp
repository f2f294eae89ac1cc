// A plan candidate back in the estimate's terms: the job it runs and the request fields that
// reproduce it. Private to the api library (plan_session.cpp).
#pragma once

#include <map>
#include <string>

#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb::api {

// The workload's job with the candidate layout's choices in it.
[[nodiscard]] TrainingJob job_of(const TrainingJob& workload, const Layout& l);

// The estimate request that reproduces a candidate, by key.
[[nodiscard]] std::map<std::string, std::string> apply_fields(const EstimateRequest& r,
                                                              const TrainingJob& j,
                                                              const Layout& l);

}  // namespace tb::api
