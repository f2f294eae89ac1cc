// The verdict by task in words.
#include "trainbudget/report/task_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "trainbudget/units/format.hpp"

namespace tb::report {
namespace {

std::string where(const TaskMachine& m) {
  if (m.devices > 1 && m.pp > 1) {
    return fmt::format("{} x {} (TP {} x PP {})", m.devices, m.id, m.tp, m.pp);
  }
  return m.devices > 1 ? fmt::format("{} x {}", m.devices, m.id) : m.id;
}

std::string per_million(const TaskMachine& m) {
  return m.usd_per_million_tokens
             ? fmt::format(", ${:.2f} per million tokens", *m.usd_per_million_tokens)
             : std::string{};
}

}  // namespace

std::string task_duration_text(double hours) {
  if (hours >= 24.0 * 365.0) return fmt::format("{:.1f} years", hours / (24.0 * 365.0));
  if (hours >= 72.0) return fmt::format("{:.1f} days", hours / 24.0);
  return fmt::format("{:.1f} h", hours);
}

std::string task_label(const TaskResult& t, const TaskComparison& c) {
  const std::string rank = c.lora_rank > 0
                               ? fmt::format("rank {}", c.lora_rank)
                               : fmt::format("{:g} % trainable", c.trainable_fraction * 100.0);
  switch (t.task) {
    case Task::kServe:
      return fmt::format("serve ({} weights, {} tokens, {} sequence{})",
                         enum_name(c.serving.weights), c.serving.context, c.serving.concurrency,
                         c.serving.concurrency == 1 ? "" : "s");
    case Task::kQlora:
      return fmt::format("QLoRA fine-tune ({}, {})", rank, Tokens{t.tokens});
    case Task::kLora:
      return fmt::format("LoRA fine-tune ({}, {})", rank, Tokens{t.tokens});
    case Task::kDpo:
      return fmt::format("DPO, LoRA ({}, {}, chosen and rejected)", rank, Tokens{t.tokens});
    case Task::kGrpo:
      return fmt::format(
          "GRPO, LoRA ({}, {}, {} completions of {} + {} tokens a prompt, the "
          "policy's generate())",
          rank, Tokens{t.tokens}, c.rollout.num_generations, c.rollout.max_prompt_length,
          c.rollout.max_completion_length);
    case Task::kFull:
      return fmt::format("full fine-tune ({})", Tokens{t.tokens});
    case Task::kPretrain:
      return fmt::format("pretraining ({})", Tokens{t.tokens});
  }
  return {};
}

std::string task_detail(const TaskMachine& m, Task task) {
  if (task == Task::kServe) {
    if (m.devices == 0) {
      return fmt::format("{}: does not fit (needs {}, {} usable)", m.id, m.memory, m.capacity);
    }
    if (!m.decode_tokens_per_s) {
      return fmt::format("{}: on {} (the pipeline is not timed)", m.id, where(m));
    }
    // The seed's point stays visible: a unified-memory machine may hold it on one device.
    return fmt::format("{}: {:.1f} tokens/s per sequence{}{}", where(m), *m.decode_tokens_per_s,
                       m.devices == 1 ? " on one device" : "", per_million(m));
  }
  if (m.devices == 0 && m.gathers_whole_model) {
    return fmt::format(
        "{}: does not fit on any number of devices with the policy's generate(): it gathers "
        "the whole model ({}) on every device under ZeRO-3 (TRL's ds3_gather_for_generation), "
        "over the {} a device allows; a vLLM engine with tensor parallelism runs it "
        "({{rollout_engine}})",
        m.id, m.memory, m.capacity);
  }
  if (m.devices == 0 && m.node_limit > 0) {
    return fmt::format(
        "{}: does not fit on the {} devices of a {} node, which has no network to add more", m.id,
        m.node_limit, m.system_id);
  }
  if (m.devices == 0) {
    return fmt::format("{}: does not fit on up to {} devices", m.id, kMaxTaskDevices);
  }
  if (m.hours) {
    return fmt::format("{}: {}{}", where(m), task_duration_text(*m.hours),
                       m.devices > 1 ? " (ZeRO-3)" : "");
  }
  return fmt::format("{}: no compute rate", where(m));
}

std::string task_verdict(const TaskResult& t) {
  std::vector<std::string> others;
  const TaskMachine* win = nullptr;
  for (const TaskMachine& m : t.machines) {
    if (t.winner && m.id == *t.winner) {
      win = &m;
    } else {
      others.push_back(task_detail(m, t.task));
    }
  }
  const std::string rest =
      others.empty() ? std::string{} : fmt::format("; {}", fmt::join(others, "; "));
  if (t.task == Task::kServe) {
    if (win == nullptr) return fmt::format("serve: no machine serves it in a node{}", rest);
    std::string out = fmt::format("serve: {} wins, {:.1f} tokens/s per sequence{}", where(*win),
                                  *win->decode_tokens_per_s, per_million(*win));
    if (t.factor) out += fmt::format(" ({:.1f}x)", *t.factor);
    return out + rest;
  }
  if (win == nullptr) {
    return fmt::format("{}: no machine fits it{}", enum_name(t.task), rest);
  }
  std::string out = fmt::format("{}: {} wins, {}", enum_name(t.task), where(*win),
                                task_duration_text(*win->hours));
  if (t.factor) out += fmt::format(" ({:.1f}x faster)", *t.factor);
  return out + rest;
}

}  // namespace tb::report
