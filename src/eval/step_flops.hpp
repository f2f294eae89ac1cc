// A step's FLOPs per token (model and hardware), for evaluate(). Internal to src/eval.
#pragma once

#include "trainbudget/eval/eval_memo.hpp"
#include "trainbudget/eval/evaluate.hpp"

namespace tb::detail {

// The FLOPs per token of the layout's step into `out` (flops_per_token, hardware_per_token,
// reference_6n): the parameter formulas, or the architecture's count with recomputation.
void step_flops(const ModelProfile& p, const Layout& l, StepCost& out, EvalMemo* memo);

}  // namespace tb::detail
