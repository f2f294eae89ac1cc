// The phases of a training step (Phase) and the optimizer step's temporary memory: the
// vocabulary evaluate() and the peak view share. docs/activations.md ("Peak over phases").
#pragma once

#include <cstdint>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

enum class Phase : std::uint8_t { kForwardEnd, kBackward, kOptimizerStep };

// JSON values of memory.peak_phase.
template <>
struct EnumNames<Phase> {
  static constexpr std::array<std::pair<Phase, std::string_view>, 3> kNames{
      {{Phase::kForwardEnd, "forward_end"},
       {Phase::kBackward, "backward"},
       {Phase::kOptimizerStep, "optimizer_step"}}};
};

// How the optimizer step is run, which sets its transient memory.
enum class OptimizerKernel {
  kFused,      // one kernel updates each parameter in place (torch fused=True, apex FusedAdam)
  kPerTensor,  // a loop over tensors (torch foreach=False): one fp32 temporary of the largest
  kForeach,    // torch foreach=True: each temporary is a list over all trainable tensors
};

// The optimizer step's temporary memory. Per-tensor: one fp32 copy of the largest trainable
// tensor (the sqrt(v)+eps temporary of torch.optim's single-tensor Adam); foreach: one fp32
// list as large as all trainable parameters (torch _multi_tensor_adam's exp_avg_sq_sqrt);
// fused: none.
[[nodiscard]] Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                                             double trainable_params) noexcept;

}  // namespace tb
