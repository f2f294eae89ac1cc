// The words of the step's moments.
#include "trainbudget/eval/peak_memory.hpp"

#include <fmt/format.h>

#include <cassert>

namespace tb {
namespace {

std::string backward_moment(std::int64_t at) {
  if (at == kBackwardAtHead) return "backward of the loss and LM head";
  if (at == kBackwardAtEmbedding) return "backward of the embedding";
  return fmt::format("backward of decoder layer {}", at);
}

}  // namespace

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
    std::string at = phase == Phase::kForwardEnd ? "end of forward"
                     : phase == Phase::kBackward ? backward_moment(cost.backward_at)
                                                 : "optimizer step";
    out.phases.push_back(
        {phase, std::move(at), c.resident, c.gradients, c.activations, c.transient, c.total});
  }
  out.peak_phase = cost.peak_phase;
  out.peak = cost.memory;
  return out;
}

}  // namespace tb
