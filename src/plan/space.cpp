// The default plan space and its grid.
#include "trainbudget/plan/space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tb::plan {
namespace {

std::vector<int> powers_of_two_to(std::int64_t limit) {
  std::vector<int> out;
  for (std::int64_t v = 1; v <= limit && v <= kMaxDegree; v *= 2)
    out.push_back(static_cast<int>(v));
  return out;
}

// The (ep, etp) index pairs worth trying at tensor-parallel degree tp: every ep unfolded, and
// folded (etp 1) only where it differs, with tp > 1 and ep > 1.
std::vector<std::pair<std::uint8_t, std::uint8_t>> expert_grid(const PlanSpace& space, int tp) {
  std::vector<std::pair<std::uint8_t, std::uint8_t>> out;
  for (std::size_t e = 0; e < std::min(space.ep.size(), kMaxGridValues); ++e) {
    for (std::size_t t = 0; t < std::min(space.etp.size(), kMaxGridValues); ++t) {
      const int ep = space.ep[e];
      const int etp = space.etp[t];
      if (etp > 0 && (etp == tp || ep == 1)) continue;
      out.emplace_back(static_cast<std::uint8_t>(e), static_cast<std::uint8_t>(t));
    }
  }
  return out;
}

// The indices 0 .. n - 1 of a list of n values, at most kMaxGridValues of them.
std::vector<std::uint8_t> indices(std::size_t n) {
  std::vector<std::uint8_t> out(std::min(n, kMaxGridValues));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i);
  return out;
}

// A node's shard group: a node's devices over the layout's tp x cp; a pinned group as given.
int shard_group_of(const PlanSpace& space, int group, int tp, int cp) {
  if (group != kNodeShardGroup) return group;
  return static_cast<int>(
      std::max<std::int64_t>(1, space.devices_per_node / (static_cast<std::int64_t>(tp) * cp)));
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

void GridPoint::apply(const PlanSpace& space, Layout& l) const noexcept {
  l.parallel.tp = space.tp[tp];
  l.parallel.cp = space.cp[cp];
  l.parallel.pp = space.pp[pp];
  l.parallel.virtual_stages = space.virtual_stages[virtual_stages];
  l.parallel.ep = space.ep[ep];
  l.parallel.etp = space.etp[etp];
  l.parallel.sequence_parallel = l.parallel.tp > 1;
  l.parallel.offload = space.offload[offload];
  l.parallel.shard_group =
      shard_group_of(space, space.shard_group[shard_group], l.parallel.tp, l.parallel.cp);
  l.micro_batch = space.micro_batch[micro_batch];
  l.grad_accum = grad_accum;
  l.recompute = space.recompute[recompute];
  l.zero_stage = space.zero[zero];
}

std::vector<GridPoint> layouts_of(const PlanSpace& space, const ModelProfile& profile,
                                  const Layout& base, int devices, std::int64_t global_batch,
                                  GridStats& stats) {
  std::vector<GridPoint> out;
  // Room for every grid point at once: pages are only touched as layouts fill them, and the
  // list never moves (its growth by copies was a tenth of a plan's time).
  std::size_t grid = 1;
  for (const std::size_t n :
       {space.tp.size(), space.cp.size(), space.pp.size(), space.virtual_stages.size(),
        space.ep.size(), space.etp.size(), space.micro_batch.size(), space.recompute.size(),
        space.zero.size(), space.offload.size(), space.shard_group.size()}) {
    grid *= std::min(n, kMaxGridValues);
  }
  constexpr std::size_t kMostReserved = std::size_t{1} << 22;
  out.reserve(std::min(grid, kMostReserved));
  Layout l = base;
  l.devices = devices;
  const auto layers = static_cast<std::int64_t>(profile.layer_is_moe.size());
  GridPoint g;
  for (const std::uint8_t tpi : indices(space.tp.size())) {
    const int tp = space.tp[tpi];
    g.tp = tpi;
    for (const std::uint8_t cpi : indices(space.cp.size())) {
      const int cp = space.cp[cpi];
      g.cp = cpi;
      for (const std::uint8_t ppi : indices(space.pp.size())) {
        const int pp = space.pp[ppi];
        g.pp = ppi;
        const std::int64_t model = static_cast<std::int64_t>(tp) * cp * pp;
        if (model > devices || devices % model != 0) continue;
        const std::int64_t dp = devices / model;
        for (const std::uint8_t vi : indices(space.virtual_stages.size())) {
          const int v = space.virtual_stages[vi];
          g.virtual_stages = vi;
          if (v > 1 && pp == 1) continue;
          if (v > 1 && (layers == 0 || layers % (static_cast<std::int64_t>(pp) * v) != 0)) {
            continue;
          }
          for (const auto& [epi, etpi] : expert_grid(space, tp)) {
            g.ep = epi;
            g.etp = etpi;
            for (const std::uint8_t mbi : indices(space.micro_batch.size())) {
              const std::int64_t mb = space.micro_batch[mbi];
              g.micro_batch = mbi;
              const std::int64_t per_replica =
                  per_replica_batch(global_batch, dp, mb, space.batch_tolerance);
              const std::int64_t accum = mb > 0 ? per_replica / mb : 0;
              for (const std::uint8_t rci : indices(space.recompute.size())) {
                g.recompute = rci;
                for (const std::uint8_t zi : indices(space.zero.size())) {
                  const int zero = space.zero[zi];
                  g.zero = zi;
                  for (const std::uint8_t offi : indices(space.offload.size())) {
                    g.offload = offi;
                    for (const std::uint8_t gi : indices(space.shard_group.size())) {
                      const int group = space.shard_group[gi];
                      g.shard_group = gi;
                      ++stats.considered;
                      if (per_replica == 0 || accum > std::numeric_limits<std::uint32_t>::max()) {
                        ++stats.batch;
                        continue;
                      }
                      if (group == kNodeShardGroup &&
                          (zero == 0 || shard_group_of(space, group, tp, cp) >= dp * cp)) {
                        continue;
                      }
                      // With one data-parallel rank ZeRO has nothing to partition: stage 0
                      // stands for all of them (no duplicate candidates).
                      if (zero > 0 && dp * cp == 1) continue;
                      g.grad_accum = static_cast<std::uint32_t>(accum);
                      g.apply(space, l);
                      const LayoutRule rule = first_violation(profile, l);
                      if (rule != LayoutRule::kOk) {
                        ++stats.rules[static_cast<std::size_t>(rule)];
                        continue;
                      }
                      if (!space.runners.empty() && !runner_for(space.runners, profile, l)) {
                        ++stats.runners;
                        continue;
                      }
                      out.push_back(g);
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
