// The verdict by task (docs/inference.md, "The verdict by task"): the serving estimate for
// serve, the training estimate for the fine-tunes and pretraining, the winner of each.
#include "trainbudget/eval/task_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/units/format.hpp"

namespace tb {

std::string task_duration_text(double hours) {
  if (hours >= 24.0 * 365.0) return fmt::format("{:.1f} years", hours / (24.0 * 365.0));
  if (hours >= 72.0) return fmt::format("{:.1f} days", hours / 24.0);
  return fmt::format("{:.1f} h", hours);
}

namespace {

std::string where(const TaskMachine& m) {
  return m.devices > 1 ? fmt::format("{} x {}", m.devices, m.id) : m.id;
}

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
  if (m.rate && out.devices > 0) {
    out.hours = hours(m.at_utilization);
    if (m.cost_usd) out.cost_usd = m.cost_usd->value();
  }
  if (out.devices == 0) {
    out.detail = fmt::format("{}: does not fit on up to {} devices", out.id, kMaxTaskDevices);
  } else if (out.hours) {
    out.detail = fmt::format("{}: {}{}", where(out), task_duration_text(*out.hours),
                             out.devices > 1 ? " (ZeRO-3)" : "");
  } else {
    out.detail = fmt::format("{}: no compute rate", where(out));
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

std::string training_verdict(const TaskResult& t) {
  std::vector<std::string> others;
  const TaskMachine* win = nullptr;
  for (const TaskMachine& m : t.machines) {
    if (t.winner && m.id == *t.winner) {
      win = &m;
    } else {
      others.push_back(m.detail);
    }
  }
  if (win == nullptr) {
    return fmt::format("{}: no machine fits on up to {} devices; {}", enum_name(t.task),
                       kMaxTaskDevices, fmt::join(others, "; "));
  }
  std::string out = fmt::format("{}: {} wins, {}", enum_name(t.task), where(*win),
                                task_duration_text(*win->hours));
  if (t.factor) out += fmt::format(" ({:.1f}x faster)", *t.factor);
  if (!others.empty()) out += fmt::format("; {}", fmt::join(others, "; "));
  return out;
}

TaskResult serve_task(const ServingJob& job, const std::vector<MachineChoice>& machines) {
  const ServingEstimate e = serving_estimate(job, machines);
  TaskResult t;
  t.task = Task::kServe;
  t.label =
      fmt::format("serve ({} weights, {} tokens, {} sequence{})", enum_name(job.setup.weights),
                  job.setup.context, job.setup.concurrency, job.setup.concurrency == 1 ? "" : "s");
  std::vector<std::string> others;
  for (const ServingMachine& s : e.machines) {
    TaskMachine m;
    m.id = s.device.id;
    m.name = s.device.name;
    m.fits = s.fits;
    m.fits_one_device = s.fits && s.devices == 1;
    m.devices = s.devices;
    m.memory = s.needed;
    m.capacity = s.usable;
    if (s.decode_tokens_per_s > 0.0) m.decode_tokens_per_s = s.decode_tokens_per_s;
    m.detail =
        s.fits ? fmt::format("{}: {:.1f} tokens/s per sequence", m.id, s.decode_tokens_per_s)
               : fmt::format("{}: does not fit (needs {}, {} usable)", m.id, s.needed, s.usable);
    t.machines.push_back(std::move(m));
  }
  pick_winner(t, true);
  for (const TaskMachine& m : t.machines) {
    if (!t.winner || m.id != *t.winner) others.push_back(m.detail);
  }
  if (!t.winner) {
    t.verdict = fmt::format("serve: no machine holds the model; {}", fmt::join(others, "; "));
  } else {
    const auto win = std::find_if(t.machines.begin(), t.machines.end(),
                                  [&](const TaskMachine& m) { return m.id == *t.winner; });
    t.verdict = fmt::format("serve: {} wins, {:.1f} tokens/s per sequence", win->id,
                            *win->decode_tokens_per_s);
    if (t.factor) t.verdict += fmt::format(" ({:.1f}x)", *t.factor);
    if (!others.empty()) t.verdict += fmt::format("; {}", fmt::join(others, "; "));
  }
  return t;
}

}  // namespace

TaskComparison compare_tasks(const CompareInputs& in, const std::vector<MachineChoice>& machines) {
  TaskComparison out;
  out.params = in.training.params;
  if (in.training.model.architecture) out.model = in.training.model.name;
  out.tasks.push_back(serve_task(in.serving, machines));
  const auto train = [&](Task task, Method method, double tokens, std::optional<int> devices,
                         std::string label) {
    TrainingJob job = in.training;
    job.method = method;
    job.tokens = tokens;
    TaskResult t;
    t.task = task;
    t.label = std::move(label);
    t.tokens = tokens;
    for (const MachineChoice& c : machines) t.machines.push_back(training_machine(job, c, devices));
    pick_winner(t, false);
    t.verdict = training_verdict(t);
    out.tasks.push_back(std::move(t));
  };
  const double ft = in.training.tokens;
  const std::string rank =
      in.training.model.architecture
          ? fmt::format("rank {}", in.training.lora.rank)
          : fmt::format("{:g} % trainable", in.training.trainable_fraction * 100);
  train(Task::kQlora, Method::kQlora, ft, std::nullopt,
        fmt::format("QLoRA fine-tune ({}, {})", rank, Tokens{ft}));
  train(Task::kLora, Method::kLora, ft, std::nullopt,
        fmt::format("LoRA fine-tune ({}, {})", rank, Tokens{ft}));
  train(Task::kFull, Method::kFull, ft, std::nullopt,
        fmt::format("full fine-tune ({})", Tokens{ft}));
  const double pt = in.pretrain_tokens.value_or(kChinchillaTokensPerParam * in.training.params);
  train(Task::kPretrain, Method::kFull, pt, in.pretrain_devices,
        fmt::format("pretraining ({})", Tokens{pt}));
  return out;
}

}  // namespace tb
