// The verdict by task (docs/inference.md, "The verdict by task"): the serving estimate for
// serve, the training estimate for the fine-tunes and pretraining, the winner of each.
#include "trainbudget/eval/task_verdict.hpp"

#include <algorithm>

#include "trainbudget/eval/estimate.hpp"

namespace tb {

namespace {

// One estimate of `job` on one machine at `devices` (ZeRO-3 over more than one).
MachineEstimate one(TrainingJob job, const MachineChoice& choice, int devices) {
  job.devices = devices;
  job.zero_stage = devices > 1 ? 3 : 0;
  return tb::estimate(job, {choice}).primary.machines.front();
}

TaskMachine training_machine(const TrainingJob& job, const MachineChoice& choice,
                             std::optional<int> devices) {
  TaskMachine out;
  out.id = choice.device->id;
  out.name = choice.device->name;
  MachineEstimate m = one(job, choice, devices.value_or(1));
  out.devices = devices.value_or(1);
  out.fits = m.fits;
  out.fits_one_device = m.fits && out.devices == 1;
  if (!m.fits && !devices) {
    // The fewest devices (powers of two, ZeRO-3 / FSDP) that hold it.
    out.devices = 0;
    for (int n = 2; n <= kMaxTaskDevices; n *= 2) {
      MachineEstimate at = one(job, choice, n);
      // Past a node of a system with no network, more devices cannot be one job: the search
      // ends there, and the verdict says why (not memory).
      if (at.verdict == Verdict::kNoNetwork) {
        out.node_limit = at.node_devices;
        out.system_id = at.system_id;
        break;
      }
      if (at.fits) {
        m = std::move(at);
        out.devices = n;
        out.fits = true;
        break;
      }
    }
  }
  out.memory = m.numbers.allocated;
  out.capacity = m.allocatable;
  // Online RL on the policy's generate(): under ZeRO-3 the weights are gathered whole for
  // generation (rollout.cpp), so more devices cannot help once they alone overflow one.
  if (out.devices == 0 && online_rl(job.objective) && out.node_limit == 0) {
    const Bytes weights{job.params * 2.0};
    if (weights > out.capacity) {
      out.gathers_whole_model = true;
      out.memory = weights;
    }
  }
  out.has_rate = m.rate.has_value();
  if (m.rate && out.devices > 0) {
    out.hours = hours(m.at_utilization);
    if (m.cost_usd) out.cost_usd = m.cost_usd->value();
  }
  return out;
}

// The winner: among the machines that fit (serve: on its devices; training: on the fewest
// devices that hold the task), the fastest; the factor over the runner-up that fits too.
void pick_winner(TaskResult& t, bool higher_is_better) {
  std::vector<std::pair<double, const TaskMachine*>> ranked;
  for (const TaskMachine& m : t.machines) {
    const std::optional<double> v = higher_is_better ? m.decode_tokens_per_s : m.hours;
    if (m.fits && v && *v > 0.0) ranked.emplace_back(*v, &m);
  }
  std::sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    return higher_is_better ? a.first > b.first : a.first < b.first;
  });
  if (ranked.empty()) return;
  t.winner = ranked.front().second->id;
  if (ranked.size() > 1) {
    t.factor =
        higher_is_better ? ranked[0].first / ranked[1].first : ranked[1].first / ranked[0].first;
  }
}

// Serving gets the same device freedom as training: the fewest devices that serve the request
// (tensor parallel inside a node, pipeline stages past it), timed within a node.
TaskResult serve_task(const ServingJob& job, const std::vector<MachineChoice>& machines) {
  TaskResult t;
  t.task = Task::kServe;
  for (const MachineChoice& choice : machines) {
    const ServingSize size = serving_size(job, choice);
    ServingJob at = job;
    at.setup.tp = size.tp;
    const ServingMachine s = serving_estimate(at, {choice}).machines.front();
    TaskMachine m;
    m.id = choice.device->id;
    m.name = choice.device->name;
    m.fits = size.devices > 0;
    m.fits_one_device = size.fits && size.devices == 1;
    m.devices = size.devices;
    m.tp = size.tp;
    m.pp = size.pp;
    m.memory = s.needed;
    m.capacity = s.usable;
    // Timed only where it runs and the pipeline is not in the way.
    if (size.fits && s.decode_tokens_per_s > 0.0) {
      m.decode_tokens_per_s = s.decode_tokens_per_s;
      const double price = choice.device->price ? choice.device->price->usd_per_hour.value() : 0.0;
      if (price > 0.0 && s.aggregate_tokens_per_s > 0.0) {
        m.usd_per_million_tokens = price * size.devices / (s.aggregate_tokens_per_s * 3600.0) * 1e6;
      }
    }
    t.machines.push_back(std::move(m));
  }
  pick_winner(t, true);
  return t;
}

}  // namespace

TaskComparison compare_tasks(const CompareInputs& in, const std::vector<MachineChoice>& machines) {
  TaskComparison out;
  out.params = in.training.params;
  if (in.training.model.architecture) out.model = in.training.model.name;
  out.serving = in.serving.setup;
  out.lora_rank = in.training.model.architecture ? in.training.lora.rank : 0;
  out.trainable_fraction = in.training.trainable_fraction;
  out.rollout = in.training.rollout;
  out.tasks.push_back(serve_task(in.serving, machines));
  const auto train = [&](Task task, Method method, double tokens, std::optional<int> devices,
                         Objective objective = Objective::kSft) {
    TrainingJob job = in.training;
    job.method = method;
    job.tokens = tokens;
    job.objective = objective;
    if (objective == Objective::kGrpo) {
      // One prompt's group of completions a micro-batch, on the policy's own generate() (TRL's
      // defaults: num_generations 8, use_vllm False); the sequence is prompt + completion.
      job.setup.micro_batch = job.rollout.num_generations;
      job.setup.grad_accumulation = 1;
      job.setup.seq_len = trained_seq_len(job.rollout);
    }
    // Each task is what it says: the pretraining task pretrains, the fine-tunes fine-tune.
    job.kind = task == Task::kPretrain ? JobKind::kPretraining : JobKind::kFineTuning;
    TaskResult t;
    t.task = task;
    t.tokens = tokens;
    for (const MachineChoice& c : machines) t.machines.push_back(training_machine(job, c, devices));
    pick_winner(t, false);
    out.tasks.push_back(std::move(t));
  };
  const double ft = in.training.tokens;
  train(Task::kQlora, Method::kQlora, ft, std::nullopt);
  train(Task::kLora, Method::kLora, ft, std::nullopt);
  // Preference and online RL fine-tunes under LoRA (docs/rl.md): DPO's pairs beside the
  // adapter-free reference, GRPO's generation round (an architecture sizes its KV cache).
  train(Task::kDpo, Method::kLora, ft, std::nullopt, Objective::kDpo);
  if (in.training.model.architecture) {
    train(Task::kGrpo, Method::kLora, ft, std::nullopt, Objective::kGrpo);
  }
  train(Task::kFull, Method::kFull, ft, std::nullopt);
  const double pt = in.pretrain_tokens.value_or(kChinchillaTokensPerParam * in.training.params);
  train(Task::kPretrain, Method::kFull, pt, in.pretrain_devices);
  return out;
}

}  // namespace tb
