// The verdict by task in words (docs/inference.md, "The verdict by task"): each task's label,
// each machine's line and the sentence, built from eval's numbers for every front end.
#pragma once

#include <string>

#include "trainbudget/eval/task_verdict.hpp"

namespace tb::report {

// Hours in the unit that reads best: "13.8 h", "6.9 days" (from 72 h), "2.2 years".
[[nodiscard]] std::string task_duration_text(double hours);
// "serve (bf16 weights, 4096 tokens, 1 sequence)", "QLoRA fine-tune (rank 16, 1.0 B tokens)".
[[nodiscard]] std::string task_label(const TaskResult& task, const TaskComparison& comparison);
// One line per machine: "2 x h100-sxm: 13.8 h (ZeRO-3)", "m3-ultra: does not fit (...)".
[[nodiscard]] std::string task_detail(const TaskMachine& machine, Task task);
// "lora: h100-sxm wins, 13.8 h (2.1x faster); m3-ultra: 1.2 days".
[[nodiscard]] std::string task_verdict(const TaskResult& task);

}  // namespace tb::report
