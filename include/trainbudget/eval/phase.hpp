// The phases of a training step (Phase) and the optimizer step's temporary memory: the
// vocabulary evaluate() and the peak view share. docs/activations.md ("Peak over phases").
#pragma once

#include <cstdint>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/framework.hpp"
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

// The optimizer step's temporary memory, in the dtype of Adam's second moment (`moment_bytes`
// per value; 0 for optimizers without one). Per-tensor: torch.optim's _single_tensor_adam
// computes (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps), two copies of the largest
// trainable tensor at once (measured in tests/realstep: the optimizer phase); foreach:
// _multi_tensor_adam's exp_avg_sq_sqrt = torch._foreach_sqrt(...), a list as large as all
// trainable parameters, divided and shifted in place; fused: none.
[[nodiscard]] Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                                             double trainable_params, double moment_bytes) noexcept;

}  // namespace tb
