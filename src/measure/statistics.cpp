// Median and spread of timing samples.
#include "trainbudget/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "trainbudget/spec/error.hpp"

namespace tb::measure {

SampleStats summarize(std::span<const double> samples) {
  if (samples.empty()) throw InvalidArgument("summarize: no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  SampleStats s;
  s.count = n;
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double squares = 0.0;
    for (const double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  return s;
}

}  // namespace tb::measure
