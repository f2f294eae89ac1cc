// Doubling then bisection over integers.
#include "trainbudget/plan/fit_search.hpp"

#include <algorithm>

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

FitResult largest_micro_batch(const TrainingSetup& base, Bytes capacity, const PeakOfSetup& peak,
                              std::int64_t limit) {
  FitResult out;
  out.limit = limit;
  out.value = largest_true(limit, [&](std::int64_t b) {
    TrainingSetup s = base;
    s.micro_batch = b;
    return peak(s) <= capacity;
  });
  out.at_limit = out.value == limit;
  return out;
}

FitResult longest_sequence(const TrainingSetup& base, Bytes capacity, const PeakOfSetup& peak,
                           std::int64_t limit) {
  FitResult out;
  out.limit = limit;
  const auto fits_len = [&](std::int64_t len) {
    TrainingSetup s = base;
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

}  // namespace tb
