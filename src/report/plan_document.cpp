// The plan as sections: the query, the ranked layouts, the command that applies the best, the
// nearest misses and what the search did.
#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/build_info.hpp"
#include "trainbudget/eval/memory_margin.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/report/plan_output.hpp"

namespace tb::report {
namespace {

std::string layout_cell(const Layout& l) {
  const Parallelism& x = l.parallel;
  std::string s = fmt::format("dp{} tp{} pp{}", l.dp(), x.tp, x.pp);
  if (x.virtual_stages > 1) s += fmt::format("x{}", x.virtual_stages);
  if (x.cp > 1) s += fmt::format(" cp{}", x.cp);
  if (x.ep > 1) s += fmt::format(" ep{}", x.ep);
  if (x.etp > 0 && x.etp != x.tp) s += fmt::format(" etp{}", x.etp);
  return s;
}

// `rows`: per example (2 for preference pairs); the micro-batch is shown in examples. A global
// batch other than the one asked (the default batch's 5 % tolerance) says so: "=1036 (+1.2 %)".
std::string knobs_cell(const Layout& l, int rows, std::int64_t asked = 0) {
  std::string s =
      fmt::format("Z{} mb{}x{}", l.zero_stage, l.micro_batch / std::max(rows, 1), l.grad_accum);
  const std::int64_t global =
      static_cast<std::int64_t>(l.dp()) * l.micro_batch / std::max(rows, 1) * l.grad_accum;
  if (asked > 0 && global != asked) {
    s += fmt::format(" ={} ({:+.1f} %)", global,
                     100.0 * (static_cast<double>(global) / static_cast<double>(asked) - 1.0));
  }
  if (l.recompute != Recompute::kNone) s += fmt::format(" rc:{}", enum_name(l.recompute));
  // Block recomputation: the layers per stage that recompute.
  if (l.recompute == Recompute::kFull && l.recompute_layers >= 0) {
    s += fmt::format("/{}", l.recompute_layers);
  }
  if (l.parallel.offload != Offload::kNone)
    s += fmt::format(" off:{}", enum_name(l.parallel.offload));
  if (l.offload_activations) s += " act:host";
  if (l.overlap_tp > 0.0) s += " tp-overlap";
  if (l.parallel.shard_group > 0) s += fmt::format(" hsdp:{}", l.parallel.shard_group);
  return s;
}

std::string when(double h) {
  if (h >= 48.0) return fmt::format("{:.1f} d", h / 24.0);
  return fmt::format("{:.1f} h", h);
}

// The limit a miss was held against, when a margin sets it below the allocatable memory.
std::string margin_words(const plan::PlanMiss& m) {
  if (m.margin <= 1.0) return {};
  return fmt::format(" (the {} allocatable over the x{:.2f} margin)", gb(m.capacity), m.margin);
}

// Every comparison with enough digits that the numbers read as the verdict says.
std::string miss_words(const plan::PlanMiss& m, const plan::PlanReport& p) {
  switch (m.miss) {
    case plan::Miss::kStates: {
      const auto [over, cap] = gb_apart(m.memory, margin_limit(m.capacity, m.margin));
      return fmt::format("model states alone {} > {}{}", over, cap, margin_words(m));
    }
    case plan::Miss::kPeak: {
      const auto [over, cap] = gb_apart(m.memory, margin_limit(m.capacity, m.margin));
      return fmt::format("peak {} > {}{} at {} (states {}, activations {}, buffers {})", over, cap,
                         margin_words(m), enum_name(m.phase), gb(m.states), gb(m.activations),
                         gb(m.buffers));
    }
    case plan::Miss::kHostMemory: {
      const auto [over, cap] = gb_apart(m.memory, m.capacity);
      return fmt::format("fits the device, but offloads {} per device > {} of host memory", over,
                         cap);
    }
    case plan::Miss::kDeadline:
      if (p.deadline_days && m.hours >= 48.0) {
        return fmt::format("fits, but takes {} d > {:g} d",
                           decimals_apart(m.hours / 24.0, *p.deadline_days), *p.deadline_days);
      }
      return fmt::format("fits, but takes {}", when(m.hours));
    case plan::Miss::kBudget:
      return p.budget_usd
                 ? fmt::format("fits, but costs {} > {}", dollars(m.usd), dollars(*p.budget_usd))
                 : fmt::format("fits, but costs {}", dollars(m.usd));
  }
  return {};
}

// "{model} llama-3.1-8b {devices} 8 ...": the front end spells each {key} as its flag.
std::string command_of(const std::map<std::string, std::string>& apply) {
  std::string out = "trainbudget estimate";
  for (const auto& [key, value] : apply) {
    out += value == "true" ? fmt::format(" {{{}}}", key) : fmt::format(" {{{}}} {}", key, value);
  }
  return out;
}

}  // namespace

Document plan_document(const plan::PlanReport& p) {
  Document doc;
  doc.title = fmt::format("trainbudget {} -- plan (GB = 1e9 bytes)", build_info::kVersion);
  Section query;
  query.title = "Query";
  query.text(fmt::format(
      "model     {}, {} tokens, {} {} of {} tokens per step", p.model, count(p.tokens),
      p.global_batch,
      p.rows_per_example > 1 ? "pairs (chosen and rejected sequences)" : "sequences", p.seq_len));
  query.text(fmt::format("machine   {} ({}){}", p.machine_name, p.machine_id,
                         p.system_id.empty() ? std::string{} : fmt::format(" in {}", p.system_id)));
  std::string goal = fmt::format("objective {}", enum_name(p.objective));
  if (p.deadline_days) goal += fmt::format(", within {:g} days", *p.deadline_days);
  if (p.budget_usd) goal += fmt::format(", within ${:g}", *p.budget_usd);
  if (p.mode == plan::PlanMode::kFewest) goal += "; the fewest devices that do";
  if (p.mode == plan::PlanMode::kCheapest) goal += "; the best over device counts";
  query.text(goal);
  query.text(fmt::format("searched  {} devices; workloads: {}", fmt::join(p.device_counts, ", "),
                         fmt::join(p.workloads, " | ")));
  doc.sections.push_back(std::move(query));

  Section best;
  best.title = !p.candidates.empty() ? fmt::format("Best {} layouts", p.candidates.size())
               : !p.closest_miss     ? std::string{"No layout fits"}
               : p.closest_miss->miss == plan::Miss::kBudget
                   ? std::string{"No layout that fits meets the budget"}
                   : std::string{"No layout that fits meets the deadline"};
  if (p.candidates.empty() && p.closest_miss) {
    // What the best that fits reaches, and by how much it misses what was asked.
    const plan::PlanMiss& m = *p.closest_miss;
    if (m.miss == plan::Miss::kBudget && p.budget_usd) {
      best.text(fmt::format(
          "the cheapest layout that fits costs {} on {} devices, over the {} budget by {:.0f} %",
          dollars(m.usd), m.layout.devices, dollars(*p.budget_usd),
          100.0 * (m.usd / *p.budget_usd - 1.0)));
    } else if (m.miss == plan::Miss::kDeadline && p.deadline_days) {
      best.text(
          fmt::format("the fastest layout that fits takes {} d on {} devices, past the {:g}-day "
                      "deadline by {:.0f} %",
                      decimals_apart(m.hours / 24.0, *p.deadline_days), m.layout.devices,
                      *p.deadline_days, 100.0 * (m.hours / 24.0 / *p.deadline_days - 1.0)));
    }
  }
  if (!p.candidates.empty()) {
    const bool several = p.machines > 1;
    std::vector<TextTable::Column> columns{{"#", Align::kRight}};
    if (several) columns.push_back({"machine"});
    for (TextTable::Column c : std::vector<TextTable::Column>{{"workload"},
                                                              {"devices", Align::kRight},
                                                              {"layout"},
                                                              {"knobs"},
                                                              {"framework"},
                                                              {"memory", Align::kRight},
                                                              {"step", Align::kRight},
                                                              {"MFU", Align::kRight},
                                                              {"time", Align::kRight},
                                                              {"cost", Align::kRight},
                                                              {"energy", Align::kRight},
                                                              {"bound"}}) {
      columns.push_back(std::move(c));
    }
    TextTable t(std::move(columns));
    for (const plan::PlanCandidate& c : p.candidates) {
      const Scenario& s = c.estimate.primary;
      const MachineEstimate& m = s.machines.front();
      std::vector<std::string> row{std::to_string(c.rank)};
      if (several) row.push_back(c.machine_id);
      for (std::string& cell : std::vector<std::string>{
               c.workload, std::to_string(s.layout.devices),
               layout_cell(s.layout) +
                   (c.alike > 0 ? fmt::format(" (+{} alike)", c.alike) : std::string{}),
               knobs_cell(s.layout, p.rows_per_example, p.global_batch),
               std::string{enum_name(c.runner)},
               // Online RL: the generation round's peak and time (its update's are in them).
               gb(m.rollout ? m.rollout->peak : s.memory.total),
               m.rollout ? fmt::format("{:.3g} s round", m.rollout->round.count())
                         : fmt::format("{:.3g} s", m.time.step.count()),
               m.rollout ? std::string{"-"} : percent(m.time.mfu), when(c.hours),
               m.cost_usd ? dollars(c.usd) : "-", m.energy_kwh ? kwh(c.kwh) : "-",
               std::string{enum_name(m.time.bound)}}) {
        row.push_back(std::move(cell));
      }
      t.add_row(std::move(row));
    }
    best.table(std::move(t));
    best.text(
        "layout: data x tensor x pipeline (x virtual stages) x context x expert parallel, "
        "sequence parallel wherever tp > 1; knobs: ZeRO, micro-batch x grad-accum, recompute "
        "(full/N: N layers a stage), offload (act:host: activations), tp-overlap (tp collectives "
        "under the GEMMs); framework: the one that runs it (docs/frameworks.md, \"Who runs the "
        "layout\"). One row per family (tp, pp, ep, offload) with how many alike.");
    best.text("apply the best: " + command_of(p.candidates.front().apply));
  }
  doc.answer = doc.sections.size();
  doc.sections.push_back(std::move(best));

  if (!p.misses.empty()) {
    Section miss;
    miss.title = p.candidates.empty() ? "Nearest misses" : "Nearest rejected layouts";
    TextTable t({{"workload"}, {"devices", Align::kRight}, {"layout"}, {"knobs"}, {"why not"}});
    for (const plan::PlanMiss& m : p.misses) {
      t.add_row({m.workload, std::to_string(m.layout.devices), layout_cell(m.layout),
                 knobs_cell(m.layout, p.rows_per_example), miss_words(m, p)});
    }
    miss.table(std::move(t));
    doc.sections.push_back(std::move(miss));
  }

  Section search;
  search.title = "Search";
  search.text(fmt::format(
      "{} grid points, {} layouts after the rules ({} dropped for the batch split), {} out at "
      "the precheck, {} evaluated, {} fit, {} kept; variants {} with fewer layers recomputed, {} "
      "with activations offloaded, {} with tp collectives overlapped; {:.3f} s on {} threads ({} "
      "layouts/s)",
      p.stats.grid.considered, p.stats.layouts, p.stats.grid.batch, p.stats.prechecked,
      p.stats.evaluated, p.stats.fit, p.stats.kept, p.stats.recompute_tries, p.stats.offload_tries,
      p.stats.overlap_tries, p.stats.seconds, p.stats.threads,
      count(p.stats.seconds > 0.0 ? static_cast<double>(p.stats.layouts) / p.stats.seconds : 0.0)));
  for (const std::string& n : p.notes) search.text(n);
  doc.sections.push_back(std::move(search));
  doc.rows = plan_rows(p);
  return doc;
}

TextTable plan_rows(const plan::PlanReport& p) {
  TextTable t({{"rank"},
               {"workload"},
               {"devices"},
               {"dp"},
               {"tp"},
               {"pp"},
               {"virtual_stages"},
               {"cp"},
               {"ep"},
               {"zero"},
               {"offload"},
               {"micro_batch"},
               {"grad_accum"},
               {"recompute"},
               {"recompute_layers"},
               {"offload_activations"},
               {"memory_bytes"},
               {"step_seconds"},
               {"mfu"},
               {"hours"},
               {"cost_usd"},
               {"energy_kwh"},
               {"bound"}});
  for (const plan::PlanCandidate& c : p.candidates) {
    const Layout& l = c.estimate.primary.layout;
    const MachineEstimate& m = c.estimate.primary.machines.front();
    t.add_row({std::to_string(c.rank),
               c.workload,
               std::to_string(l.devices),
               std::to_string(l.dp()),
               std::to_string(l.parallel.tp),
               std::to_string(l.parallel.pp),
               std::to_string(l.parallel.virtual_stages),
               std::to_string(l.parallel.cp),
               std::to_string(l.parallel.ep),
               std::to_string(l.zero_stage),
               std::string{enum_name(l.parallel.offload)},
               std::to_string(l.micro_batch),
               std::to_string(l.grad_accum),
               std::string{enum_name(l.recompute)},
               l.recompute_layers >= 0 ? std::to_string(l.recompute_layers) : "",
               l.offload_activations ? "true" : "false",
               fmt::format("{:.6g}", c.estimate.primary.memory.total.value()),
               fmt::format("{:.6g}", m.time.step.count()),
               fmt::format("{:.6g}", m.time.mfu),
               fmt::format("{:.6g}", c.hours),
               m.cost_usd ? fmt::format("{:.6g}", c.usd) : "",
               m.energy_kwh ? fmt::format("{:.6g}", c.kwh) : "",
               std::string{enum_name(m.time.bound)}});
  }
  return t;
}

}  // namespace tb::report
