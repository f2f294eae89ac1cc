// The step's phases and the moment of each (peak_memory.hpp).
#include "trainbudget/eval/peak_memory.hpp"

#include <cassert>

namespace tb {
namespace {}  // namespace

const PhaseMemory& PeakMemory::phase(Phase p) const {
  for (const PhaseMemory& m : phases) {
    if (m.phase == p) return m;
  }
  assert(false && "every phase is present");
  return phases.front();
}

PeakMemory describe_peak(const StepCost& cost) {
  PeakMemory out;
  for (const Phase phase : {Phase::kForwardEnd, Phase::kBackward, Phase::kOptimizerStep}) {
    const PhaseCost& c = cost.phases[static_cast<std::size_t>(phase)];
    const std::int64_t layer = phase == Phase::kBackward ? cost.backward_at : 0;
    out.phases.push_back(
        {phase, layer, c.resident, c.gradients, c.activations, c.transient, c.total});
  }
  out.peak_phase = cost.peak_phase;
  out.peak = cost.memory;
  return out;
}

}  // namespace tb
