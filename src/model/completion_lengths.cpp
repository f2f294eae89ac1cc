// The maximum-entropy completion lengths given their mean and cap
// (include/trainbudget/model/completion_lengths.hpp).
#include "trainbudget/model/completion_lengths.hpp"

#include <algorithm>
#include <cmath>

namespace tb {
namespace {

// The mean of exp(-u x) on [0, 1], as a fraction of the interval: 1/u - 1/(e^u - 1), 1/2 at
// u = 0 (its series 1/2 - u/12 near it). Falls from 1 (u -> -inf) to 0 (u -> +inf).
double mean_fraction(double u) {
  if (std::abs(u) < 1e-6) return 0.5 - u / 12.0;
  return 1.0 / u - 1.0 / std::expm1(u);
}

// Grid points over [0, cap] the peak is searched on: the held tokens are smooth in t, so the
// grid finds the peak to well under a token at the caps used.
constexpr int kGrid = 1024;

}  // namespace

CompletionLengths::CompletionLengths(double mean, double cap)
    : mean_(std::max(mean, 0.0)), cap_(std::max(cap, 0.0)) {
  if (cap_ <= 0.0 || mean_ >= cap_) {
    at_cap_ = true;
    mean_ = cap_;
    return;
  }
  const double target = std::max(mean_, 1e-9 * cap_) / cap_;
  // mean_fraction falls with u: a rising density (u < 0) above half the cap, a falling one
  // below; plain bisection on the negative side, geometric on the positive (where the root can
  // sit decades up: u is about cap / mean for short completions).
  double lo = 0.0, hi = 0.0;
  if (target > 0.5) {
    lo = -1e3;
  } else if (target < 0.5) {
    lo = 1e-12;
    hi = 1e10;
  }
  for (int i = 0; i < 200 && lo != hi; ++i) {
    const double mid = lo > 0.0 ? std::sqrt(lo * hi) : (lo + hi) / 2.0;
    if (mean_fraction(mid) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  rate_ = (lo + hi) / 2.0 / cap_;
}

double CompletionLengths::survival(double t) const noexcept {
  if (at_cap_) return t < cap_ ? 1.0 : 0.0;
  const double x = std::clamp(t / cap_, 0.0, 1.0);
  const double u = rate_ * cap_;
  if (std::abs(u) < 1e-9) return 1.0 - x;
  // (e^{-ux} - e^{-u}) / (1 - e^{-u}); the expm1 form for a rising density, where e^{-u}
  // would overflow.
  if (u > 0.0) return (std::exp(-u * x) - std::exp(-u)) / -std::expm1(-u);
  return std::expm1(u * (1.0 - x)) / std::expm1(u);
}

double CompletionLengths::peak_held(std::int64_t batch, double prompt) const noexcept {
  const double b = static_cast<double>(std::max<std::int64_t>(batch, 1));
  if (at_cap_) return b * (prompt + cap_);
  double best = 0.0;
  for (int i = 0; i <= kGrid; ++i) {
    const double t = cap_ * i / kGrid;
    best = std::max(best, survival(t) * (prompt + t));
  }
  return b * best;
}

}  // namespace tb
