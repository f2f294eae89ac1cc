// The optimizer step's temporary.
#include "trainbudget/eval/phase.hpp"

namespace tb {

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
