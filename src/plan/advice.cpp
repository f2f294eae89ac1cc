// The planner asked the question an estimate's verdict answers: what is the smallest change
// that makes this job fit this machine?
#include "trainbudget/plan/advice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "trainbudget/eval/memory_margin.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb::plan {
namespace {

// How much of the job a change changes, in the order practitioners try them (docs/scale.md,
// "Advice"): what the user asked -- method, optimizer, precision, global batch -- is kept
// whenever a kernel or layout choice fits. Kernel choices first (recompute, a chunked loss,
// micro-batch x grad-accum: 1-2), then sharding (ZeRO: 1 a stage), host memory (offload: 3),
// more devices (6); only then the optimizer's storage (an 8-bit optimizer: 10) and the method
// (LoRA 11, QLoRA 12).
int distance(const TrainingJob& job, const Layout& from, const TrainingJob& to, const Layout& l) {
  int d = 0;
  // Full recomputation of every layer costs a third more compute; of some layers, less.
  if (l.recompute != from.recompute || l.recompute_layers != from.recompute_layers) {
    d += l.recompute == Recompute::kFull && l.recompute_layers < 0 ? 2 : 1;
  }
  if (l.micro_batch != from.micro_batch) d += 1;
  if (to.setup.loss != job.setup.loss) d += 1;
  d += std::abs(l.zero_stage - from.zero_stage);
  if (l.parallel.offload != from.parallel.offload) d += 3;
  if (l.offload_activations != from.offload_activations) d += 3;
  if (l.devices != from.devices) d += 6;
  if (to.recipe_id != job.recipe_id) d += 10;
  if (to.method != job.method) d += to.method == Method::kQlora ? 12 : 11;
  return d;
}

Advice advice_of(const char* kind, const TrainingJob& job, const Layout& from,
                 const TrainingJob& to, const Candidate& c) {
  Advice a;
  a.kind = kind;
  a.memory = c.cost.memory;
  a.hours = c.hours;
  a.devices = c.layout.devices;
  a.mfu = c.cost.time.mfu;
  const Layout& l = c.layout;
  std::vector<std::string> words;
  const auto change = [&](std::string key, std::string value, std::string what) {
    a.changes.emplace_back(std::move(key), std::move(value));
    words.push_back(std::move(what));
  };
  if (l.devices != from.devices) {
    change("devices", std::to_string(l.devices), fmt::format("{} devices", l.devices));
  }
  if (to.method != job.method) {
    change("method", std::string{enum_name(to.method)},
           to.model.architecture ? fmt::format("{} r{} on {}", enum_name(to.method), to.lora.rank,
                                               fmt::join(to.lora.targets, ","))
                                 : std::string{enum_name(to.method)});
  }
  if (to.recipe_id != job.recipe_id) {
    change("recipe", to.recipe_id, fmt::format("recipe {}", to.recipe_id));
  }
  if (to.setup.loss != job.setup.loss && to.setup.loss) {
    change("loss", loss_name(*to.setup.loss),
           fmt::format("{} cross-entropy", loss_name(*to.setup.loss)));
  }
  const bool blocks = l.recompute == Recompute::kFull && l.recompute_layers >= 0;
  const std::string first = fmt::format("the first {} layers{}", l.recompute_layers,
                                        l.parallel.pp > 1 ? " per stage" : "");
  if (l.recompute != from.recompute) {
    change("recompute", std::string{enum_name(l.recompute)},
           blocks ? fmt::format("recompute full on {}", first)
                  : fmt::format("recompute {}", enum_name(l.recompute)));
  }
  if (blocks && l.recompute_layers != from.recompute_layers) {
    change("recompute_layers", std::to_string(l.recompute_layers),
           fmt::format("recompute only {}", first));
    if (l.recompute != from.recompute) words.pop_back();
  }
  if (l.micro_batch != from.micro_batch) {
    change("micro_batch", std::to_string(l.micro_batch),
           fmt::format("micro-batch {} x grad-accum {}", l.micro_batch, l.grad_accum));
    change("grad_accum", std::to_string(l.grad_accum), "");
    words.pop_back();
  } else if (l.grad_accum != from.grad_accum) {
    // More micro-batches a step: a larger global batch, said as such.
    change("grad_accum", std::to_string(l.grad_accum),
           fmt::format("grad-accum {} (global batch {} sequences)", l.grad_accum,
                       static_cast<std::int64_t>(l.dp()) * l.micro_batch * l.grad_accum));
  }
  if (l.parallel.virtual_stages != from.parallel.virtual_stages) {
    change("virtual_stages", std::to_string(l.parallel.virtual_stages),
           fmt::format("{} virtual stages", l.parallel.virtual_stages));
  }
  if (l.parallel.shard_group != from.parallel.shard_group) {
    change("shard_group", std::to_string(l.parallel.shard_group),
           fmt::format("hybrid sharding over {} ranks", l.parallel.shard_group));
  }
  if (l.zero_stage != from.zero_stage) {
    change("zero", std::to_string(l.zero_stage), fmt::format("ZeRO-{}", l.zero_stage));
  }
  if (l.parallel.offload != from.parallel.offload) {
    change("offload", std::string{enum_name(l.parallel.offload)},
           fmt::format("offload {}", enum_name(l.parallel.offload)));
  }
  if (l.offload_activations != from.offload_activations) {
    change("offload_activations", l.offload_activations ? "true" : "false",
           "offload activations to the host");
  }
  a.summary = fmt::format("{}", fmt::join(words, ", "));
  return a;
}

// A bound step's advice: searched up to 16 times the global batch asked, and offered when it
// saves at least a fifth of the time (decision rules, not measured figures).
constexpr std::int64_t kMostBatchGrowth = 16;
constexpr double kWorthIt = 0.20;

// Two fixes of about the same time (within 15 %), one with at least a tenth less memory and
// twice as much memory saved as time lost (in shares): the roomier is advised (a decision rule,
// not a measured figure).
constexpr double kSimilarTime = 0.15;
constexpr double kMoreRoom = 0.10;
constexpr double kRoomPerTime = 2.0;

// The kernel choice that keeps everything else: a cross-entropy in chunks (8 of the sequence),
// which never holds the whole logits and their fp32 copy (Liger Kernel's and torchtune's chunked
// loss; docs/frameworks.md), where the loss computes them whole.
constexpr LossSpec kChunkedLoss{LossImpl::kChunked, 8};

std::vector<TrainingJob> variants(const TrainingJob& job) {
  std::vector<TrainingJob> out{job};
  // A chunked loss where the job's loss holds whole logits (full), or where the user left it to
  // the framework: pinning it also takes the loss out of the memory band, so the margin the
  // change must keep is the allocator's alone (eval/memory_margin.hpp).
  const std::optional<LossSpec> loss = resolved_setup(job.setup, 0).loss;
  if (job.model.architecture && loss && loss->impl != LossImpl::kChunked &&
      (loss->impl == LossImpl::kFull || !job.setup.loss)) {
    TrainingJob chunked = job;
    chunked.setup.loss = kChunkedLoss;
    out.push_back(chunked);
  }
  // An 8-bit optimizer for the Adam recipes that keep fp32 moments (Dettmers et al. 2022).
  const Recipe& r = find_recipe(job.recipe_id);
  const bool low_bit = job.recipe_id == "adam-8bit" || job.recipe_id == "paged-adam-8bit" ||
                       job.recipe_id == "bf16-adam-8bit" || job.recipe_id == "adam-4bit" ||
                       job.recipe_id == "bf16-adam-4bit";
  if (r.compute_dtype == DType::kBf16 && !low_bit && job.method != Method::kQlora) {
    TrainingJob eight = job;
    eight.recipe_id = "adam-8bit";
    out.push_back(eight);
  }
  // Adapters adapt a trained model: never offered for pretraining.
  if (job_kind(job) == JobKind::kPretraining) return out;
  if (job.method == Method::kFull || job.method == Method::kFreeze) {
    TrainingJob lora = job;
    lora.method = Method::kLora;
    out.push_back(lora);
  }
  if (job.method != Method::kQlora && (job.model.architecture || job.method == Method::kFull)) {
    TrainingJob qlora = job;
    qlora.method = Method::kQlora;
    out.push_back(qlora);
  }
  return out;
}

}  // namespace

std::vector<Advice> advise(const TrainingJob& job, const MachineChoice& machine) {
  const Recipe& recipe = find_recipe(job.recipe_id);
  const ComputeRate* rate =
      select_rate(*machine.device, machine.dtype.value_or(recipe.compute_dtype));
  const ClusterProfile cluster = cluster_of(job, machine, rate);
  const Layout from = layout_of(job, recipe);
  const std::vector<TrainingJob> jobs = variants(job);
  std::vector<Workload> workloads;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Recipe& own = find_recipe(jobs[i].recipe_id);
    workloads.push_back({make_profile(jobs[i], own), "", i, job_margin(jobs[i], own, from)});
  }
  PlanSpace space;
  space.tp = {from.parallel.tp};
  space.pp = {from.parallel.pp};
  space.cp = {from.parallel.cp};
  space.ep = {from.parallel.ep};
  space.virtual_stages = {from.parallel.virtual_stages};
  for (std::int64_t b = 1; b <= from.micro_batch; b *= 2) {
    if (from.micro_batch % b == 0) space.micro_batch.push_back(b);
  }
  if (std::find(space.micro_batch.begin(), space.micro_batch.end(), from.micro_batch) ==
      space.micro_batch.end()) {
    space.micro_batch.push_back(from.micro_batch);
  }
  space.recompute =
      workloads.front().profile.has_architecture
          ? std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull}
          : std::vector<Recompute>{from.recompute};
  for (int z = from.zero_stage; z <= 3; ++z) {
    if (z == from.zero_stage || from.dense_shards() > 1) space.zero.push_back(z);
  }
  space.offload = {Offload::kNone, Offload::kOptimizer};
  space.shard_group = {from.parallel.shard_group};
  // Only changes the job's framework runs (eval/runner_rules.hpp).
  const std::span<const Runner> runners =
      runners_of(job.setup.framework, job_kind(job) != JobKind::kPretraining);
  space.runners.assign(runners.begin(), runners.end());
  const std::int64_t global =
      static_cast<std::int64_t>(from.dp()) * from.micro_batch * from.grad_accum;
  SearchOptions o;
  o.top = 4096;
  o.misses = 0;
  o.threads = 1;
  SearchResult found = search(workloads, from, space, from.devices, global, cluster, o);

  // Nothing keeps the method and optimizer on these devices: the fewest devices (doubling, the
  // same per-device batch) with ZeRO-3 that does, beside what fits here.
  const auto keeps_method = [&](const Candidate& c) {
    return jobs[c.workload].method == job.method && jobs[c.workload].recipe_id == job.recipe_id;
  };
  if (std::none_of(found.best.begin(), found.best.end(), keeps_method)) {
    PlanSpace more = space;
    more.zero = {3};
    more.offload = {Offload::kNone};
    const std::vector<Workload> same{workloads.front()};
    SearchResult wider;
    for (std::int64_t n = std::int64_t{from.devices} * 2; n <= 4096 && wider.best.empty(); n *= 2) {
      const std::int64_t g = global * (n / from.devices);
      wider = search(same, from, more, static_cast<int>(n), g, cluster, o);
    }
    found.best.insert(found.best.end(), wider.best.begin(), wider.best.end());
  }
  if (found.best.empty()) return {};
  const auto dist = [&](const Candidate& c) {
    return distance(job, from, jobs[c.workload], c.layout);
  };
  const Candidate* smallest = &found.best.front();
  for (const Candidate& c : found.best) {
    const int d = dist(c);
    const int best = dist(*smallest);
    if (d < best || (d == best && c.hours < smallest->hours)) smallest = &c;
  }
  // Among changes of about the same size and time, the one that leaves more room: recomputing
  // every layer rather than the fewest that fit, when it costs little more (a decision rule:
  // a fix at the margin's edge is one framework detail from an OOM).
  const Candidate* const least = smallest;
  for (const Candidate& c : found.best) {
    if (dist(c) <= dist(*least) + 1 && c.layout.devices == least->layout.devices &&
        jobs[c.workload].method == jobs[least->workload].method &&
        c.hours <= least->hours * (1.0 + kSimilarTime) &&
        c.cost.memory < smallest->cost.memory * (1.0 - kMoreRoom) &&
        1.0 - c.cost.memory / least->cost.memory >
            kRoomPerTime * std::max(0.0, c.hours / least->hours - 1.0)) {
      smallest = &c;
    }
  }
  std::vector<Advice> out{advice_of("smallest", job, from, jobs[smallest->workload], *smallest)};
  // The smallest change may cost days (host offload); the fastest that still keeps the method
  // (a different optimizer, ZeRO, more devices) is shown when it takes under half the time.
  const Candidate* same = nullptr;
  for (const Candidate& c : found.best) {
    if (jobs[c.workload].method != job.method) continue;
    if (same == nullptr || c.hours < same->hours) same = &c;
  }
  if (same != nullptr && same != smallest && same->hours < smallest->hours * 0.5) {
    out.push_back(advice_of("same_method", job, from, jobs[same->workload], *same));
  }
  const Candidate& fastest =
      *std::min_element(found.best.begin(), found.best.end(),
                        [](const Candidate& a, const Candidate& b) { return a.hours < b.hours; });
  if (&fastest != smallest && &fastest != same && fastest.hours < smallest->hours * 0.95 &&
      (same == nullptr || fastest.hours < same->hours * 0.95)) {
    out.push_back(advice_of("fastest", job, from, jobs[fastest.workload], fastest));
  }
  return out;
}

std::optional<Advice> advise_unbound(const TrainingJob& job, const MachineChoice& machine) {
  const Recipe& recipe = find_recipe(job.recipe_id);
  const ComputeRate* rate =
      select_rate(*machine.device, machine.dtype.value_or(recipe.compute_dtype));
  if (rate == nullptr || !job.model.architecture || job.utilization) return std::nullopt;
  const ClusterProfile cluster = cluster_of(job, machine, rate);
  const Layout from = layout_of(job, recipe);
  const ModelProfile profile = make_profile(job, recipe);
  const StepCost now = evaluate(profile, from, cluster);
  if (now.status != Status::kFits || from.devices < 2 ||
      (now.time.bound != Bound::kCommunication && now.time.bound != Bound::kPipeline)) {
    return std::nullopt;
  }
  const std::vector<Workload> workloads{{profile, "", 0, job_margin(job, recipe, from)}};
  PlanSpace space = default_space(profile, from.devices, cluster.fabric);
  space.tp = {from.parallel.tp};
  space.pp = {from.parallel.pp};
  space.cp = {from.parallel.cp};
  space.ep = {from.parallel.ep};
  if (from.parallel.pp == 1) space.virtual_stages = {1};
  space.micro_batch = {from.micro_batch};
  space.recompute = {from.recompute};
  space.offload = {from.parallel.offload};
  const std::span<const Runner> runners =
      runners_of(job.setup.framework, job_kind(job) != JobKind::kPretraining);
  space.runners.assign(runners.begin(), runners.end());
  SearchOptions o;
  o.top = 1;
  o.misses = 0;
  o.threads = 1;
  o.block_recompute = false;
  o.offload_activations = false;
  const std::int64_t global =
      static_cast<std::int64_t>(from.dp()) * from.micro_batch * from.grad_accum;
  std::optional<Candidate> best;
  // The collectives (and the pipeline's fill and drain) are paid once a step: more
  // micro-batches a step spread them over more tokens, up to 16 times the batch asked.
  for (std::int64_t k = 1; k <= kMostBatchGrowth; k *= 2) {
    const SearchResult found = search(workloads, from, space, from.devices, global * k, cluster, o);
    if (!found.best.empty() && (!best || found.best.front().hours < best->hours)) {
      best = found.best.front();
    }
  }
  const double hours_now = now.at_utilization.count() / 3600.0;
  if (!best || best->hours > hours_now * (1.0 - kWorthIt)) return std::nullopt;
  return advice_of("unbound", job, from, job, *best);
}

}  // namespace tb::plan
