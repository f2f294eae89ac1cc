// Doubling then bisection over integers, over layouts evaluated by evaluate().
#include "trainbudget/plan/fit_search.hpp"

#include <algorithm>

#include "trainbudget/eval/evaluate.hpp"

namespace tb {
namespace {

// Largest n in [1, limit] with fits(n), fits monotone (true then false); 0 when fits(1) is
// false. Doubles to bracket the boundary, then bisects: O(log limit) calls.
std::int64_t largest_true(std::int64_t limit, const std::function<bool(std::int64_t)>& fits) {
  if (limit < 1 || !fits(1)) return 0;
  std::int64_t good = 1;
  std::int64_t bad = limit + 1;
  while (good < limit) {
    const std::int64_t next = good * 2 > limit ? limit : good * 2;
    if (!fits(next)) {
      bad = next;
      break;
    }
    good = next;
  }
  while (bad - good > 1) {
    const std::int64_t mid = good + (bad - good) / 2;
    if (fits(mid)) {
      good = mid;
    } else {
      bad = mid;
    }
  }
  return good;
}

}  // namespace

FitResult largest_micro_batch(const Layout& base, Bytes capacity, const PeakOfLayout& peak,
                              std::int64_t limit) {
  FitResult out;
  out.limit = limit;
  out.value = largest_true(limit, [&](std::int64_t b) {
    Layout s = base;
    s.micro_batch = b;
    return peak(s) <= capacity;
  });
  out.at_limit = out.value == limit;
  return out;
}

FitResult longest_sequence(const Layout& base, Bytes capacity, const PeakOfLayout& peak,
                           std::int64_t limit) {
  FitResult out;
  out.limit = limit;
  const auto fits_len = [&](std::int64_t len) {
    Layout s = base;
    s.seq_len = len;
    return peak(s) <= capacity;
  };
  if (fits_len(limit)) {
    out.value = limit;
    out.at_limit = true;
    return out;
  }
  const std::int64_t steps = limit / kSeqLenStep;
  const std::int64_t whole =
      largest_true(steps, [&](std::int64_t n) { return fits_len(n * kSeqLenStep); });
  if (whole > 0) {
    out.value = whole * kSeqLenStep;
  } else {
    out.value = largest_true(std::min(limit, kSeqLenStep - 1), fits_len);
  }
  return out;
}

MachineFit fit_on(const ModelProfile& profile, const Layout& layout, Bytes capacity) {
  ClusterProfile cluster;
  cluster.capacity = capacity;
  const PeakOfLayout peak_of = [&](const Layout& l) {
    return evaluate(profile, l, cluster).memory;
  };
  const std::int64_t seq_limit =
      profile.max_positions > 0 ? profile.max_positions : kFitSeqLenLimit;
  return {largest_micro_batch(layout, capacity, peak_of, kFitMicroBatchLimit),
          longest_sequence(layout, capacity, peak_of, seq_limit)};
}

void add_fits(Estimate& estimate) {
  const auto fill = [](Scenario& s) {
    if (!s.step) return;
    s.step->fits.clear();
    for (const MachineEstimate& m : s.machines) {
      s.step->fits.push_back(fit_on(s.profile, s.layout, m.allocatable));
    }
  };
  fill(estimate.primary);
  if (estimate.lora_alternative) fill(*estimate.lora_alternative);
}

}  // namespace tb
