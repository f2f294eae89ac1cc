// The default plan space and its grid.
#include "trainbudget/plan/space.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tb::plan {
namespace {

std::vector<int> powers_of_two_to(std::int64_t limit) {
  std::vector<int> out;
  for (std::int64_t v = 1; v <= limit && v <= kMaxDegree; v *= 2)
    out.push_back(static_cast<int>(v));
  return out;
}

// The (ep, etp) pairs worth trying at tensor-parallel degree tp: every ep unfolded, and folded
// (etp 1) only where it differs, with tp > 1 and ep > 1.
std::vector<std::pair<int, int>> expert_grid(const PlanSpace& space, int tp) {
  std::vector<std::pair<int, int>> out;
  for (const int ep : space.ep) {
    for (const int etp : space.etp) {
      if (etp > 0 && (etp == tp || ep == 1)) continue;
      out.emplace_back(ep, etp);
    }
  }
  return out;
}

}  // namespace

std::int64_t per_replica_batch(std::int64_t global_batch, std::int64_t dp, std::int64_t mb,
                               double tolerance) {
  if (dp <= 0 || mb <= 0) return 0;
  if (global_batch % dp == 0 && (global_batch / dp) % mb == 0) return global_batch / dp;
  // The nearest multiple of dp x mb, if within the tolerance.
  const std::int64_t unit = dp * mb;
  const std::int64_t steps = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(
             std::llround(static_cast<double>(global_batch) / static_cast<double>(unit))));
  const double off = std::abs(static_cast<double>(steps * unit - global_batch)) /
                     static_cast<double>(global_batch);
  return off <= tolerance ? steps * mb : 0;
}

PlanSpace default_space(const ModelProfile& p, int devices, const Fabric& fabric) {
  PlanSpace s;
  const std::int64_t node = fabric.devices_per_node > 0 ? fabric.devices_per_node : devices;
  if (p.has_architecture) {
    // Tensor parallelism stays inside a node: its all-reduces run every layer (Narayanan et al.
    // 2021, sec. 3.3: "tensor model parallelism ... within a multi-GPU server").
    s.tp = powers_of_two_to(std::min<std::int64_t>(node, devices));
    s.pp = powers_of_two_to(
        std::min<std::int64_t>(devices, static_cast<std::int64_t>(p.layer_is_moe.size())));
    s.cp = powers_of_two_to(std::min<std::int64_t>(devices, 16));
    // Interleaving: every degree up to kMaxPlanVirtualStages; layouts_of keeps those whose
    // pp x v divides the layers (Megatron-LM's interleaved schedule splits the layers evenly
    // into pp x v chunks).
    for (int v = 1; v <= kMaxPlanVirtualStages; ++v) s.virtual_stages.push_back(v);
    s.ep = {1};
    for (std::int64_t e = 2; e <= p.experts && e <= devices; e *= 2) {
      if (p.experts % e == 0) s.ep.push_back(static_cast<int>(e));
    }
    if (p.experts > 0) s.etp = {0, 1};
    s.recompute = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
    for (std::int64_t b = 1; b <= 64; b *= 2) s.micro_batch.push_back(b);
  } else {
    s.tp = s.pp = s.cp = s.ep = s.virtual_stages = {1};
    s.recompute = {Recompute::kNone};
    s.micro_batch = {1};
  }
  s.zero = {0, 1, 2, 3};
  s.offload = {Offload::kNone, Offload::kOptimizer, Offload::kParams};
  s.shard_group = {0};
  s.runners.assign(runners_of(Framework::kGeneric).begin(), runners_of(Framework::kGeneric).end());
  s.devices_per_node = fabric.devices_per_node;
  // Hybrid sharding over a node's data-parallel ranks, when the job spans nodes.
  if (fabric.devices_per_node > 0 && devices > fabric.devices_per_node) {
    s.shard_group.push_back(kNodeShardGroup);
  }
  return s;
}

std::vector<Layout> layouts_of(const PlanSpace& space, const ModelProfile& profile,
                               const Layout& base, int devices, std::int64_t global_batch,
                               GridStats& stats) {
  std::vector<Layout> out;
  // Room for every grid point at once: pages are only touched as layouts fill them, and the
  // list never moves (its growth by copies was a tenth of a plan's time).
  std::size_t grid = 1;
  for (const std::size_t n :
       {space.tp.size(), space.cp.size(), space.pp.size(), space.virtual_stages.size(),
        space.ep.size(), space.etp.size(), space.micro_batch.size(), space.recompute.size(),
        space.zero.size(), space.offload.size(), space.shard_group.size()}) {
    grid *= n;
  }
  constexpr std::size_t kMostReserved = std::size_t{1} << 22;
  out.reserve(std::min(grid, kMostReserved));
  Layout l = base;
  l.devices = devices;
  for (const int tp : space.tp) {
    for (const int cp : space.cp) {
      for (const int pp : space.pp) {
        const std::int64_t model = static_cast<std::int64_t>(tp) * cp * pp;
        if (model > devices || devices % model != 0) continue;
        const std::int64_t dp = devices / model;
        const auto layers = static_cast<std::int64_t>(profile.layer_is_moe.size());
        for (const int v : space.virtual_stages) {
          if (v > 1 && pp == 1) continue;
          if (v > 1 && (layers == 0 || layers % (static_cast<std::int64_t>(pp) * v) != 0)) {
            continue;
          }
          for (const auto& [ep, etp] : expert_grid(space, tp)) {
            for (const std::int64_t mb : space.micro_batch) {
              for (const Recompute rc : space.recompute) {
                for (const int zero : space.zero) {
                  for (const Offload off : space.offload) {
                    for (const int group : space.shard_group) {
                      ++stats.considered;
                      const std::int64_t per_replica =
                          per_replica_batch(global_batch, dp, mb, space.batch_tolerance);
                      if (per_replica == 0) {
                        ++stats.batch;
                        continue;
                      }
                      l.parallel.tp = tp;
                      l.parallel.cp = cp;
                      l.parallel.pp = pp;
                      l.parallel.virtual_stages = v;
                      l.parallel.ep = ep;
                      l.parallel.etp = etp;
                      l.parallel.sequence_parallel = tp > 1;
                      l.parallel.offload = off;
                      // A node's ranks over the model-parallel degree of each.
                      // A node's devices over the layout's tp x cp; a pinned group as given.
                      l.parallel.shard_group =
                          group == kNodeShardGroup
                              ? static_cast<int>(std::max<std::int64_t>(
                                    1,
                                    space.devices_per_node / (static_cast<std::int64_t>(tp) * cp)))
                              : group;
                      if (group == kNodeShardGroup &&
                          (zero == 0 || l.parallel.shard_group >= dp * cp)) {
                        continue;
                      }
                      l.micro_batch = mb;
                      l.grad_accum = per_replica / mb;
                      l.recompute = rc;
                      l.zero_stage = zero;
                      // With one data-parallel rank ZeRO has nothing to partition: stage 0
                      // stands for all of them (no duplicate candidates).
                      if (zero > 0 && dp * cp == 1) continue;
                      const LayoutRule rule = first_violation(profile, l);
                      if (rule != LayoutRule::kOk) {
                        ++stats.rules[static_cast<std::size_t>(rule)];
                        continue;
                      }
                      if (!space.runners.empty() && !runner_for(space.runners, profile, l)) {
                        ++stats.runners;
                        continue;
                      }
                      out.push_back(l);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace tb::plan
