// The plan's JSON: the query, what the search did, the candidates in rank order (each an
// estimate document of its layout) and the nearest misses with their reasons.
#include <algorithm>

#include "estimate_json.hpp"
#include "json_dump.hpp"
#include "trainbudget/eval/memory_margin.hpp"
#include "trainbudget/report/plan_output.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {
using nlohmann::json;
using nlohmann::ordered_json;

// A near miss's layout: its device count and the estimate's `parallel` block.
ordered_json layout_json(const Layout& l) {
  ordered_json out{{"devices", l.devices}};
  out.update(parallel_json(l));
  return out;
}

}  // namespace

std::string plan_json(const plan::PlanReport& p) {
  ordered_json rules = ordered_json::object();
  static constexpr std::array<std::string_view, kLayoutRules> kRuleKeys{"ok",
                                                                        "needs_model",
                                                                        "devices",
                                                                        "heads",
                                                                        "kv_heads",
                                                                        "layers",
                                                                        "virtual_stages",
                                                                        "interleaved_batches",
                                                                        "experts",
                                                                        "expert_ranks",
                                                                        "sequence",
                                                                        "cp_attention",
                                                                        "sequence_parallel",
                                                                        "offload_params",
                                                                        "shard_group",
                                                                        "pp_scatter_gather",
                                                                        "stage_layers"};
  for (std::size_t i = 1; i < kRuleKeys.size(); ++i) {
    if (p.stats.grid.rules[i] > 0) rules[std::string{kRuleKeys[i]}] = p.stats.grid.rules[i];
  }
  if (p.stats.grid.runners > 0) rules["no_framework_runs_it"] = p.stats.grid.runners;
  ordered_json candidates = ordered_json::array();
  for (const plan::PlanCandidate& c : p.candidates) {
    ordered_json e = estimate_object(c.estimate);
    ordered_json apply = ordered_json::object();
    for (const auto& [key, value] : c.apply) apply[key] = value;
    ordered_json head{{"rank", c.rank},
                      {"machine", c.machine_id},
                      {"workload", c.workload},
                      {"framework", enum_name(c.runner)},
                      // What the layout runs per step: the batch asked, or within the default
                      // batch's tolerance of it.
                      {"global_batch", static_cast<std::int64_t>(c.estimate.primary.layout.dp()) *
                                           c.estimate.primary.layout.micro_batch /
                                           std::max(p.rows_per_example, 1) *
                                           c.estimate.primary.layout.grad_accum},
                      {"alike", c.alike},
                      {"hours", c.hours},
                      {"usd", c.usd},
                      {"kwh", c.kwh},
                      {"apply", apply}};
    head.update(e);
    candidates.push_back(std::move(head));
  }
  ordered_json misses = ordered_json::array();
  for (const plan::PlanMiss& m : p.misses) {
    misses.push_back({{"workload", m.workload},
                      {"layout", layout_json(m.layout)},
                      {"reason", enum_name(m.miss)},
                      {"memory_bytes", m.memory.value()},
                      {"capacity_bytes", m.capacity.value()},
                      {"margin_factor", m.margin},
                      {"limit_bytes", margin_limit(m.capacity, m.margin).value()},
                      {"peak_phase", enum_name(m.phase)},
                      {"states_bytes", m.states.value()},
                      {"activations_bytes", m.activations.value()},
                      {"buffers_bytes", m.buffers.value()},
                      {"hours", m.hours},
                      {"usd", m.usd}});
  }
  // Nothing met the deadline or budget: the layout that fits and misses least.
  ordered_json closest = nullptr;
  if (p.closest_miss) {
    const plan::PlanMiss& m = *p.closest_miss;
    closest = {{"workload", m.workload},
               {"layout", layout_json(m.layout)},
               {"reason", enum_name(m.miss)},
               {"hours", m.hours},
               {"usd", m.usd}};
    if (m.miss == plan::Miss::kBudget && p.budget_usd) {
      closest["over_budget_fraction"] = m.usd / *p.budget_usd - 1.0;
    }
    if (m.miss == plan::Miss::kDeadline && p.deadline_days) {
      closest["past_deadline_fraction"] = m.hours / 24.0 / *p.deadline_days - 1.0;
    }
  }
  ordered_json root{
      {"schema_version", kJsonSchemaVersion},
      {"tool", tool_block()},
      {"query",
       {{"model", p.model},
        {"tokens", p.tokens},
        {"machine", p.machine_id},
        {"system", p.system_id.empty() ? json(nullptr) : json(p.system_id)},
        {"objective", enum_name(p.objective)},
        {"mode", enum_name(p.mode)},
        {"deadline_days", p.deadline_days ? json(*p.deadline_days) : json(nullptr)},
        {"budget_usd", p.budget_usd ? json(*p.budget_usd) : json(nullptr)},
        {"device_counts", p.device_counts},
        {"devices", p.devices},
        {"global_batch", p.global_batch},
        {"seq_len", p.seq_len},
        {"rows_per_example", p.rows_per_example},
        {"workloads", p.workloads}}},
      {"stats",
       {{"layouts", p.stats.layouts},
        {"grid_points", p.stats.grid.considered},
        {"dropped_batch", p.stats.grid.batch},
        {"dropped_rules", rules},
        {"prechecked_out", p.stats.prechecked},
        {"evaluated", p.stats.evaluated},
        {"recompute_tries", p.stats.recompute_tries},
        {"offload_tries", p.stats.offload_tries},
        {"overlap_tries", p.stats.overlap_tries},
        {"fit", p.stats.fit},
        {"kept", p.stats.kept},
        {"seconds", p.stats.seconds},
        {"threads", p.stats.threads},
        {"layouts_per_second",
         p.stats.seconds > 0.0 ? static_cast<double>(p.stats.layouts) / p.stats.seconds : 0.0}}},
      {"candidates", candidates},
      {"near_misses", misses},
      {"closest_miss", closest},
      {"notes", p.notes}};
  return dump_json(std::move(root));
}

}  // namespace tb::report
