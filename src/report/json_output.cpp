// nlohmann::json stays in this file: the public header speaks strings.
#include "trainbudget/report/json_output.hpp"

#include <nlohmann/json.hpp>
#include <utility>

#include "estimate_json.hpp"
#include "json_dump.hpp"
#include "rollout_json.hpp"
#include "step_json.hpp"
#include "trainbudget/build_info.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {
using nlohmann::json;
using nlohmann::ordered_json;

// The three memory numbers (docs/memory-numbers.md), the same keys at the top and per machine.
ordered_json numbers_json(const MemoryNumbers& n) {
  return {{"allocated_peak_bytes", n.allocated.value()},
          {"reserved_peak_bytes", n.reserved.value()},
          {"device_total_bytes", n.device_total.value()},
          {"runtime_bytes", n.runtime.value()},
          {"band",
           {{"low_bytes", n.band_low.value()},
            {"high_bytes", n.band_high.value()},
            {"reserved_low_bytes", n.reserved_low.value()},
            {"reserved_high_bytes", n.reserved_high.value()},
            {"moves_most", n.moves_most.empty() ? json(nullptr) : json(n.moves_most)}}}};
}

ordered_json memory_json(const Scenario& s, const MemoryEstimate& m, const MemoryNumbers& n) {
  ordered_json components = ordered_json::object();
  ordered_json rows = ordered_json::array();
  for (const MemoryComponent& c : m.components) {
    components[c.key] = m.by_key(c.key).value();
    rows.push_back({{"key", c.key},
                    {"label", component_label(s, c)},
                    {"bytes_per_param", c.bytes_per_param},
                    {"params", c.params},
                    {"bytes", c.bytes.value()},
                    {"sharded_over", c.sharded_over}});
  }
  ordered_json out{{"total_bytes", m.total.value()}, {"per_device_bytes", m.total.value()}};
  out.update(numbers_json(n));
  ordered_json rest{{"host_bytes_per_device", m.host_total.value()},
                    {"pipeline_stage", m.stage},
                    {"replica_total_bytes", m.replica_total().value()},
                    {"activations_included", m.activations_included},
                    {"components", components},
                    {"rows", rows}};
  out.update(rest);
  return out;
}

ordered_json machine_memory_json(const MachineEstimate& m) {
  ordered_json out = numbers_json(m.numbers);
  out["usable_bytes"] = m.usable.value();
  out["fits_allocated_peak"] = m.fits;
  out["fits_device_total"] = m.fits_device_total;
  // The room a proposal keeps (eval/memory_margin.hpp): a job above limit_bytes fits tightly.
  out["margin_factor"] = m.margin;
  out["limit_bytes"] = m.limit.value();
  return out;
}

ordered_json time_json(const MachineEstimate& m) {
  if (!m.rate) return nullptr;
  const StepTime& t = m.time;
  ordered_json comm = ordered_json::object();
  for (std::size_t k = 0; k < kCommKinds; ++k) {
    const CommTerm& c = t.comm[k];
    comm[std::string{enum_name(static_cast<CommKind>(k))}] = {
        {"seconds", c.total.count()},
        {"exposed_seconds", c.exposed.count()},
        {"bytes", c.bytes.value()},
        {"link_bytes_per_s", c.link.bandwidth.value()},
        {"link_latency_seconds", c.link.latency.count()}};
  }
  ordered_json band = nullptr;
  if (m.time_band.present) {
    const double steps = t.steps;
    band = {{"low_seconds", m.time_band.low.count()},
            {"high_seconds", m.time_band.high.count()},
            {"low_hours", m.time_band.low.count() * steps / 3600.0},
            {"high_hours", m.time_band.high.count() * steps / 3600.0},
            {"moves_most", enum_name(m.time_band.moves_most)}};
  }
  const Goodput& g = m.goodput;
  const ordered_json goodput = {{"modeled", g.modeled},
                                {"fraction", g.fraction},
                                {"wall_clock_hours", g.wall.count() / 3600.0},
                                {"mtbf_hours", g.mtbf.count() / 3600.0},
                                {"checkpoint_seconds", g.checkpoint.count()},
                                {"checkpoint_interval_hours", g.interval.count() / 3600.0},
                                {"failures", g.failures}};
  return {{"modeled", t.modeled},
          {"step_seconds", t.step.count()},
          {"total_hours", hours(m.at_utilization)},
          {"goodput", goodput},
          {"mfu", t.mfu},
          {"hfu", t.hfu},
          {"compute_seconds", t.compute.count()},
          {"micro_batch_seconds", t.micro_batch.count()},
          {"micro_batch_gemm_seconds", t.gemm.count()},
          {"micro_batch_attention_seconds", t.attention.count()},
          {"micro_batch_memory_bound_seconds", t.memory_bound.count()},
          {"micro_batch_overhead_seconds", t.overhead.count()},
          {"layer_forward_seconds", t.layer_forward.count()},
          {"layer_backward_seconds", t.layer_backward.count()},
          {"micro_batch_kernels", t.kernels},
          {"optimizer_seconds", t.optimizer.count()},
          {"accumulation_seconds", t.accumulation.count()},
          {"bubble_seconds", t.bubble.count()},
          {"comm_seconds", t.comm_total.count()},
          {"exposed_comm_seconds", t.exposed_comm.count()},
          {"comm_interference_seconds", t.interference.count()},
          {"bound", enum_name(t.bound)},
          {"tokens_per_step", t.tokens_per_step},
          {"steps", t.steps},
          {"tokens_per_second", t.tokens_per_second},
          {"gemm_efficiency", m.gemm.value},
          {"gemm_efficiency_source", gemm_source_text(m.gemm)},
          {"comm", comm},
          {"band", band}};
}

ordered_json cost_json(const MachineEstimate& m) {
  if (!m.cost_usd) return {{"usd", nullptr}, {"usd_per_device_hour", nullptr}, {"source", nullptr}};
  const double per_hour = m.price_given || !m.device.price
                              ? m.cost_usd->value() / (hours(m.at_utilization) * m.devices)
                              : m.device.price->usd_per_hour.value();
  return {{"usd", m.cost_usd->value()},
          {"usd_per_device_hour", per_hour},
          {"source", m.price_given ? "given (the price field)"
                                   : m.device.price->source + " (" + m.device.price->date + ")"}};
}

ordered_json energy_json(const MachineEstimate& m) {
  if (!m.energy_kwh) return {{"kwh", nullptr}, {"tdp_watts", nullptr}};
  return {{"kwh", *m.energy_kwh}, {"tdp_watts", m.device.tdp_watts->value()}};
}

ordered_json advice_json(const MachineEstimate& m) {
  ordered_json out = ordered_json::array();
  for (const Advice& a : m.advice) {
    ordered_json changes = ordered_json::object();
    for (const auto& [key, value] : a.changes) changes[key] = value;
    out.push_back({{"kind", a.kind},
                   {"summary", a.summary},
                   {"changes", changes},
                   {"memory_bytes", a.memory.value()},
                   {"hours", a.hours},
                   {"devices", a.devices}});
  }
  return out;
}

ordered_json scaling_json(const MachineEstimate& m) {
  ordered_json out = ordered_json::array();
  for (const ScalePoint& p : m.scaling) {
    out.push_back({{"devices", p.devices},
                   {"step_seconds", p.step.count()},
                   {"exposed_comm_seconds", p.exposed_comm.count()},
                   {"mfu", p.mfu},
                   {"tokens_per_second", p.tokens_per_second},
                   {"total_hours", p.hours},
                   {"bound", enum_name(p.bound)}});
  }
  return out;
}

ordered_json machine_json(const MachineEstimate& m, const Scenario& s,
                          const std::optional<Scenario>& lora) {
  ordered_json j{
      {"id", m.device.id},
      {"name", m.device.name},
      {"dtype", m.rate ? json(enum_name(m.dtype)) : json(nullptr)},
      {"dtype_requested", enum_name(m.wanted)},
      {"dtype_overridden", m.dtype_overridden},
      {"rate_flops_per_s", m.rate ? json(m.rate->dense.value()) : json(nullptr)},
      {"rate_kind",
       m.rate ? json(m.rate->kind == RateKind::kMeasured ? "measured" : "spec") : json(nullptr)},
      {"rate_source", m.rate ? json(m.rate->source) : json(nullptr)},
      {"mfu", m.utilization},
      {"devices", m.devices},
      {"seconds_at_peak", m.rate ? json(m.at_peak.count()) : json(nullptr)},
      {"hours_at_peak", m.rate ? json(hours(m.at_peak)) : json(nullptr)},
      {"seconds", m.rate ? json(m.at_utilization.count()) : json(nullptr)},
      {"hours", m.rate ? json(hours(m.at_utilization)) : json(nullptr)},
      {"memory_capacity_bytes", m.device.memory_capacity.value()},
      {"memory", machine_memory_json(m)},
      // One decision: fits is null where it cannot be judged (activations not counted).
      {"fits", m.verdict == Verdict::kStatesFit ? json(nullptr) : json(m.fits)},
      {"verdict", enum_name(m.verdict)},
      // The rule of thumb where the planner found no change that fits (else the advice says).
      {"rule_of_thumb", !m.fits && m.advice.empty() ? json(enum_name(m.fit)) : json(nullptr)},
      {"devices_to_fit", m.devices_to_fit},
      {"cost_usd", m.cost_usd ? json(m.cost_usd->value()) : json(nullptr)},
      {"system", m.system_id.empty() ? json(nullptr) : json(m.system_id)},
      {"host_bytes_per_node", m.host_per_node.value()},
      {"time", time_json(m)},
      {"rollout", rollout_json(m)},
      {"cost", cost_json(m)},
      {"energy", energy_json(m)},
      {"assumptions", note_texts(m.assumptions)},
      {"advice", advice_json(m)},
      {"scaling", scaling_json(m)},
      {"summary", verdict_sentence(m, s, lora)}};
  return j;
}

ordered_json scenario_json(const Scenario& s, const std::optional<Scenario>& lora) {
  ordered_json machines = ordered_json::array();
  for (const MachineEstimate& m : s.machines) machines.push_back(machine_json(m, s, lora));
  ordered_json j{{"label", scenario_label(s.name)},
                 {"method", enum_name(s.method)},
                 {"params_trainable", s.params_trainable},
                 {"memory", memory_json(s, s.memory, s.numbers)},
                 {"compute",
                  {{"flops_per_token", s.compute.flops_per_token},
                   {"flops_per_token_6n", s.compute.flops_per_token_6n},
                   {"total_flops", s.compute.total.value()},
                   {"formula", flops_formula_text(s)}}},
                 {"machines", machines}};
  add_step_json(s, j);
  return j;
}

ordered_json device_object(const Device& d) {
  ordered_json rates = ordered_json::object();
  for (const ComputeRate& r : d.rates) {
    ordered_json rj{{"dense_flops_per_s", r.dense.value()},
                    {"sparse_flops_per_s", r.sparse ? json(r.sparse->value()) : json(nullptr)},
                    {"kind", r.kind == RateKind::kMeasured ? "measured" : "spec"},
                    {"source", r.source}};
    if (!r.note.empty()) rj["note"] = r.note;
    if (r.kind == RateKind::kMeasured) {
      rj["measured_by"] = r.measured_by;
      rj["method"] = r.method;
    }
    if (!r.date.empty()) rj["date"] = r.date;
    rates[std::string{enum_name(r.dtype)}] = rj;
  }
  ordered_json j{{"id", d.id},
                 {"name", d.name},
                 {"vendor", d.vendor},
                 {"category", d.category},
                 {"memory_capacity_bytes", d.memory_capacity.value()},
                 {"memory_bandwidth_bytes_per_s",
                  d.memory_bandwidth ? json(d.memory_bandwidth->value()) : json(nullptr)},
                 {"memory_source", d.memory_source},
                 {"compute", rates}};
  if (d.interconnect) {
    j["interconnect"] = {
        {"name", d.interconnect->name},
        {"bandwidth_bytes_per_s", d.interconnect->bandwidth.value()},
        {"direction", d.interconnect->bidirectional ? "bidirectional" : "per-direction"},
        {"source", d.interconnect->source}};
  }
  if (d.tdp_watts) j["power"] = {{"tdp_watts", d.tdp_watts->value()}, {"source", d.power_source}};
  if (d.price) {
    j["price"] = {{"usd_per_hour", d.price->usd_per_hour.value()},
                  {"date", d.price->date},
                  {"source", d.price->source}};
  }
  if (!d.notes.empty()) j["notes"] = d.notes;
  return j;
}

// model.*: params_total, params_trainable and source as before; name, model_type, family,
// params_active, params_embedding (null for a bare count) and, where known, checkpoint counts.
ordered_json model_json(const Estimate& e) {
  const ModelSource& m = e.job.model;
  const auto c = m.counts;
  ordered_json j{
      {"params_total", e.job.params},
      {"params_trainable", e.primary.params_trainable},
      {"source", m.kind},
      {"name", m.architecture ? json(m.name) : json(nullptr)},
      {"model_type", m.architecture ? json(m.architecture->model_type) : json(nullptr)},
      {"family", m.architecture ? json(family_name(m.architecture->model_type)) : json(nullptr)},
      {"params_active", c ? json(c->active) : json(nullptr)},
      {"params_embedding", c ? json(c->embedding) : json(nullptr)}};
  if (!c) return j;
  j["params_input_embedding"] = c->input_embedding;
  j["params_lm_head"] = c->lm_head;
  j["params_mtp"] = c->mtp;
  j["params_vision"] = c->vision;
  j["origin"] = m.origin;
  if (!m.source.empty()) j["published_source"] = m.source;
  if (m.checkpoint) {
    ordered_json by_dtype = ordered_json::object();
    for (const auto& [dtype, n] : m.checkpoint->elements_by_dtype) by_dtype[dtype] = n;
    j["checkpoint"] = {{"files", m.checkpoint->files.size()},
                       {"tensors", m.checkpoint->tensors},
                       {"elements", m.checkpoint->elements},
                       {"parameter_elements", m.checkpoint->parameter_elements()},
                       {"buffer_elements", m.checkpoint->buffer_elements},
                       {"scale_elements", m.checkpoint->scale_elements},
                       {"elements_by_dtype", by_dtype},
                       {"data_bytes", m.checkpoint->data_bytes}};
  }
  j["warnings"] = m.warnings;
  return j;
}

}  // namespace

ordered_json estimate_object(const Estimate& e) {
  const TrainingJob& job = e.job;
  ordered_json root{
      {"schema_version", kJsonSchemaVersion},
      {"tool", tool_block()},
      {"units",
       {{"memory", "bytes (decimal GB = 1e9 in text output)"},
        {"compute", "FLOP"},
        {"rate", "FLOP/s"},
        {"time", "seconds; hours where the key says so"}}},
      {"model", model_json(e)},
      {"tokens", job.tokens},
      {"method", enum_name(job.method)},
      {"dora", job.lora.dora},
      {"lora_modules_to_save", job.lora.modules_to_save},
      {"galore_rank", job.galore_rank},
      {"job_kind", enum_name(job_kind(job))},
      {"trainer",
       {{"objective", enum_name(job.objective)},
        {"rows_per_example", rows_per_example(job.objective)},
        {"reference_forward", reference_forward(job)},
        {"reference_weights", reference_weights(job)},
        {"precompute_ref_log_probs", job.precompute_ref_log_probs}}},
      // The real fraction: trainable parameters (adapters, or the unfrozen part) over the model's.
      {"trainable_fraction",
       job.method == Method::kFull ? json(nullptr) : json(e.primary.params_trainable / job.params)},
      {"recipe",
       {{"id", e.recipe.id},
        {"title", e.recipe.title},
        {"compute_dtype", enum_name(e.recipe.compute_dtype)},
        {"bytes_per_trainable_param", e.recipe.bytes_per_trainable_param()},
        {"source", e.recipe.source}}},
      {"utilization_given", job.utilization ? json(*job.utilization) : json(nullptr)},
      {"devices", job.devices},
      {"zero_stage", job.zero_stage},
  };
  root["parallel"] = parallel_json(e.primary.layout);
  const ordered_json primary = scenario_json(e.primary, e.lora_alternative);
  root["memory"] = primary["memory"];
  root["compute"] = primary["compute"];
  root["machines"] = primary["machines"];
  // The first machine's time, cost and energy, at the top for scripts that ask about one.
  const bool first = !primary["machines"].empty();
  root["time"] = first ? primary["machines"][0]["time"] : ordered_json(nullptr);
  root["cost"] = first ? primary["machines"][0]["cost"] : ordered_json(nullptr);
  root["energy"] = first ? primary["machines"][0]["energy"] : ordered_json(nullptr);
  root["lora_alternative"] =
      e.lora_alternative ? scenario_json(*e.lora_alternative, std::nullopt) : ordered_json(nullptr);
  add_setup_json(e, root);
  return root;
}

std::string estimate_json(const Estimate& e) { return dump_json(estimate_object(e)); }

ordered_json parallel_json(const Layout& l) {
  return {{"dp", l.dp()},
          {"tp", l.parallel.tp},
          {"pp", l.parallel.pp},
          {"cp", l.parallel.cp},
          {"ep", l.parallel.ep},
          {"etp", l.expert_tp()},
          {"virtual_stages", l.parallel.virtual_stages},
          {"first_stage_layers", l.parallel.first_stage_layers > 0
                                     ? ordered_json(l.parallel.first_stage_layers)
                                     : ordered_json(nullptr)},
          {"last_stage_layers", l.parallel.last_stage_layers > 0
                                    ? ordered_json(l.parallel.last_stage_layers)
                                    : ordered_json(nullptr)},
          {"edge_layers", l.parallel.edge_layers},
          {"sequence_parallel", l.parallel.sequence_parallel},
          {"pp_scatter_gather", l.parallel.pp_scatter_gather},
          {"zero", l.zero_stage},
          {"offload", enum_name(l.parallel.offload)},
          {"shard_group", l.parallel.shard_group},
          {"micro_batch", l.micro_batch},
          {"grad_accum", l.grad_accum},
          {"recompute", enum_name(l.recompute)},
          {"offload_activations", l.offload_activations},
          {"overlap_tp", l.overlap_tp >= 0.0 ? ordered_json(l.overlap_tp) : ordered_json(nullptr)},
          {"recompute_layers",
           l.recompute_layers >= 0 ? ordered_json(l.recompute_layers) : ordered_json(nullptr)}};
}

ordered_json tool_block() {
  return {{"name", "trainbudget"},
          {"version", build_info::kVersion},
          {"commit", build_info::kGitCommit},
          {"build_type", build_info::kBuildType}};
}

std::string devices_json(const std::vector<Device>& devices) {
  ordered_json arr = ordered_json::array();
  for (const Device& d : devices) arr.push_back(device_object(d));
  return dump_json(std::move(arr));
}

std::string device_json(const Device& device) { return dump_json(device_object(device)); }

std::string recipes_json(double params) {
  ordered_json arr = ordered_json::array();
  for (const RecipeBreakdown& b : recipe_breakdowns()) {
    arr.push_back({{"id", b.recipe->id},
                   {"title", b.recipe->title},
                   {"compute_dtype", enum_name(b.recipe->compute_dtype)},
                   {"bytes_per_param",
                    {{"weights", b.weights},
                     {"gradients", b.gradients},
                     {"optimizer_states", b.optimizer},
                     {"master_weights", b.master},
                     {"total", b.total()}}},
                   {"params", params},
                   {"total_bytes", b.total() * params},
                   {"source", b.recipe->source}});
  }
  ordered_json root{{"schema_version", kJsonSchemaVersion}, {"recipes", arr}};
  return dump_json(std::move(root));
}

}  // namespace tb::report
