// The smallest change that makes an online RL job fit its machine (docs/rl.md, "What to
// change"): the changes practitioners reach for, tried in every combination on the job's own
// devices, each priced with its generation round (the engine's pool or cache, PPO's critics).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/rollout.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/plan/advice.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::plan {
namespace {

// The searches' upper ends: the longest completion the field takes, and a micro-batch past any
// device's memory.
constexpr std::int64_t kMaxRolloutLength = 1048576;
constexpr std::int64_t kMaxRolloutMicroBatch = 65536;
// The most devices the fewest-devices search tries (as the supervised advice's).
constexpr int kMaxRolloutDevices = 4096;

// One change: what it does to the job, the flags that say it, its words, and how much of the job
// it changes (the scale of advice.cpp: kernel choices 1-2, sharding 1 a stage, the engine's
// placement 4, the method 11).
struct Change {
  std::function<void(TrainingJob&)> apply;
  std::vector<std::pair<std::string, std::string>> flags;
  std::string words;
  int distance{0};
};

// The options of one knob; the first is always "as given".
using Axis = std::vector<Change>;

struct Point {
  bool fits{false};
  Bytes peak;
  double hours{0.0};
  RolloutCost rollout;
};

// The job priced as the estimate prices it on one machine: its step, PPO's critics, the round.
Point price(const TrainingJob& job, const MachineChoice& machine) {
  Point p;
  const Recipe& recipe = find_recipe(job.recipe_id);
  const ComputeRate* rate =
      select_rate(*machine.device, machine.dtype.value_or(recipe.compute_dtype));
  if (rate == nullptr) return p;
  const ModelProfile profile = make_profile(job, recipe);
  const Layout layout = layout_of(job, recipe);
  if (!layout_problems(profile, layout).empty()) return p;
  const ClusterProfile cluster = cluster_of(job, machine, rate);
  StepCost cost = evaluate(profile, layout, cluster);
  try {
    p.rollout = apply_rollout(job, recipe, profile, layout, cluster, machine, cost);
  } catch (const InvalidRequest&) {
    return p;
  }
  p.peak = cost.memory;
  p.fits = cost.status == Status::kFits;
  p.hours = hours(cost.at_utilization);
  return p;
}

// The job spread over n devices with its weights, gradients and states sharded.
TrainingJob on_devices(TrainingJob job, int n) {
  job.devices = n;
  job.zero_stage = 3;
  return job;
}

std::vector<Axis> axes(const TrainingJob& job, const Point& given) {
  std::vector<Axis> out;
  const TrainingSetup s = resolved_setup(job.setup, 0);
  if (s.recompute != Recompute::kFull) {
    out.push_back({{},
                   {[](TrainingJob& j) { j.setup.recompute = Recompute::kFull; },
                    {{"recompute", "full"}},
                    "recompute full (gradient checkpointing)",
                    2}});
  }
  if (s.loss && s.loss->impl == LossImpl::kFull) {
    out.push_back({{},
                   {[](TrainingJob& j) {
                      j.setup.loss = LossSpec{LossImpl::kChunked, 8};
                    },
                    {{"loss", "chunked:8"}},
                    "a chunked cross-entropy",
                    1}});
  }
  // A smaller micro-batch and more accumulation: the same completions a step (and a given
  // steps_per_generation grows with it, the same completions a generation batch).
  Axis micro{{}};
  for (std::int64_t b = s.micro_batch / 2; b >= 1; b /= 2) {
    if (s.micro_batch % b != 0) continue;
    const std::int64_t accum = s.grad_accumulation * (s.micro_batch / b);
    const std::int64_t spg = job.rollout.steps_per_generation * (s.micro_batch / b);
    std::vector<std::pair<std::string, std::string>> flags{{"micro_batch", std::to_string(b)},
                                                           {"grad_accum", std::to_string(accum)}};
    if (spg > 0) flags.emplace_back("steps_per_generation", std::to_string(spg));
    micro.push_back({[b, accum, spg](TrainingJob& j) {
                       j.setup.micro_batch = b;
                       j.setup.grad_accumulation = accum;
                       j.rollout.steps_per_generation = spg;
                     },
                     std::move(flags), fmt::format("micro-batch {} x grad-accum {}", b, accum), 1});
  }
  if (micro.size() > 1) out.push_back(std::move(micro));
  // Where the engine sits: asleep while training, a pool that leaves the trainer room, or a
  // server on a device of its own.
  const RolloutSpec& rl = job.rollout;
  Axis engine{{}};
  if (rl.engine == RolloutEngine::kColocate) {
    if (!rl.vllm_enable_sleep_mode) {
      engine.push_back({[](TrainingJob& j) { j.rollout.vllm_enable_sleep_mode = true; },
                        {{"vllm_enable_sleep_mode", "true"}},
                        "vLLM sleep mode while training",
                        1});
    }
    const RolloutCost& r = given.rollout;
    // The range's low end, rounded up to a hundredth, when it lies below the given share.
    const double share = std::ceil(r.utilization_min * 100.0) / 100.0;
    if (r.utilization_min <= r.utilization_max && share <= r.utilization_max &&
        share < rl.vllm_gpu_memory_utilization) {
      engine.push_back({[share](TrainingJob& j) { j.rollout.vllm_gpu_memory_utilization = share; },
                        {{"vllm_gpu_memory_utilization", fmt::format("{:g}", share)}},
                        fmt::format("a vLLM pool of {:g} of the device", share),
                        1});
    }
  }
  if (job.objective != tb::Objective::kPpo && rl.engine != RolloutEngine::kServer) {
    engine.push_back({[](TrainingJob& j) {
                        j.rollout.engine = RolloutEngine::kServer;
                        j.rollout.vllm_server_devices = 1;
                        j.rollout.vllm_enable_sleep_mode = false;
                      },
                      {{"rollout_engine", "server"}, {"vllm_server_devices", "1"}},
                      "generation on a vLLM server of one device of its own",
                      4});
  }
  if (engine.size() > 1) out.push_back(std::move(engine));
  if (job.devices > 1 && job.zero_stage < 3) {
    const int from = job.zero_stage;
    out.push_back({{},
                   {[](TrainingJob& j) { j.zero_stage = 3; },
                    {{"zero", "3"}},
                    "ZeRO-3 (weights, gradients and states sharded)",
                    3 - from}});
  }
  if (job.method == Method::kFull || job.method == Method::kFreeze) {
    out.push_back({{},
                   {[](TrainingJob& j) { j.method = Method::kLora; },
                    {{"method", "lora"}},
                    !reference_weights(job) ? "LoRA"
                    : job.objective == tb::Objective::kPpo
                        ? "LoRA on the policy (no reference copy; the value model stays full)"
                        : "LoRA (no reference copy: the base with its adapters off)",
                    11}});
  }
  return out;
}

Advice advice_of(const char* kind, const Change* first, const std::vector<const Change*>& picked,
                 const Point& p, int devices) {
  Advice a;
  a.kind = kind;
  a.memory = p.peak;
  a.hours = p.hours;
  a.devices = devices;
  std::vector<std::string> words;
  if (first != nullptr) {
    words.push_back(first->words);
    a.changes = first->flags;
  }
  for (const Change* c : picked) {
    words.push_back(c->words);
    a.changes.insert(a.changes.end(), c->flags.begin(), c->flags.end());
  }
  a.summary = fmt::format("{}", fmt::join(words, ", "));
  return a;
}

struct Found {
  std::vector<const Change*> picked;
  Point point;
  int distance{0};
};

// Every combination of the knobs, one option an axis (the first: as given; the all-given one
// only with `with_given`), that fits.
std::vector<Found> combinations(const TrainingJob& job, const MachineChoice& machine,
                                const std::vector<Axis>& knobs, bool with_given) {
  std::vector<Found> fitting;
  if (with_given) {
    Found f;
    f.point = price(job, machine);
    if (f.point.fits) fitting.push_back(std::move(f));
  }
  std::vector<std::size_t> at(knobs.size(), 0);
  while (true) {
    std::size_t k = 0;
    while (k < knobs.size() && ++at[k] == knobs[k].size()) at[k++] = 0;
    if (k == knobs.size()) break;
    TrainingJob changed = job;
    Found f;
    for (std::size_t i = 0; i < knobs.size(); ++i) {
      if (at[i] == 0) continue;
      knobs[i][at[i]].apply(changed);
      f.picked.push_back(&knobs[i][at[i]]);
      f.distance += knobs[i][at[i]].distance;
    }
    f.point = price(changed, machine);
    if (f.point.fits) fitting.push_back(std::move(f));
  }
  return fitting;
}

}  // namespace

std::vector<Advice> advise_rollout(const TrainingJob& job, const MachineChoice& machine) {
  const Point given = price(job, machine);
  if (given.fits) return {};
  std::vector<Axis> knobs = axes(job, given);
  std::vector<Found> fitting = combinations(job, machine, knobs, false);
  Change wider;  // more devices, when nothing on the job's own fits
  int devices = job.devices;
  for (int n = std::max(2, job.devices * 2); fitting.empty() && n <= kMaxRolloutDevices; n *= 2) {
    // The fewest devices (doubling, ZeRO-3) on which some combination fits; a count where even
    // every change at once does not is skipped unsearched.
    const TrainingJob wide = on_devices(job, n);
    std::vector<Axis> more = axes(wide, price(wide, machine));
    TrainingJob lean = wide;
    for (const Axis& a : more) a.back().apply(lean);
    if (!price(lean, machine).fits) continue;
    knobs = std::move(more);
    fitting = combinations(wide, machine, knobs, true);
    devices = n;
    wider.flags = {{"devices", std::to_string(n)}, {"zero", "3"}};
    wider.words = fmt::format("{} devices with ZeRO-3", n);
  }
  if (fitting.empty()) return {};
  const Change* first = devices != job.devices ? &wider : nullptr;
  const auto smaller = [](const Found& a, const Found& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.point.hours < b.point.hours;
  };
  const Found& smallest = *std::min_element(fitting.begin(), fitting.end(), smaller);
  std::vector<Advice> out{advice_of("smallest", first, smallest.picked, smallest.point, devices)};
  const Found& fastest = *std::min_element(
      fitting.begin(), fitting.end(),
      [](const Found& a, const Found& b) { return a.point.hours < b.point.hours; });
  if (&fastest != &smallest && fastest.point.hours < smallest.point.hours * 0.95) {
    out.push_back(advice_of("fastest", first, fastest.picked, fastest.point, devices));
  }
  return out;
}

int rollout_devices_to_fit(const TrainingJob& job, const MachineChoice& machine) {
  for (int n = std::max(2, job.devices * 2); n <= kMaxRolloutDevices; n *= 2) {
    if (price(on_devices(job, n), machine).fits) return n;
  }
  return 0;
}

RolloutLimits rollout_limits(const TrainingJob& job, const MachineChoice& machine) {
  RolloutLimits out;
  // The largest n in [1, hi] for which `fits(n)` holds, memory growing with n; 0 when none.
  const auto largest = [](std::int64_t hi, const std::function<bool(std::int64_t)>& fits) {
    if (!fits(1)) return std::int64_t{0};
    std::int64_t lo = 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  };
  // No longer than the model's positions leave after the prompt.
  std::int64_t longest = kMaxRolloutLength;
  if (job.model.architecture && job.model.architecture->max_positions > 0) {
    longest = std::min(longest, std::max<std::int64_t>(1, job.model.architecture->max_positions -
                                                              job.rollout.max_prompt_length));
  }
  out.max_completion_length = largest(longest, [&](std::int64_t n) {
    TrainingJob j = job;
    j.rollout.max_completion_length = n;
    j.setup.seq_len = trained_seq_len(j.rollout);
    return price(j, machine).fits;
  });
  // Whole groups: micro_batch x steps_per_generation x devices a multiple of num_generations.
  const std::int64_t others =
      generation_steps(job.rollout, job.setup.grad_accumulation) * job.devices;
  const std::int64_t g = job.rollout.num_generations;
  const std::int64_t step = g / std::gcd(g, others);
  const std::int64_t most = largest(kMaxRolloutMicroBatch / step, [&](std::int64_t k) {
    TrainingJob j = job;
    j.setup.micro_batch = k * step;
    return price(j, machine).fits;
  });
  out.micro_batch = most * step;
  return out;
}

}  // namespace tb::plan
