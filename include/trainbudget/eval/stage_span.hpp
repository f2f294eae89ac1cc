// One pipeline stage of a layout: its decoder layers and its shares of the parameters
// (stage_span() and stage_at() in eval/evaluate.hpp compute it).
#pragma once

#include <cstdint>

namespace tb {

// The decoder layers one pipeline stage runs and what else it holds.
struct StageSpan {
  int index{0};
  std::int64_t begin{0}, end{0};  // decoder layers [begin, end)
  bool embedding{true};
  bool head{true};
  // The stage's shares, computed once by stage_span(): of the base parameters (dense part and
  // routed experts) and of the adapters (spread evenly over the layers).
  double dense_share{1.0};
  double expert_share{0.0};
  double adapter_share{1.0};
};

}  // namespace tb
