// The optimizer step's temporary.
#include "trainbudget/eval/phase.hpp"

namespace tb {

Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                               double trainable_params, double moment_bytes) noexcept {
  switch (kernel) {
    case OptimizerKernel::kFused:
    case OptimizerKernel::kInBackward:  // a fused kernel per tensor, inside the backward
      return Bytes{0.0};
    case OptimizerKernel::kPerTensor:
      return Bytes{2.0 * moment_bytes * largest_tensor};
    case OptimizerKernel::kForeach:
      return Bytes{moment_bytes * trainable_params};
  }
  return Bytes{0.0};
}

}  // namespace tb
