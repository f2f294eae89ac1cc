// The planner's order of candidates and its kept lists (private to src/plan).
#pragma once

#include <cstddef>
#include <vector>

#include "trainbudget/plan/planner.hpp"

namespace tb::plan {

// Candidates in order: by score, then (for ties, so that every thread count and run gives the
// same list) fewer devices, the earlier workload and the smaller layout, knob by knob.
[[nodiscard]] bool before(const Candidate& a, const Candidate& b);

// The same layout: every knob the planner varies.
[[nodiscard]] bool same_knobs(const Layout& a, const Layout& b);

// Keeps the k first in that order (k is small: a sorted vector beats a heap here).
void keep(std::vector<Candidate>& list, const Candidate& c, std::size_t k);

}  // namespace tb::plan
