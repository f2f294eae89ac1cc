// Summaries of repeated timings: median and spread (llama-bench and google/benchmark report the
// same: every sample kept, a robust centre, and how far the samples scatter).
#pragma once

#include <span>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

// Median (mean of the two middle values for an even count), mean, min, max and the sample
// standard deviation (divisor n - 1). Throws InvalidArgument for an empty span.
[[nodiscard]] SampleStats summarize(std::span<const double> samples);

}  // namespace tb::measure
