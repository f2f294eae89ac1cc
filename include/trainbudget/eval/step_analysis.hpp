// The step view of an estimate with an architecture: the layout's resolved knobs, the
// activation rows, the FLOP terms and the phases, with their words, plus (on request) what fits
// each machine. Built from the same profile and term tables evaluate() reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/eval/activation_memory.hpp"
#include "trainbudget/eval/arch_flops.hpp"
#include "trainbudget/eval/note.hpp"
#include "trainbudget/eval/peak_memory.hpp"
#include "trainbudget/eval/phase.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

struct FitResult {
  std::int64_t value{0};  // largest fitting value; 0 when not even the smallest fits
  bool at_limit{false};   // the search limit itself fits: the true answer may be larger
  std::int64_t limit{0};
};

struct MachineFit {
  FitResult micro_batch;  // at the layout's sequence length
  FitResult seq_len;      // at the layout's micro-batch
};

struct StepAnalysis {
  TrainingSetup setup;  // resolved (the default sequence length capped by the model's)
  DType activation_dtype{DType::kBf16};
  ActivationEstimate activations;
  ArchFlops flops;
  PeakMemory peak;
  std::vector<MachineFit> fits;  // one per machine when asked for (plan/fit_search)
  bool explain{false};           // words for every term were asked for
  std::vector<Note> notes;       // e.g. a sequence longer than the model was built for
};

}  // namespace tb
