// What fits: the largest micro-batch and the longest sequence whose peak memory stays within a
// device's capacity, as a query over layouts that calls evaluate() a logarithmic number of
// times. The search assumes peak memory grows with both (every activation term does).
#pragma once

#include <cstdint>
#include <functional>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/step_analysis.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/layout.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// Peak memory of one layout (the caller closes over the profile).
using PeakOfLayout = std::function<Bytes(const Layout&)>;

// Sequence lengths are searched in multiples of this (tile-friendly lengths); below it, exactly.
inline constexpr std::int64_t kSeqLenStep = 128;
// Micro-batch search limit: 2^16 sequences.
inline constexpr std::int64_t kFitMicroBatchLimit = std::int64_t{1} << 16;
// Sequence search limit for a model that states no context length: 2^20 tokens.
inline constexpr std::int64_t kFitSeqLenLimit = std::int64_t{1} << 20;

// Largest micro-batch in [1, limit] at the layout's sequence length.
[[nodiscard]] FitResult largest_micro_batch(const Layout& base, Bytes capacity,
                                            const PeakOfLayout& peak, std::int64_t limit);
// Longest sequence in [1, limit] at the layout's micro-batch: a multiple of kSeqLenStep, or the
// exact longest below kSeqLenStep when kSeqLenStep tokens do not fit; `limit` itself when it
// fits.
[[nodiscard]] FitResult longest_sequence(const Layout& base, Bytes capacity,
                                         const PeakOfLayout& peak, std::int64_t limit);

// Both searches for one device of `capacity`, through evaluate(); the sequence search stops at
// the model's context length.
[[nodiscard]] MachineFit fit_on(const ModelProfile& profile, const Layout& layout, Bytes capacity);

// --fit as a planner query: for every scenario with an architecture, what fits each of its
// machines (step->fits, one per machine, in order).
void add_fits(Estimate& estimate);

}  // namespace tb
