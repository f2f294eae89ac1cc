// The compare command's JSON (docs/json.md, "compare"): `tasks`, one object per task with its
// winner and each machine's numbers.
#include "estimate_json.hpp"
#include "json_dump.hpp"
#include "trainbudget/report/task_words.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {
using nlohmann::json;
using nlohmann::ordered_json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

ordered_json machine_json(const TaskMachine& m, Task task) {
  ordered_json j{{"id", m.id},
                 {"name", m.name},
                 {"fits", m.fits},
                 {"fits_one_device", m.fits_one_device},
                 {"devices", m.devices}};
  if (task == Task::kServe) {
    j["decode_tokens_per_s"] = or_null(m.decode_tokens_per_s);
    j["usd_per_million_tokens"] = or_null(m.usd_per_million_tokens);
    j["tp"] = m.tp;
    j["pp"] = m.pp;
    j["needed_bytes"] = m.memory.value();
    j["usable_bytes"] = m.capacity.value();
  } else {
    j["hours"] = or_null(m.hours);
    j["cost_usd"] = or_null(m.cost_usd);
    j["allocated_peak_bytes"] = m.memory.value();
    j["allocatable_bytes"] = m.capacity.value();
  }
  j["detail"] = task_detail(m, task);
  return j;
}

}  // namespace

std::string json_of(const TaskComparison& c) {
  ordered_json tasks = ordered_json::array();
  for (const TaskResult& t : c.tasks) {
    ordered_json machines = ordered_json::array();
    for (const TaskMachine& m : t.machines) machines.push_back(machine_json(m, t.task));
    ordered_json task{{"task", enum_name(t.task)},
                      {"label", task_label(t, c)},
                      {"winner", or_null(t.winner)},
                      {"factor", or_null(t.factor)}};
    if (t.task != Task::kServe) task["tokens"] = t.tokens;
    task["machines"] = machines;
    task["verdict"] = task_verdict(t);
    tasks.push_back(std::move(task));
  }
  ordered_json root{
      {"schema_version", kJsonSchemaVersion},
      {"tool", tool_block()},
      {"command", "compare"},
      {"model",
       {{"name", c.model.empty() ? json(nullptr) : json(c.model)}, {"params_total", c.params}}},
      {"tasks", tasks}};
  return dump_json(std::move(root));
}

}  // namespace tb::report
