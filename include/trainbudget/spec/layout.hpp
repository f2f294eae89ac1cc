// One point of the planner and the estimate's per-step input: what varies from one evaluation
// to the next for the same model and recipe: the devices and how they split the work (data,
// tensor, pipeline, context, expert parallel; ZeRO; offload) and the step's knobs.
#pragma once

#include <cstdint>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

struct Layout {
  int devices{1};  // all of them: dp x tp x pp x cp
  Parallelism parallel;
  // ZeRO stage over the data-parallel ranks (Rajbhandari et al. 2020): 0 a full replica each,
  // 1 optimizer states partitioned, 2 + gradients, 3 + weights (FSDP FULL_SHARD).
  int zero_stage{0};
  std::int64_t micro_batch{1};  // b: sequences per forward/backward
  std::int64_t grad_accum{1};   // micro-batches per optimizer step
  std::int64_t seq_len{kDefaultSeqLen};
  AttentionImpl attention{AttentionImpl::kFlash};
  Recompute recompute{Recompute::kNone};
  // Under full recomputation, the first N decoder layers of each pipeline stage rerun their
  // forward and the others keep every activation (Megatron-LM's block method); kAllLayers: all.
  std::int64_t recompute_layers{kAllLayers};
  // Saved activations kept in host memory between a layer's forward and its backward.
  bool offload_activations{false};
  // The share of the tensor-parallel collectives hidden behind compute, when the layout sets it
  // (Megatron-LM's tp_comm_overlap, torchtitan's async TP: 1); negative: the cluster's overlap_tp.
  double overlap_tp{-1.0};
  DType activation_dtype{DType::kBf16};  // resolved: never "the recipe's"
  double dropout{0.0};
  bool causal_flops{false};  // count a causal kernel's (s + 1)/2 keys per query
  // The positions of each sequence the LM head computes logits for: 0, all seq_len of them;
  // otherwise the last N (TRL's GRPO asks the model for the completion's logits alone,
  // logits_to_keep: docs/rl.md, "Which positions get logits").
  std::int64_t logits_positions{0};

  // The share of the positions that get logits: 1, or logits_positions / seq_len.
  [[nodiscard]] constexpr double logits_share() const {
    if (logits_positions <= 0 || logits_positions >= seq_len || seq_len <= 0) return 1.0;
    return static_cast<double>(logits_positions) / static_cast<double>(seq_len);
  }

  // How many of a stage's `stage_layers` layers run the recompute mode: all of them, or the
  // first recompute_layers under full recomputation.
  [[nodiscard]] constexpr std::int64_t recomputed_layers(std::int64_t stage_layers) const {
    if (recompute != Recompute::kFull || recompute_layers < 0) return stage_layers;
    return recompute_layers < stage_layers ? recompute_layers : stage_layers;
  }
  // True when some of a stage's layers skip the full recomputation the others run.
  [[nodiscard]] constexpr bool partial_recompute(std::int64_t stage_layers) const {
    return recomputed_layers(stage_layers) < stage_layers;
  }

  // Data-parallel replicas: what is left of the devices after tp, pp and cp.
  [[nodiscard]] constexpr int dp() const {
    return devices / (parallel.tp * parallel.pp * parallel.cp);
  }
  // Ranks that hold the same dense weights and share their gradients and ZeRO shards: the
  // data-parallel and context-parallel ones (Megatron-LM's data-parallel-with-CP group).
  [[nodiscard]] constexpr int dense_shards() const { return dp() * parallel.cp; }
  // The degree each expert's weights are split over: etp, or tp when it is not set.
  [[nodiscard]] constexpr int expert_tp() const {
    return parallel.etp > 0 ? parallel.etp : parallel.tp;
  }
  // Ranks that hold the same experts: the expert grid's data-parallel size, tp x cp x dp over
  // etp x ep (Megatron-Core's parallel_state.py: expert_data_parallel_size); dp x cp over ep
  // when etp is tp.
  [[nodiscard]] constexpr int expert_shards() const {
    return dense_shards() * parallel.tp / (expert_tp() * parallel.ep);
  }
  // Ranks ZeRO partitions the dense rows over: the shard group under hybrid sharding.
  [[nodiscard]] constexpr int zero_shards() const {
    return parallel.shard_group > 0 ? parallel.shard_group : dense_shards();
  }
  // Copies of each ZeRO partition (hybrid sharding), that all-reduce their gradients.
  [[nodiscard]] constexpr int replicas() const { return dense_shards() / zero_shards(); }
};

}  // namespace tb
