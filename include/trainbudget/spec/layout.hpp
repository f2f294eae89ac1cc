// One point of the planner and the estimate's per-step input: what varies from one evaluation
// to the next for the same model and recipe. Parallelism dimensions (tensor, pipeline,
// context, expert) and offload are added as fields here, one row of the api field table each.
#pragma once

#include <cstdint>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

struct Layout {
  int devices{1};  // data-parallel ranks the states are replicated or sharded over
  // ZeRO stage over the `devices` ranks (Rajbhandari et al. 2020): 0 a full replica each,
  // 1 optimizer states partitioned, 2 + gradients, 3 + weights (FSDP FULL_SHARD).
  int zero_stage{0};
  std::int64_t micro_batch{1};  // b: sequences per forward/backward
  std::int64_t grad_accum{1};   // micro-batches per optimizer step
  std::int64_t seq_len{kDefaultSeqLen};
  AttentionImpl attention{AttentionImpl::kFlash};
  Recompute recompute{Recompute::kNone};
  DType activation_dtype{DType::kBf16};  // resolved: never "the recipe's"
  double dropout{0.0};
  bool causal_flops{false};  // count a causal kernel's (s + 1)/2 keys per query
};

}  // namespace tb
