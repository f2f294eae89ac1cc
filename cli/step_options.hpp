// The per-step flags of `trainbudget estimate` (micro-batch, sequence, attention, recompute,
// activation dtype, dropout, accumulation, --fit, --explain); they need --model.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "trainbudget/spec/training_setup.hpp"

namespace tb::cli {

struct StepOptions {
  std::string micro_batch;  // empty: not given (the default applies)
  std::string seq_len;
  std::string attention;
  std::string recompute;
  std::string activation_dtype;
  std::string dropout;
  std::string grad_accum;
  bool causal_flops{false};
  bool fit{false};
  bool explain{false};
};

void add_step_options(CLI::App& cmd, StepOptions& options);

// Parses and validates at the edge; throws InvalidArgument naming the flag.
[[nodiscard]] TrainingSetup parse_step_options(const StepOptions& options);

}  // namespace tb::cli
