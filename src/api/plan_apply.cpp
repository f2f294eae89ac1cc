// A plan candidate back in the estimate's terms (plan_apply.hpp).
#include "plan_apply.hpp"

#include <fmt/format.h>

#include "trainbudget/api/field.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb::api {

TrainingJob job_of(const TrainingJob& workload, const Layout& l) {
  TrainingJob j = workload;
  j.devices = l.devices;
  j.parallel = l.parallel;
  j.zero_stage = l.zero_stage;
  // The layout counts rows; the job, examples (a preference objective's pairs).
  j.setup.micro_batch = l.micro_batch / rows_per_example(workload.objective);
  j.setup.grad_accumulation = l.grad_accum;
  j.setup.recompute = l.recompute;
  j.setup.recompute_layers = l.recompute_layers;
  j.setup.offload_activations = l.offload_activations;
  if (l.overlap_tp >= 0.0) j.overlap.tp = l.overlap_tp;
  return j;
}

std::map<std::string, std::string> apply_fields(const EstimateRequest& r, const TrainingJob& j,
                                                const Layout& l) {
  // Everything the request gave that an estimate takes (LoRA targets, attention, price,
  // overlaps, ...), then the candidate's own choices over it.
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : r.values) {
    const Field* f = find_field(estimate_fields(), key);
    if (f == nullptr || key == "format") continue;
    out[key] = value;
  }
  for (const char* chosen : {"tp", "pp", "cp", "ep", "etp", "virtual_stages", "sequence_parallel",
                             "zero", "offload", "shard_group", "micro_batch", "grad_accum",
                             "recompute", "devices", "method", "recipe", "lora_rank"}) {
    out.erase(chosen);
  }
  // With a model the rank stands for the fraction (the two cannot be combined).
  if (uses_adapters(j.method) && j.model.architecture) out.erase("trainable_fraction");
  if (!r.model.empty()) {
    out["model"] = r.model;
  } else {
    out["params"] = fmt::format("{:g}", j.params);
  }
  out["tokens"] = fmt::format("{:g}", j.tokens);
  out["machine"] = r.machines;
  if (!j.system.empty()) out["system"] = j.system;
  out["method"] = std::string{enum_name(j.method)};
  out["recipe"] = j.recipe_id;
  if (uses_adapters(j.method) && j.model.architecture) {
    out["lora_rank"] = std::to_string(j.lora.rank);
    out["lora_targets"] = fmt::format("{}", fmt::join(j.lora.targets, ","));
  }
  out["devices"] = std::to_string(l.devices);
  if (j.rollout.steps_per_generation > 0) {
    out["steps_per_generation"] = std::to_string(j.rollout.steps_per_generation);
  }
  const Parallelism& x = l.parallel;
  if (x.tp > 1) out["tp"] = std::to_string(x.tp);
  if (x.pp > 1) out["pp"] = std::to_string(x.pp);
  if (x.cp > 1) out["cp"] = std::to_string(x.cp);
  if (x.ep > 1) out["ep"] = std::to_string(x.ep);
  if (x.etp > 0 && x.etp != x.tp) out["etp"] = std::to_string(x.etp);
  if (x.virtual_stages > 1) out["virtual_stages"] = std::to_string(x.virtual_stages);
  if (x.sequence_parallel) out["sequence_parallel"] = "true";
  if (l.zero_stage > 0) out["zero"] = std::to_string(l.zero_stage);
  if (x.offload != Offload::kNone) out["offload"] = std::string{enum_name(x.offload)};
  if (x.shard_group > 0) out["shard_group"] = std::to_string(x.shard_group);
  if (j.model.architecture) {
    out["micro_batch"] = std::to_string(j.setup.micro_batch);
    // Online RL trains on max_prompt_length + max_completion_length, which the request carries.
    if (!online_rl(j.objective)) out["seq_len"] = std::to_string(l.seq_len);
    if (l.recompute != Recompute::kNone) out["recompute"] = std::string{enum_name(l.recompute)};
    if (l.recompute == Recompute::kFull && l.recompute_layers >= 0) {
      out["recompute_layers"] = std::to_string(l.recompute_layers);
    }
    if (l.offload_activations) out["offload_activations"] = "true";
    if (l.overlap_tp >= 0.0) out["overlap_tp"] = fmt::format("{:g}", l.overlap_tp);
  }
  if (l.grad_accum > 1 && j.model.architecture) out["grad_accum"] = std::to_string(l.grad_accum);
  return out;
}

}  // namespace tb::api
