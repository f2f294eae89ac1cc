// The compare command's document: a row per task and machine, the winner and a sentence per
// task (table, markdown; the rows are the CSV).
#include <fmt/format.h>

#include "trainbudget/report/task_words.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/units/format.hpp"

namespace tb::report {

Document document_of(const TaskComparison& c) {
  const std::string model = c.model.empty() ? fmt::format("{}", Params{c.params}) : c.model;
  Document doc{fmt::format("{} by task: serve, fine-tune, pretrain", model), {}, TextTable{{}}};
  TextTable table{{{"Task", Align::kLeft},
                   {"Machine", Align::kLeft},
                   {"Fits", Align::kLeft},
                   {"Devices", Align::kRight},
                   {"Result", Align::kRight},
                   {"Winner", Align::kLeft}}};
  TextTable rows{{{"task", Align::kLeft},
                  {"id", Align::kLeft},
                  {"fits", Align::kLeft},
                  {"devices", Align::kRight},
                  {"decode_tokens_per_s", Align::kRight},
                  {"hours", Align::kRight},
                  {"winner", Align::kLeft},
                  {"factor", Align::kRight}}};
  Section verdicts{"Verdict by task", {}};
  for (const TaskResult& t : c.tasks) {
    for (const TaskMachine& m : t.machines) {
      std::string result = "-";
      if (m.decode_tokens_per_s) {
        result = fmt::format("{:.1f} tok/s", *m.decode_tokens_per_s);
        if (m.usd_per_million_tokens)
          result += fmt::format(", ${:.2f}/M", *m.usd_per_million_tokens);
      }
      if (m.hours) result = task_duration_text(*m.hours);
      const bool won = t.winner && *t.winner == m.id;
      table.add_row({std::string{enum_name(t.task)}, m.id, m.fits ? "yes" : "no",
                     m.devices > 0 ? fmt::format("{}", m.devices) : "-", result,
                     won ? (t.factor ? fmt::format("wins, {:.1f}x", *t.factor) : "wins") : ""});
      rows.add_row({std::string{enum_name(t.task)}, m.id, m.fits ? "true" : "false",
                    fmt::format("{}", m.devices),
                    m.decode_tokens_per_s ? fmt::format("{:.6g}", *m.decode_tokens_per_s) : "",
                    m.hours ? fmt::format("{:.6g}", *m.hours) : "", t.winner.value_or(""),
                    t.factor ? fmt::format("{:.6g}", *t.factor) : ""});
    }
    verdicts.text(fmt::format("{} — {}", task_label(t, c), task_verdict(t)));
  }
  Section tasks{"Tasks", {}};
  tasks.table(std::move(table));
  tasks.text(
      "Serving runs on the fewest devices of each machine that serve it (tensor parallel inside "
      "a node; pipeline stages past it, not timed), with its cost per million tokens where a "
      "price is known; each training task on the fewest devices that hold it (powers of two, "
      "ZeRO-3 beyond one; pretraining: or {pretrain_devices}), and the winner is the fastest of "
      "those.");
  doc.sections.push_back(std::move(tasks));
  doc.sections.push_back(std::move(verdicts));
  doc.rows = std::move(rows);
  return doc;
}

}  // namespace tb::report
