// Phase names and the optimizer step's temporary.
#include "trainbudget/eval/phase.hpp"

namespace tb {

std::string_view phase_key(Phase phase) {
  switch (phase) {
    case Phase::kForwardEnd:
      return "forward_end";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizerStep:
      return "optimizer_step";
  }
  return "forward_end";
}

Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                               double trainable_params) noexcept {
  constexpr double kFp32 = 4.0;
  switch (kernel) {
    case OptimizerKernel::kFused:
      return Bytes{0.0};
    case OptimizerKernel::kPerTensor:
      return Bytes{kFp32 * largest_tensor};
    case OptimizerKernel::kForeach:
      return Bytes{kFp32 * trainable_params};
  }
  return Bytes{0.0};
}

}  // namespace tb
