// The threaded search over the plan grid.
#include "trainbudget/plan/planner.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "candidate_order.hpp"

namespace tb::plan {
namespace {

struct Work {
  const Workload* workload;
  const PlanSpace* space;
  Layout base;  // the search's base layout on its devices; each point sets its knobs on it
  std::vector<GridPoint> points;
  // The search's cluster with the capacity the workload's layouts may reach: the device's over
  // the workload's margin (a proposal keeps its room; the hot path compares as before).
  ClusterProfile cluster;
};

struct Local {
  EvalMemo memo;
  std::vector<Candidate> best;
  std::vector<Candidate> misses;
  std::vector<Candidate> over;  // the closest that fits past the deadline or budget (at most 1)
  std::uint64_t prechecked{0}, evaluated{0}, fit{0}, kept{0};
  std::uint64_t recompute_tries{0};           // fewest_recomputed()'s extra evaluations
  std::uint64_t offload_tries{0};             // offloaded()'s
  std::uint64_t overlap_tries{0};             // overlapped()'s
  std::optional<ClusterProfile> memory_only;  // the cluster without a rate, for those tries
  // Whether the recompute-none layout with the same other knobs fit, for the grid's current
  // block of (tp, cp, pp, virtual stages, ep, micro-batch); indexed by ZeRO, offload and group.
  struct NoneFit {
    Layout block;
    std::array<std::int8_t, 4 * 3 * 2> fits{};  // 0 unknown, 1 fit, -1 did not
    static bool same_block(const Layout& a, const Layout& b) {
      return a.devices == b.devices && a.parallel.tp == b.parallel.tp &&
             a.parallel.cp == b.parallel.cp && a.parallel.pp == b.parallel.pp &&
             a.parallel.virtual_stages == b.parallel.virtual_stages &&
             a.parallel.ep == b.parallel.ep && a.parallel.etp == b.parallel.etp &&
             a.micro_batch == b.micro_batch && a.grad_accum == b.grad_accum;
    }
    static std::size_t at(const Layout& l) {
      return static_cast<std::size_t>(std::clamp(l.zero_stage, 0, 3)) * 6 +
             static_cast<std::size_t>(l.parallel.offload) * 2 +
             (l.parallel.shard_group > 0 ? 1 : 0);
    }
    void set(const Layout& l, bool fit) {
      if (!same_block(block, l)) {
        block = l;
        fits.fill(0);
      }
      fits[at(l)] = fit ? 1 : -1;
    }
    [[nodiscard]] bool get(const Layout& l) const {
      return same_block(block, l) && fits[at(l)] > 0;
    }
  } none_fit;
  // Grid points whose variants the second pass tries (variants_of): the layout and its score.
  struct Pending {
    const Workload* workload;
    const ClusterProfile* cluster;  // the workload's (Work::cluster)
    const Work* work;               // the point's grid, space and base layout
    const GridPoint* point;         // in the search's grid (outlives the pass)
    double score;
    double floor;  // the least share of `score` a variant can reach (could_rank)
    bool fits;
    bool overlap_tp{false};  // the variant: the tensor-parallel collectives overlapped
    [[nodiscard]] Layout layout() const { return point->on(*work->space, work->base); }
  };
  std::vector<Pending> pending;
};

// How far a miss is from being kept: the overshoot of memory, time or cost, as a ratio.
double overshoot(const Candidate& c, const ClusterProfile& cluster, const SearchOptions& o) {
  switch (c.miss) {
    case Miss::kStates:
      return c.cost.states / cluster.capacity;
    case Miss::kPeak:
      return c.cost.memory / cluster.capacity;
    case Miss::kDeadline:
      return c.hours / *o.deadline_hours;
    case Miss::kBudget:
      return c.usd / *o.budget_usd;
    case Miss::kHostMemory:
      return c.cost.host / cluster.host_capacity;
  }
  return 0.0;
}

// The least gain in time, cost or energy for which a variant (fewer layers recomputed, the TP
// collectives overlapped) replaces the layout it came from.
constexpr double kVariantGain = 0.01;

// Whether a variant scoring at least `floor` x `score` could enter a list ending at `last`.
bool could_rank(double score, double floor, double last) { return score * floor < last; }

// The last score of a kept list of at most `top` (0: unbounded); infinite while it is short.
double last_kept(const std::vector<Candidate>& best, std::size_t top) {
  return top == 0 || best.size() < top ? std::numeric_limits<double>::infinity()
                                       : best.back().score;
}

// The cluster without a rate: evaluate() then weighs memory only (no clock).
const ClusterProfile& memory_only(const ClusterProfile& cluster, Local& out) {
  if (!out.memory_only || out.memory_only->capacity != cluster.capacity) {
    out.memory_only = cluster;
    out.memory_only->rate = FlopsPerSecond{0.0};
  }
  return *out.memory_only;
}

// Whether a layout whose activations overflow the device may fit with them offloaded to the
// host between each layer's forward and backward, by a bound with no evaluation: offloading
// takes at most the saved activations beyond two layers' off the peak (its phase held no more
// than those), so past it nothing offloaded fits.
bool may_fit_offloaded(const Workload& w, const ClusterProfile& cluster, const Candidate& c) {
  if (c.layout.offload_activations || !w.profile.has_architecture) return false;
  const Bytes two = std::max(c.cost.dense.per_layer, c.cost.moe.per_layer) * 2.0;
  return c.cost.memory - c.cost.layers_saved + std::min(c.cost.layers_saved, two) <=
         cluster.capacity;
}

// The layout with its activations offloaded, timed (the clock prices the transfers over the host
// link beyond the compute they hide behind), when that fits.
bool offloaded(const Workload& w, const ClusterProfile& cluster, std::span<const Runner> runners,
               Candidate& c, Local& out) {
  Layout trial = c.layout;
  trial.offload_activations = true;
  // Not every framework offloads activations (eval/runner_rules.hpp).
  if (!runners.empty() && !runner_for(runners, w.profile, trial)) return false;
  ++out.offload_tries;
  if (evaluate(w.profile, trial, memory_only(cluster, out), default_comm_model(), &out.memo)
          .status != Status::kFits) {
    return false;
  }
  c.layout = trial;
  c.cost = evaluate(w.profile, trial, cluster, default_comm_model(), &out.memo);
  return true;
}

// The layout with its tensor-parallel collectives overlapped with compute, kept when it scores
// better by kVariantGain (the overlap's SM share is priced as interference).
bool overlapped(const Workload& w, const ClusterProfile& cluster, Objective objective, Candidate& c,
                Local& out) {
  Candidate trial{c.workload, c.layout, {}};
  trial.layout.overlap_tp = 1.0;
  ++out.overlap_tries;
  trial.cost = evaluate(w.profile, trial.layout, cluster, default_comm_model(), &out.memo);
  score(trial, cluster, objective);
  if (trial.score >= c.score * (1.0 - kVariantGain)) return false;
  c = std::move(trial);
  return true;
}

// A layout that fits under full recomputation, with as few of each stage's layers recomputed
// as still fit (the peak falls as more layers recompute): bisection over 0 .. the stage's
// layers, each try a full evaluation.
bool fewest_recomputed(const Workload& w, const ClusterProfile& cluster, Objective objective,
                       std::span<const Runner> runners, Candidate& c, Local& out) {
  const Layout& l = c.layout;
  if (l.recompute != Recompute::kFull || l.recompute_layers >= 0 || !w.profile.has_architecture) {
    return false;
  }
  // Only Megatron-Core recomputes the first N layers of a stage (eval/runner_rules.hpp).
  Layout partial = l;
  partial.recompute_layers = 0;
  if (!runners.empty() && !runner_for(runners, w.profile, partial)) return false;
  const StageSpan first = stage_span(w.profile, l, false);
  const std::int64_t layers = first.end - first.begin;  // every layer: fits
  // The tries weigh memory only; the one kept is timed.
  Layout trial = l;
  const auto fits = [&](std::int64_t n) {
    trial.recompute_layers = n;
    ++out.recompute_tries;
    return evaluate(w.profile, trial, memory_only(cluster, out), default_comm_model(), &out.memo)
               .status == Status::kFits;
  };
  // Nothing recomputed fits: the grid's own recompute-none layout is the faster one.
  if (fits(0)) return false;
  std::int64_t lo = 1;
  std::int64_t hi = layers;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (hi == layers) return false;
  trial.recompute_layers = hi;
  std::optional<StepCost> best =
      evaluate(w.profile, trial, cluster, default_comm_model(), &out.memo);
  // Kept only when it scores better by kVariantGain: a step bound by communication
  // gains nothing from less recomputation, and then every layer recomputing keeps the smaller
  // peak (a decision rule, not a measured figure).
  Candidate fewer{c.workload, c.layout, std::move(*best)};
  fewer.layout.recompute_layers = hi;
  score(fewer, cluster, objective);
  if (fewer.score >= c.score * (1.0 - kVariantGain)) return false;
  c = std::move(fewer);
  return true;
}

// One grid point: `l` is `point` set on `base`.
void run_one(const Work& work, const GridPoint& point, const Layout& l, const SearchOptions& o,
             Local& out) {
  const Workload& w = *work.workload;
  const ClusterProfile& cluster = work.cluster;
  // A layout over more nodes than a system without a network can link never runs.
  if (crosses_missing_network(cluster.fabric, l.devices)) {
    ++out.prechecked;
    return;
  }
  // The precheck pays off only where the model states alone overflow often; a planner over a
  // space that mostly fits goes straight to evaluate() (which reports the same overflow).
  if (o.precheck && precheck(w.profile, l, cluster, &out.memo) == Status::kOutOfMemory) {
    ++out.prechecked;
    if (o.misses > 0) {
      // The states alone: enough to say by how much.
      Candidate c;
      c.workload = w.index;
      c.layout = l;
      const StageSpan first = stage_span(w.profile, l, false);
      for (const StateTerm& t : w.profile.states) {
        c.cost.states += state_on_device(w.profile, l, t, first).device;
      }
      c.miss = Miss::kStates;
      c.score = overshoot(c, cluster, o);
      keep(out.misses, c, o.misses);
    }
    return;
  }
  ++out.evaluated;
  // Built in place (no copy of the StepCost). A layout that overflows is not timed here: the few
  // kept as near misses are, once the search ends (timed_misses).
  Candidate c{w.index, l, evaluate_if_fits(w.profile, l, cluster, default_comm_model(), &out.memo)};
  const bool fits = c.cost.status == Status::kFits;
  // A layout that may fit with its activations offloaded is timed now: its own time bounds the
  // offloaded variant's from below (offloading only adds time), which variants_of ranks by.
  const bool offload_candidate = c.cost.status == Status::kOutOfMemory && o.offload_activations &&
                                 c.cost.states <= cluster.capacity &&
                                 may_fit_offloaded(w, cluster, c);
  if (offload_candidate) time_step(w.profile, l, cluster, default_comm_model(), c.cost, &out.memo);
  score(c, cluster, o.objective);
  // Variants (activations offloaded, fewer layers recomputed) are tried after every grid point,
  // against the kept list all threads found (variants_of), so every thread count keeps alike.
  // The grid walks recompute none before full for the same other knobs: when that one fit, no
  // layer needs recomputing and the variant would be it (a shortcut; fewest_recomputed checks).
  // A variant that cannot enter this thread's kept list cannot enter the merged one (its last
  // score only falls): not kept pending, whatever the thread count.
  const double last = last_kept(out.best, o.top);
  const bool none_fit = out.none_fit.get(l);
  if (l.recompute == Recompute::kNone) out.none_fit.set(l, fits);
  if ((fits && o.block_recompute && c.layout.recompute == Recompute::kFull &&
       c.layout.recompute_layers < 0 && !none_fit) ||
      offload_candidate) {
    // Fewer layers recomputed saves at most the recomputed passes (and their share of the
    // bubble); offloading only adds time.
    const Seconds step = c.cost.time.step;
    const double floor =
        fits && step.count() > 0.0
            ? std::max(0.0, 1.0 - c.cost.time.recompute *
                                      (1.0 + c.cost.time.bubble / std::max(c.cost.time.micro_batch,
                                                                           Seconds{1e-30})) *
                                      static_cast<double>(c.layout.grad_accum) / step)
            : 1.0;
    if (could_rank(c.score, floor, last)) {
      out.pending.push_back({&w, &cluster, &work, &point, c.score, floor, fits});
    }
  }
  // Tensor-parallel collectives overlapped with the GEMMs (Megatron-LM's tp_comm_overlap,
  // torchtitan's async TP): saves at most their exposed time.
  const CommTerm& tp = c.cost.time.comm[static_cast<std::size_t>(CommKind::kTensor)];
  if (fits && o.overlap_tp && l.parallel.tp > 1 && l.overlap_tp < 0.0 && cluster.overlap.tp < 1.0 &&
      tp.exposed.count() > 0.0 && c.cost.time.step.count() > 0.0) {
    const double floor = std::max(0.0, 1.0 - tp.exposed / c.cost.time.step);
    if (could_rank(c.score, floor, last)) {
      out.pending.push_back({&w, &cluster, &work, &point, c.score, floor, true, true});
    }
  }
  if (!fits) {
    c.miss = c.cost.status == Status::kOutOfHostMemory ? Miss::kHostMemory
             : c.cost.states > cluster.capacity        ? Miss::kStates
                                                       : Miss::kPeak;
  } else {
    ++out.fit;
    if (o.deadline_hours && c.hours > *o.deadline_hours) {
      c.miss = Miss::kDeadline;
    } else if (o.budget_usd && c.usd > *o.budget_usd) {
      c.miss = Miss::kBudget;
    } else {
      ++out.kept;
      keep(out.best, c, o.top);
      return;
    }
  }
  c.score = overshoot(c, cluster, o);
  if (c.miss == Miss::kDeadline || c.miss == Miss::kBudget) keep(out.over, c, 1);
  keep(out.misses, c, o.misses);
}

// The second pass: each pending grid point's variant, tried when it could enter the kept list
// all threads found (a bound that does not depend on the thread count); one that fits offloaded
// leaves the misses.
void variants_of(const SearchOptions& o, std::span<const Runner> runners,
                 std::vector<Local>& locals, SearchResult& result) {
  const auto last = [&] { return last_kept(result.best, o.top); };
  Local& scratch = locals.front();
  // Best first, so that the kept list's last score tightens as variants enter it.

  // The kept list's last score only falls as variants enter it, so a pending point whose bound
  // cannot rank now never will: it is left out before the sort (the sort was an eighth of a
  // plan's time).
  const double first_last = last();
  std::vector<std::pair<const Local::Pending*, Layout>> pending;
  for (const Local& local : locals) {
    for (const Local::Pending& p : local.pending) {
      if (could_rank(p.score, p.floor, first_last)) pending.emplace_back(&p, p.layout());
    }
  }
  // Ties in the bound go by the layout, then the variant: an order no thread schedule changes.
  const auto order = [](const std::pair<const Local::Pending*, Layout>& e) {
    const Local::Pending* p = e.first;
    const Layout& l = e.second;
    const Parallelism& x = l.parallel;
    return std::make_tuple(p->score * p->floor, l.devices, p->workload->index, x.tp, x.pp, x.cp,
                           x.ep, x.virtual_stages, l.zero_stage, static_cast<int>(x.offload),
                           x.shard_group, l.micro_batch, static_cast<int>(l.recompute),
                           l.recompute_layers, p->overlap_tp);
  };
  std::sort(pending.begin(), pending.end(),
            [&](const auto& a, const auto& b) { return order(a) < order(b); });
  {
    for (const auto& [at, layout] : pending) {
      const Local::Pending& p = *at;
      const Workload& w = *p.workload;
      const ClusterProfile& cluster = *p.cluster;
      if (!could_rank(p.score, p.floor, last())) break;  // nor can any after it
      Candidate c;
      c.workload = w.index;
      c.layout = layout;
      c.score = p.score;
      if (p.overlap_tp) {
        if (!overlapped(w, cluster, o.objective, c, scratch)) continue;
      } else if (!p.fits) {
        if (!offloaded(w, cluster, runners, c, scratch)) continue;
        // It fits offloaded: no longer a miss.
        std::erase_if(result.misses, [&](const Candidate& m) {
          return m.workload == c.workload && m.layout.devices == c.layout.devices &&
                 same_knobs(m.layout, c.layout);
        });
      } else if (!fewest_recomputed(w, cluster, o.objective, runners, c, scratch)) {
        continue;
      }
      score(c, cluster, o.objective);
      if ((!o.deadline_hours || c.hours <= *o.deadline_hours) &&
          (!o.budget_usd || c.usd <= *o.budget_usd)) {
        keep(result.best, c, o.top);
      }
    }
  }
}

// The near misses run_one() kept without timing them (evaluate_if_fits: status out of memory),
// timed now (time_step): their hours and cost as evaluate() gives them. Their order is by memory,
// so it does not move.
void timed_misses(const std::vector<Work>& work, const SearchOptions& o, Local& scratch,
                  SearchResult& result) {
  for (Candidate& m : result.misses) {
    // Timed already: every miss that fits (deadline, budget) and the offload candidates.
    if (m.cost.status == Status::kFits || m.cost.time.step.count() > 0.0) continue;
    const auto w = std::find_if(work.begin(), work.end(),
                                [&](const Work& x) { return x.workload->index == m.workload; });
    if (w == work.end()) continue;
    const ClusterProfile& cluster = w->cluster;
    time_step(w->workload->profile, m.layout, cluster, default_comm_model(), m.cost, &scratch.memo);
    score(m, cluster, o.objective);
    m.score = overshoot(m, cluster, o);
  }
}

}  // namespace

SearchResult search(std::span<const Workload> workloads, const Layout& base, const PlanSpace& space,
                    int devices, std::int64_t global_batch, const ClusterProfile& cluster,
                    const SearchOptions& o, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  SearchResult result;
  std::vector<Work> work;
  std::uint64_t total = 0;
  for (const Workload& w : workloads) {
    Work item{&w, &space, base,
              layouts_of(space, w.profile, base, devices, global_batch, result.stats.grid),
              cluster};
    item.base.devices = devices;
    item.cluster.capacity = cluster.capacity / std::max(1.0, w.margin);
    total += item.points.size();
    work.push_back(std::move(item));
  }
  // One flat index over every (workload, layout), handed out in chunks.
  std::vector<std::uint64_t> offsets{0};
  for (const Work& item : work) offsets.push_back(offsets.back() + item.points.size());
  const unsigned threads =
      o.threads > 0 ? o.threads : std::max(1U, std::thread::hardware_concurrency());
  constexpr std::uint64_t kChunk = 4096;
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::atomic<bool> stopped{false};
  std::vector<Local> locals(threads);
  const auto worker = [&](unsigned id) {
    Local& local = locals[id];
    for (;;) {
      if (stopped.load(std::memory_order_relaxed) || (o.stop && o.stop())) {
        stopped = true;
        break;
      }
      const std::uint64_t from = next.fetch_add(kChunk);
      if (from >= total) break;
      const std::uint64_t to = std::min(total, from + kChunk);
      // Each chunk starts without its predecessor's recompute-none results, whichever thread
      // ran it: the shortcut then skips the same layouts on every schedule.
      local.none_fit = {};
      std::size_t w = static_cast<std::size_t>(
          std::upper_bound(offsets.begin(), offsets.end(), from) - offsets.begin() - 1);
      Layout l = work[w].base;
      for (std::uint64_t i = from; i < to; ++i) {
        if (i >= offsets[w + 1]) {
          while (i >= offsets[w + 1]) ++w;
          l = work[w].base;
        }
        const GridPoint& point = work[w].points[i - offsets[w]];
        point.apply(*work[w].space, l);
        run_one(work[w], point, l, o, local);
      }
      done.fetch_add(to - from);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  if (progress && total > 0) {
    // The calling thread reports while the pool works, then joins the work itself.
    std::mutex m;
    std::condition_variable finished;
    bool over = false;
    std::thread reporter([&] {
      std::unique_lock<std::mutex> lock(m);
      while (!finished.wait_for(lock, std::chrono::milliseconds(200), [&] { return over; })) {
        progress(done.load(), total);
      }
    });
    worker(0);
    for (std::thread& t : pool) t.join();
    {
      const std::lock_guard<std::mutex> lock(m);
      over = true;
    }
    finished.notify_one();
    reporter.join();
    progress(total, total);
  } else {
    worker(0);
    for (std::thread& t : pool) t.join();
  }
  if (stopped) throw SearchCancelled{};
  for (const Local& local : locals) {
    for (const Candidate& c : local.best) keep(result.best, c, o.top);
    for (const Candidate& c : local.misses) keep(result.misses, c, o.misses);
    for (const Candidate& c : local.over) keep(result.over, c, 1);
  }
  variants_of(o, space.runners, locals, result);
  timed_misses(work, o, locals.front(), result);
  for (const Local& local : locals) {
    result.stats.prechecked += local.prechecked;
    result.stats.evaluated += local.evaluated;
    result.stats.fit += local.fit;
    result.stats.kept += local.kept;
    result.stats.recompute_tries += local.recompute_tries;
    result.stats.offload_tries += local.offload_tries;
    result.stats.overlap_tries += local.overlap_tries;
  }
  result.stats.layouts = total;
  result.stats.threads = threads;
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tb::plan
