// The planner's space: the values each layout dimension may take for one model on one device
// count, and the grid of layouts they span (timeloop's mapspace, kept apart from the search).
// Only layouts that pass the layout rules are produced; how many were dropped and why is
// counted.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/runner_rules.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb::plan {

inline constexpr int kNodeShardGroup = -1;
// Interleaving degrees the default space tries (those whose pp x v divides the layers).
inline constexpr int kMaxPlanVirtualStages = 32;

struct PlanSpace {
  std::vector<int> tp, pp, cp, ep, virtual_stages, zero;
  // Expert tensor parallelism: 0 (the experts split like the dense weights, over tp) and, for
  // an MoE model, 1 (folded: whole experts, ep over the tp ranks too; Megatron-Core's
  // expert_tensor_parallel_size).
  std::vector<int> etp{0};
  std::vector<std::int64_t> micro_batch;  // powers of two; those dividing the per-replica batch
  std::vector<Recompute> recompute;
  std::vector<Offload> offload;
  // Hybrid sharding, in data-parallel ranks: 0 (all ranks), or kNodeShardGroup for the ranks of
  // one node (a node's devices over each layout's tp x cp).
  std::vector<int> shard_group;
  int devices_per_node{0};
  // How far a layout's global batch may sit from the one asked, as a fraction, when dp x
  // micro-batch does not divide it: 0 keeps it exact (a batch the user gave); the planner's
  // default batch allows kDefaultBatchTolerance.
  double batch_tolerance{0.0};
  // The frameworks a layout may run on (eval/runner_rules.hpp): one of them must accept it.
  // Empty: not checked.
  std::vector<Runner> runners;
};

// 5 %: a default global batch is a round number of tokens, not a requirement; 14 nodes' dp of
// 112 may take 2,016 sequences where 2,048 were asked.
inline constexpr double kDefaultBatchTolerance = 0.05;

// Sequences per data-parallel replica: global_batch / dp when dp and then mb divide it; else the
// nearest whole number of micro-batches per replica whose global batch is within `tolerance`
// of the one asked; 0 when none is.
[[nodiscard]] std::int64_t per_replica_batch(std::int64_t global_batch, std::int64_t dp,
                                             std::int64_t mb, double tolerance);

// The default space for `devices` devices on `fabric` (docs/scale.md, "The planner"): tensor
// parallelism in powers of two up to the node, pipeline and context parallelism in powers of
// two, expert parallelism over the divisors of the experts (MoE only), every interleaving degree
// v <= 32 whose pp x v divides the layers,
// micro-batches 1..64, every recompute mode, ZeRO 0-3, offload none or optimizer (params too
// with ZeRO-3). Sequence parallelism is on whenever tp > 1: it costs no extra traffic (the same
// volume as the all-reduces) and only saves memory (Korthikanti et al. 2022, sec. 4.2.2).
[[nodiscard]] PlanSpace default_space(const ModelProfile& profile, int devices,
                                      const Fabric& fabric);

// Counts of what the grid dropped.
struct GridStats {
  std::uint64_t considered{0};
  std::uint64_t batch{0};  // no whole number of micro-batches per replica gives the batch
  std::array<std::uint64_t, kLayoutRules> rules{};  // by LayoutRule
  std::uint64_t runners{0};                         // no framework of the space's runs it
};

// One layout of the grid: the index of each knob's value in the space's lists, and the
// micro-batches per step (docs/scale.md, "The planner"). 16 bytes where a whole Layout is 136:
// a plan's list touches an eighth of the pages (first touches of fresh pages were a third of a
// plan's time on a virtual machine). Each list holds at most kMaxGridValues values.
struct GridPoint {
  std::uint32_t grad_accum{1};
  std::uint8_t tp{0}, cp{0}, pp{0}, virtual_stages{0}, ep{0}, etp{0}, micro_batch{0}, recompute{0},
      zero{0}, offload{0}, shard_group{0};

  // Sets the point's knobs on `l` (the base layout with the plan's devices): sequence
  // parallelism on whenever tp > 1, a node's shard group as a node's devices over tp x cp.
  void apply(const PlanSpace& space, Layout& l) const noexcept;
  [[nodiscard]] Layout on(const PlanSpace& space, const Layout& base) const noexcept {
    Layout l = base;
    apply(space, l);
    return l;
  }
};
inline constexpr std::size_t kMaxGridValues = 256;

// Every layout of the space for `devices` devices, `global_batch` sequences per step: dp = devices
// / (tp pp cp) replicas, each micro_batch x grad_accum sequences, the other knobs from `base`.
[[nodiscard]] std::vector<GridPoint> layouts_of(const PlanSpace& space, const ModelProfile& profile,
                                                const Layout& base, int devices,
                                                std::int64_t global_batch, GridStats& stats);

}  // namespace tb::plan
