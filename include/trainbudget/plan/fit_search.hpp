// What fits: the largest micro-batch and the longest sequence whose peak memory stays within a
// device's capacity. The search assumes peak memory grows with both (every activation term
// does), and calls the caller's peak function a logarithmic number of times.
#pragma once

#include <cstdint>
#include <functional>

#include "trainbudget/spec/training_setup.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// Peak memory of one setup (the caller closes over model, recipe and method).
using PeakOfSetup = std::function<Bytes(const TrainingSetup&)>;

struct FitResult {
  std::int64_t value{0};  // largest fitting value; 0 when not even the smallest fits
  bool at_limit{false};   // the search limit itself fits: the true answer may be larger
  std::int64_t limit{0};
};

// Sequence lengths are searched in multiples of this (tile-friendly lengths); below it, exactly.
inline constexpr std::int64_t kSeqLenStep = 128;

// Largest micro-batch in [1, limit] at the setup's sequence length.
[[nodiscard]] FitResult largest_micro_batch(const TrainingSetup& base, Bytes capacity,
                                            const PeakOfSetup& peak, std::int64_t limit);

// Longest sequence in [1, limit] at the setup's micro-batch: a multiple of kSeqLenStep, or the
// exact longest below kSeqLenStep when kSeqLenStep tokens do not fit; `limit` itself when it
// fits.
[[nodiscard]] FitResult longest_sequence(const TrainingSetup& base, Bytes capacity,
                                         const PeakOfSetup& peak, std::int64_t limit);

}  // namespace tb
