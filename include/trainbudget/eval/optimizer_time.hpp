// The optimizer step on the device (docs/time.md, "The optimizer step"): every state row of its
// shard read and written as the optimizer kernel does it, at the memory bandwidth, plus a
// per-tensor loop's launches. Zero with no bandwidth figure or with the optimizer offloaded.
#pragma once

#include "trainbudget/eval/evaluate.hpp"

namespace tb {

// The in-place adds of gradient accumulation (grad_accumulation_kernel add) per step.
[[nodiscard]] Seconds grad_accumulation_time(const ModelProfile& profile, const Layout& layout,
                                             const StageSpan& stage, const ClusterProfile& c);
[[nodiscard]] Seconds optimizer_time(const ModelProfile& profile, const Layout& layout,
                                     const StageSpan& stage, const ClusterProfile& cluster);

}  // namespace tb
