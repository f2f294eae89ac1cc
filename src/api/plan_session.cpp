// Session::plan: a request becomes workloads (method x recipe x rank), a plan space pinned by
// the dimensions the request gave, a search per device count, and whole estimates of the best.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "plan_apply.hpp"
#include "plan_batch.hpp"
#include "plan_rollout.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/eval/memory_margin.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb::api {
namespace {

// Candidates searched per family shown, and at most: the families fold from these.
constexpr std::size_t kCandidatesPerFamily = 256;
constexpr std::size_t kMaxCandidates = 2048;

using plan::Objective;
using plan::PlanMode;

std::string workload_label(const TrainingJob& j) {
  std::string method{enum_name(j.method)};
  if (uses_adapters(j.method) && j.model.architecture) {
    method += fmt::format(" r{} on {}", j.lora.rank, fmt::join(j.lora.targets, ","));
  }
  return fmt::format("{}, {}", method, j.recipe_id);
}

// The most workloads one plan compares: each is profiled and searched over every layout.
constexpr std::size_t kMaxWorkloads = 64;

// The jobs the plan may choose between: every method x recipe (x rank x targets for adapters).
std::vector<TrainingJob> workload_jobs(const EstimateRequest& r) {
  const std::vector<Method> methods =
      r.plan.methods.empty() ? std::vector<Method>{r.job.method} : r.plan.methods;
  const std::vector<std::string> recipes =
      r.plan.recipes.empty() ? std::vector<std::string>{r.job.recipe_id} : r.plan.recipes;
  const std::vector<std::int64_t> ranks =
      r.plan.lora_ranks.empty() ? std::vector<std::int64_t>{r.job.lora.rank} : r.plan.lora_ranks;
  const std::vector<std::vector<std::string>> target_sets =
      r.plan.lora_target_sets.empty() ? std::vector<std::vector<std::string>>{r.job.lora.targets}
                                      : r.plan.lora_target_sets;
  // Counted before one is built: every workload is profiled and searched (issue: 1,000 ranks x
  // 1,000 target sets asked for 12 GB).
  std::size_t count = 0;
  for (const Method m : methods) {
    count += recipes.size() *
             (uses_adapters(m) && r.job.model.architecture ? target_sets.size() * ranks.size() : 1);
  }
  if (count > kMaxWorkloads) {
    throw InvalidRequest(
        r.plan.lora_ranks.size() * r.plan.lora_target_sets.size() > 1 ? "lora_ranks" : "methods",
        fmt::format(
            "{} workloads to plan ({{methods}} {} x {{recipes}} {} x {{lora_target_sets}} {} "
            "x {{lora_ranks}} {}); a plan compares at most {}",
            count, methods.size(), recipes.size(), target_sets.size(), ranks.size(), kMaxWorkloads),
        "fewer methods, recipes, LoRA target sets or ranks");
  }
  std::vector<TrainingJob> out;
  out.reserve(count);
  for (const Method m : methods) {
    for (const std::string& recipe : recipes) {
      TrainingJob j = r.job;
      j.method = m;
      j.recipe_id = recipe;
      if (uses_adapters(m) && j.model.architecture) {
        for (const std::vector<std::string>& targets : target_sets) {
          for (const std::int64_t rank : ranks) {
            j.lora.rank = rank;
            j.lora.targets = targets;
            out.push_back(j);
          }
        }
      } else {
        out.push_back(j);
      }
    }
  }
  return out;
}

// The dimensions the request gave are pinned to its value.
void pin(const EstimateRequest& r, const Layout& base, plan::PlanSpace& s) {
  const Parallelism& x = r.job.parallel;
  if (r.has("tp")) s.tp = {x.tp};
  if (r.has("pp")) s.pp = {x.pp};
  if (r.has("cp")) s.cp = {x.cp};
  if (r.has("ep")) s.ep = {x.ep};
  if (r.has("etp")) s.etp = {x.etp};
  if (r.has("virtual_stages")) s.virtual_stages = {x.virtual_stages};
  if (r.has("zero")) s.zero = {r.job.zero_stage};
  if (r.has("offload")) s.offload = {x.offload};
  if (r.has("micro_batch")) s.micro_batch = {base.micro_batch};
  if (r.has("recompute")) s.recompute = {base.recompute};
  if (r.has("shard_group")) s.shard_group = {x.shard_group};
  // Only what the framework runs (eval/runner_rules.hpp): generic tries them all.
  const std::span<const Runner> runners =
      runners_of(r.job.setup.framework, job_kind(r.job) != JobKind::kPretraining);
  s.runners.assign(runners.begin(), runners.end());
}

// Tokens per optimizer step when the request gives no global batch, held fixed whatever the
// device count: 4M for pretraining (Llama 2 and Llama 3 trained at 4M tokens a step: Touvron et al.
// 2023, sec. 2.2; Llama 3 paper, sec. 3.4.1), 1M for a fine-tune (2^20: the 0.5-2M of most
// fine-tuning recipes). In sequences of the job's length, at least one.
std::int64_t default_global_batch(std::int64_t seq_len, JobKind kind) {
  const std::int64_t tokens =
      kind == JobKind::kPretraining ? std::int64_t{1} << 22 : std::int64_t{1} << 20;
  return std::max<std::int64_t>(1, tokens / std::max<std::int64_t>(1, seq_len));
}

// What a search did, added to the plan's totals (the thread count is the last search's).
void add_stats(plan::SearchStats& into, const plan::SearchStats& from) {
  into.layouts += from.layouts;
  into.prechecked += from.prechecked;
  into.evaluated += from.evaluated;
  into.fit += from.fit;
  into.kept += from.kept;
  into.recompute_tries += from.recompute_tries;
  into.offload_tries += from.offload_tries;
  into.overlap_tries += from.overlap_tries;
  into.seconds += from.seconds;
  into.threads = from.threads;
  into.grid.considered += from.grid.considered;
  into.grid.batch += from.grid.batch;
  into.grid.runners += from.grid.runners;
  for (std::size_t i = 0; i < from.grid.rules.size(); ++i) into.grid.rules[i] += from.grid.rules[i];
}

// Layouts a practitioner reads as one choice: the same workload and model-parallel shape (tp,
// pp, ep) and offload; data against context parallelism, interleaving, ZeRO stage and hybrid
// sharding, recompute and the micro-batch split are tuning inside it.
auto family_of(const plan::Candidate& c) {
  const Layout& l = c.layout;
  return std::tuple{c.workload,    l.devices,     l.parallel.tp,
                    l.parallel.pp, l.parallel.ep, l.parallel.offload};
}

// The best of each family, in rank order, with how many others of it were found.
std::vector<plan::Candidate> fold_families(const std::vector<plan::Candidate>& ranked,
                                           std::size_t families) {
  std::vector<plan::Candidate> out;
  for (const plan::Candidate& c : ranked) {
    const auto it = std::find_if(out.begin(), out.end(), [&](const plan::Candidate& kept) {
      return family_of(kept) == family_of(c);
    });
    if (it != out.end()) {
      ++it->alike;
    } else if (out.size() < families) {
      out.push_back(c);
    }
  }
  return out;
}

plan::PlanMiss miss_of(const plan::Candidate& c, const std::vector<plan::Workload>& workloads,
                       const ClusterProfile& cluster) {
  plan::PlanMiss m;
  m.workload = workloads[c.workload].label;
  m.layout = c.layout;
  m.miss = c.miss;
  m.memory = c.miss == plan::Miss::kStates ? c.cost.states : c.cost.memory;
  m.capacity = cluster.capacity;
  if (c.miss == plan::Miss::kHostMemory) {
    m.memory = c.cost.host;
    m.capacity = cluster.host_capacity;
  }
  m.margin = workloads[c.workload].margin;
  m.phase = c.cost.peak_phase;
  m.states = c.cost.states;
  m.activations = c.cost.phases[static_cast<std::size_t>(c.cost.peak_phase)].activations;
  m.buffers = c.cost.comm_buffers;
  m.hours = c.hours;
  m.usd = c.usd;
  return m;
}

}  // namespace

// Several device types: each planned on its own, then ranked together by the objective (the
// cheapest of H100 and A100, say), one row per machine and family.
PlanResult Session::plan_each(const EstimateRequest& request,
                              const std::vector<MachineChoice>& machines,
                              const plan::Progress& progress, const plan::Stop& stop) const {
  if (!request.job.system.empty()) {
    throw InvalidRequest("system", "a system belongs to one device type; plan several without it",
                         "one {machine} with {system}, or several without");
  }
  PlanResult out;
  std::vector<plan::PlanCandidate> all;
  std::optional<plan::PlanMiss> closest;
  std::vector<std::string> ids;
  std::vector<std::string> names;
  for (const MachineChoice& m : machines) {
    EstimateRequest one = request;
    one.machines = m.dtype ? fmt::format("{}:{}", m.device->id, enum_name(*m.dtype)) : m.device->id;
    PlanResult r = plan(one, progress, stop);
    plan::PlanReport& rep = r.report;
    ids.push_back(rep.machine_id);
    names.push_back(rep.machine_name);
    for (plan::PlanCandidate& c : rep.candidates) all.push_back(std::move(c));
    if (rep.closest_miss && (!closest || rep.closest_miss->usd < closest->usd)) {
      closest = rep.closest_miss;
    }
    plan::PlanReport& into = out.report;
    if (into.machine_id.empty()) {
      into = rep;
      into.candidates.clear();
    } else {
      into.misses.insert(into.misses.end(), rep.misses.begin(), rep.misses.end());
      into.device_counts.insert(into.device_counts.end(), rep.device_counts.begin(),
                                rep.device_counts.end());
      add_stats(into.stats, rep.stats);
    }
    for (Problem& w : r.warnings) out.warnings.push_back(std::move(w));
    for (Problem& n : r.notes) out.notes.push_back(std::move(n));
  }
  plan::PlanReport& rep = out.report;
  const auto score = [&](const plan::PlanCandidate& c) {
    switch (rep.objective) {
      case Objective::kCost:
        return c.usd > 0.0 ? c.usd : c.hours * c.estimate.job.devices;
      case Objective::kEnergy:
        return c.kwh > 0.0 ? c.kwh : c.hours * c.estimate.job.devices;
      case Objective::kTime:
        break;
    }
    return c.hours;
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const plan::PlanCandidate& a, const plan::PlanCandidate& b) {
                     return score(a) < score(b);
                   });
  // Each machine's best is shown (the comparison asked for), then the next best of any.
  const auto top = static_cast<std::size_t>(request.plan.top);
  std::vector<plan::PlanCandidate> shown;
  std::vector<bool> taken(all.size(), false);
  for (const MachineChoice& m : machines) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!taken[i] && all[i].machine_id == m.device->id) {
        taken[i] = true;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!taken[i] && std::count(taken.begin(), taken.end(), true) < static_cast<long>(top)) {
      taken[i] = true;
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (taken[i]) shown.push_back(std::move(all[i]));
  }
  all = std::move(shown);
  int rank = 1;
  for (plan::PlanCandidate& c : all) c.rank = rank++;
  rep.candidates = std::move(all);
  rep.closest_miss = rep.candidates.empty() ? closest : std::nullopt;
  rep.machine_id = fmt::format("{}", fmt::join(ids, ", "));
  rep.machine_name = fmt::format("{}", fmt::join(names, ", "));
  rep.system_id.clear();
  rep.machines = static_cast<int>(machines.size());
  if (!rep.candidates.empty()) rep.devices = rep.candidates.front().estimate.job.devices;
  return out;
}

PlanResult Session::plan(const EstimateRequest& request, const plan::Progress& progress,
                         const plan::Stop& stop) const {
  EstimateRequest r = request;
  EstimateResult loaded;
  resolve_model(r, loaded);
  PlanResult out;
  out.warnings = std::move(loaded.warnings);
  out.notes = std::move(loaded.notes);
  for (const char* key : {"lora_target_sets", "lora_ranks"}) {
    if (r.has(key) && r.model.empty()) {
      throw InvalidRequest(key, "needs an architecture ({model}) to count adapters", "");
    }
  }
  const bool rl = online_rl(r.job.objective);
  if (rl && (r.plan.deadline_days || r.plan.budget_usd)) {
    throw InvalidRequest(r.plan.deadline_days ? "deadline_days" : "budget_usd",
                         fmt::format("a plan of {} ranks the layouts of the devices given by the "
                                     "whole step; a deadline or budget search counts devices by "
                                     "the update alone (docs/rl.md, \"Planning\")",
                                     enum_name(r.job.objective)),
                         "devices, and the ranked hours");
  }
  const std::int64_t generations_ratio = accumulation_as_global_batch(r, out.notes);
  std::vector<MachineChoice> machines = parse_machine_list(r.machines, catalog_);
  if (machines.size() > 1) return plan_each(request, machines, progress, stop);
  attach_systems(r.job.system, catalog_, machines);
  const MachineChoice& choice = machines.front();
  if (choice.system != nullptr && r.job.system.empty()) r.job.system = choice.system->id;
  if (r.plan.budget_usd && !r.job.price_usd_per_hour && !choice.device->price) {
    throw InvalidRequest("budget_usd",
                         fmt::format("{} has no price in the catalog", choice.device->id),
                         "give {price}");
  }

  // The workloads, each validated and profiled once.
  std::vector<TrainingJob> jobs = workload_jobs(r);
  std::vector<plan::Workload> workloads;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    validate(jobs[i]);
    const Recipe& own = find_recipe(jobs[i].recipe_id);
    workloads.push_back({make_profile(jobs[i], own), workload_label(jobs[i]), i,
                         job_margin(jobs[i], own, layout_of(jobs[i], own))});
  }
  const Recipe& recipe = find_recipe(r.job.recipe_id);
  const Layout base = layout_of(r.job, recipe);
  const ComputeRate* rate =
      select_rate(*choice.device, choice.dtype.value_or(recipe.compute_dtype));
  if (rate == nullptr) {
    throw InvalidRequest("machine", fmt::format("{} has no compute rate for {}", choice.device->id,
                                                enum_name(recipe.compute_dtype)));
  }
  const ClusterProfile cluster = cluster_of(r.job, choice, rate);
  // Online RL: the update beside the colocated engine's pool (the round is checked afterwards).
  const ClusterProfile searched = rl ? update_cluster(r.job, cluster) : cluster;

  plan::PlanReport& rep = out.report;
  rep.model = r.model.empty() ? fmt::format("{:g} parameters", r.job.params) : r.job.model.name;
  rep.tokens = r.job.tokens;
  rep.machine_id = choice.device->id;
  rep.machine_name = choice.device->name;
  rep.system_id = r.job.system;
  rep.objective = enum_from_name<Objective>(r.plan.objective).value_or(Objective::kTime);
  rep.deadline_days = r.plan.deadline_days;
  rep.budget_usd = r.plan.budget_usd;
  rep.seq_len = base.seq_len;
  // A preference objective's micro-batches and global batch count pairs; the layouts, rows.
  const int rows = rows_per_example(r.job.objective);
  rep.rows_per_example = rows;
  for (const plan::Workload& w : workloads) rep.workloads.push_back(w.label);

  const bool search_counts = !r.has("devices") && (r.plan.deadline_days || r.plan.budget_usd);
  std::vector<int> counts;
  if (search_counts) {
    for (std::int64_t n = 1; n <= r.plan.max_devices; n *= 2) counts.push_back(static_cast<int>(n));
    rep.mode = rep.objective == Objective::kTime && !r.plan.budget_usd ? PlanMode::kFewest
                                                                       : PlanMode::kCheapest;
  } else {
    counts.push_back(r.job.devices);
  }

  plan::SearchOptions options;
  options.stop = stop;
  options.objective = rep.objective;
  // Enough candidates to fold into r.plan.top distinct families (family_of).
  const auto families = static_cast<std::size_t>(r.plan.top);
  options.top = std::min<std::size_t>(families * kCandidatesPerFamily, kMaxCandidates);
  if (r.plan.deadline_days) options.deadline_hours = *r.plan.deadline_days * 24.0;
  options.budget_usd = r.plan.budget_usd;
  // The recompute the request gave is kept as given (all layers, or its recompute_layers).
  options.block_recompute = !r.has("recompute") && !r.has("recompute_layers");
  options.overlap_tp = !r.has("overlap_tp");
  options.offload_activations =
      !r.has("offload_activations") && !r.cleared.contains("offload_activations");

  std::vector<plan::Candidate> best;
  std::vector<plan::Candidate> misses;
  const auto merge = [](std::vector<plan::Candidate>& into,
                        const std::vector<plan::Candidate>& from, std::size_t k) {
    into.insert(into.end(), from.begin(), from.end());
    std::stable_sort(into.begin(), into.end(),
                     [](const plan::Candidate& a, const plan::Candidate& b) {
                       if (a.score != b.score) return a.score < b.score;
                       return a.layout.devices < b.layout.devices;  // ties: fewer devices
                     });
    if (into.size() > k) into.resize(k);
  };
  std::uint64_t done_before = 0;
  std::vector<plan::Candidate> over;  // fit, but past the deadline or budget, every count
  // One device count searched: its best merged in; returns whether any layout was kept.
  const auto search_count = [&](int devices) {
    plan::PlanSpace space = plan::default_space(workloads.front().profile, devices, cluster.fabric);
    pin(r, base, space);
    if (rows > 1 && !r.has("micro_batch")) {
      for (std::int64_t& b : space.micro_batch) b *= rows;
    }
    const std::int64_t global =
        rl ? rollout_global_batch(r, base)
           : r.plan.global_batch.value_or(default_global_batch(base.seq_len, job_kind(r.job)));
    space.batch_tolerance = r.plan.global_batch || rl ? 0.0 : plan::kDefaultBatchTolerance;
    rep.device_counts.push_back(devices);
    rep.devices = devices;
    rep.global_batch = global;
    const plan::Progress each = progress
                                    ? plan::Progress{[&](std::uint64_t done, std::uint64_t total) {
                                        progress(done_before + done, done_before + total);
                                      }}
                                    : plan::Progress{};
    const plan::SearchResult found =
        plan::search(workloads, base, space, devices, global * rows, searched, options, each);
    done_before += found.stats.layouts;
    add_stats(rep.stats, found.stats);
    if (rep.mode != PlanMode::kFewest) {
      merge(best, found.best, options.top);
    } else if (!found.best.empty() && (best.empty() || devices < best.front().layout.devices)) {
      best = found.best;  // the fewest devices that meet the deadline: only their layouts
    }
    misses = found.misses;  // the nearest misses of the last count searched
    over.insert(over.end(), found.over.begin(), found.over.end());
    return !found.best.empty();
  };
  const int node = std::max(1, cluster.fabric.devices_per_node);
  int found_at = 0;
  for (const int devices : counts) {
    if (search_count(devices) && found_at == 0) found_at = devices;
    if (rep.mode == PlanMode::kFewest && found_at != 0) break;
  }
  // Whole nodes between the last power of two that failed and the first that met the deadline:
  // the fewest that meet it, by bisection (a count that meets it is assumed to be met by every
  // larger one). The cheapest mode probes the same counts: fewer devices usually cost less.
  if (search_counts && found_at > node) {
    int lo = found_at / 2 / node;  // nodes known (or assumed) to miss
    int hi = found_at / node;      // nodes known to meet
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      if (search_count(mid * node)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
  }
  // Nothing met the deadline or budget: what the best that fits reaches, and by how much it
  // misses.
  if (best.empty() && !over.empty()) {
    // The least overshoot: the cheapest past the budget, the fastest past the deadline.
    const auto closest = std::min_element(
        over.begin(), over.end(),
        [](const plan::Candidate& x, const plan::Candidate& y) { return x.score < y.score; });
    rep.closest_miss = miss_of(*closest, workloads, cluster);
    misses.assign(1, *closest);
  }
  best = fold_families(best, families);
  if (!best.empty()) rep.devices = best.front().layout.devices;
  for (const plan::Candidate& m : misses) rep.misses.push_back(miss_of(m, workloads, cluster));
  if (best.empty() && misses.empty() && rep.stats.layouts == 0) {
    std::string why =
        "no layout of the space satisfies the layout rules for this model and device count";
    // One framework named: its refusal of plain data parallelism over the devices, if any.
    const std::span<const Runner> named =
        runners_of(r.job.setup.framework, job_kind(r.job) != JobKind::kPretraining);
    if (named.size() == 1) {
      Layout plain;
      plain.devices = rep.devices > 0 ? rep.devices : r.job.devices;
      const std::string words = refusal(named.front(), workloads.front().profile, plain);
      if (!words.empty()) why += fmt::format(" ({}: {})", enum_name(named.front()), words);
    }
    rep.notes.push_back(why);
  }

  // Every candidate as a whole estimate on the machine: the numbers `estimate` prints.
  int rank = 1;
  for (const plan::Candidate& c : best) {
    plan::PlanCandidate pc;
    pc.rank = rank++;
    pc.machine_id = choice.device->id;
    pc.workload = workloads[c.workload].label;
    pc.alike = c.alike;
    if (const std::optional<Runner> runner =
            runner_for(runners_of(r.job.setup.framework, job_kind(r.job) != JobKind::kPretraining),
                       workloads[c.workload].profile, c.layout)) {
      pc.runner = *runner;
    }
    TrainingJob job = job_of(jobs[c.workload], c.layout);
    if (generations_ratio > 0) {
      job.rollout.steps_per_generation = generations_ratio * c.layout.grad_accum;
    }
    pc.estimate = tb::estimate(job, machines);
    // The job carries the overlap as the cluster's; the layout says it was the plan's choice.
    pc.estimate.primary.layout.overlap_tp = c.layout.overlap_tp;
    pc.hours = c.hours;
    pc.usd = c.usd;
    pc.kwh = c.kwh;
    pc.apply = apply_fields(r, job, c.layout);
    rep.candidates.push_back(std::move(pc));
  }
  if (rl) rank_by_round(rep);
  return out;
}

}  // namespace tb::api
