// The infer command's JSON (docs/json.md, "infer"): the weights and the KV cache of the model,
// then one object per machine with its memory, limits, prefill and decode.
#include "serving_json.hpp"

#include "estimate_json.hpp"
#include "json_dump.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/architecture.hpp"

namespace tb::report {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The fewest devices that serve the request (null when tp was given).
ordered_json size_json(const ServingMachine& m) {
  if (!m.size) return nullptr;
  const ServingSize& z = *m.size;
  return ordered_json{
      {"devices", z.devices},
      {"tp", z.tp},
      {"pp", z.pp},
      {"within_one_node", z.fits},
      {"decode_tokens_per_s", z.fits ? json(z.decode_tokens_per_s) : json(nullptr)}};
}

ordered_json bytes_or_null(const std::optional<Bytes>& b) {
  return b ? ordered_json(b->value()) : ordered_json(nullptr);
}

}  // namespace

ordered_json serving_machine_object(const ServingMachine& m) {
  ordered_json bandwidth = nullptr;
  if (m.bandwidth) {
    bandwidth = {{"peak_bytes_per_s", m.bandwidth->peak.value()},
                 {"achievable_bytes_per_s", m.bandwidth->achievable.value()},
                 {"fraction", m.bandwidth->fraction},
                 {"measured", m.bandwidth->measured},
                 {"source", m.bandwidth->source}};
  }
  ordered_json rate = nullptr;
  if (m.rate) {
    rate = {{"dtype", enum_name(m.rate->dtype)},
            {"dense_flops_per_s", m.rate->dense.value()},
            {"gemm_efficiency", m.gemm.value},
            {"gemm_source", gemm_source_text(m.gemm)},
            {"source", m.rate->source}};
  }
  const bool timed = m.decode_tokens_per_s > 0.0;
  return {{"id", m.device.id},
          {"name", m.device.name},
          {"devices", m.devices},
          {"system", m.system_id.empty() ? json(nullptr) : json(m.system_id)},
          {"fits", m.fits},
          {"serving_size", size_json(m)},
          {"memory",
           {{"usable_bytes", m.usable.value()},
            {"weights_bytes", m.weights.value()},
            {"kv_bytes", m.kv.value()},
            {"workspace_bytes", m.workspace.value()},
            {"runtime_bytes", m.runtime.value()},
            {"needed_bytes", m.needed.value()}}},
          {"kv_bytes", m.kv.value()},
          {"max_concurrency", m.max_concurrency},
          {"max_context", m.max_context},
          {"bandwidth", bandwidth},
          {"rate", rate},
          {"prefill_seconds", m.rate ? json(m.prefill.count()) : json(nullptr)},
          {"ttft_seconds", m.rate ? json(m.prefill.count()) : json(nullptr)},
          {"decode_step",
           {{"bytes", m.step_bytes.value()},
            {"memory_seconds", m.step_memory.count()},
            {"compute_seconds", m.step_compute.count()},
            {"comm_seconds", m.step_comm.count()},
            {"seconds", m.step.count()}}},
          {"decode_tokens_per_s", timed ? json(m.decode_tokens_per_s) : json(nullptr)},
          {"aggregate_tokens_per_s", timed ? json(m.aggregate_tokens_per_s) : json(nullptr)},
          {"bound", enum_name(m.bound)},
          {"compute_bound_batch",
           m.compute_bound_batch > 0 ? json(m.compute_bound_batch) : json(nullptr)},
          {"assumptions", note_texts(m.assumptions)}};
}

ordered_json serving_object(const ServingEstimate& e) {
  const ServingJob& job = e.job;
  const ModelSource& src = job.model;
  ordered_json machines = ordered_json::array();
  for (const ServingMachine& m : e.machines) machines.push_back(serving_machine_object(m));
  return {{"schema_version", kJsonSchemaVersion},
          {"tool", tool_block()},
          {"command", "infer"},
          {"units", {{"memory", "bytes"}, {"rate", "FLOP/s, bytes/s"}, {"time", "seconds"}}},
          {"model",
           {{"name", src.architecture ? json(src.name) : json(nullptr)},
            {"source", src.kind},
            {"family",
             src.architecture ? json(family_name(src.architecture->model_type)) : json(nullptr)},
            {"params_total", job.params}}},
          {"serving",
           {{"weights", enum_name(job.setup.weights)},
            {"kv_dtype", enum_name(job.setup.kv)},
            {"context", job.setup.context},
            {"concurrency", job.setup.concurrency},
            {"prompt", job.setup.prompt},
            {"tp", job.setup.tp}}},
          {"weights_bytes", e.weights.total.value()},
          {"weights_bits_per_weight", e.weights.bits_per_weight},
          {"weights_read_per_step_bytes", e.weights.always_read.value()},
          {"routed_experts_bytes", e.weights.routed_experts.value()},
          {"kv_bytes_per_token", bytes_or_null(e.kv_per_token)},
          {"kv_bytes_per_sequence", bytes_or_null(e.kv_per_sequence)},
          {"prefill_flops", e.prefill_flops},
          {"decode_flops_per_token", e.decode_flops_per_token},
          {"machines", machines}};
}

std::string json_of(const ServingEstimate& e) { return dump_json(serving_object(e)); }

}  // namespace tb::report
