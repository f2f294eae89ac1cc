// The peak view: the phases evaluate() computed and the moment of each (the backward's layer;
// report/estimate_words.hpp words it). docs/activations.md ("Peak over phases") explains the model.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/phase.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

struct PhaseMemory {
  Phase phase{Phase::kForwardEnd};
  // kBackward: the decoder layer its worst moment is in, or kBackwardAtHead/kBackwardAtEmbedding.
  std::int64_t layer{0};
  Bytes resident;
  Bytes gradients;    // gradients held at that moment
  Bytes activations;  // saved activations still held
  Bytes transient;    // logits gradient, recompute, backward workspace or optimizer temporary
  Bytes total;
};

struct PeakMemory {
  std::vector<PhaseMemory> phases;  // forward_end, backward (its worst moment), optimizer_step
  Phase peak_phase{Phase::kForwardEnd};
  Bytes peak;
  [[nodiscard]] const PhaseMemory& phase(Phase p) const;
};

// The phases of an evaluated step, in order, with their words.
[[nodiscard]] PeakMemory describe_peak(const StepCost& cost);

}  // namespace tb
