// verl's Megatron actor (strategy megatron, ppo_megatron_trainer.yaml) read as the fields it
// means, and which of verl's base configs a file extends (docs/configs.md, "verl").
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "trainbudget/spec/excerpt.hpp"
#include "verl_reader.hpp"

namespace tb::api::config_detail {

namespace {

// Whether the config's Hydra defaults name a base config containing `part`: an overlay's
// `defaults`, or a run script's --config-name (verl_script_overrides passes it as `defaults`).
bool defaults_name(const json& cfg, std::string_view part) {
  const json* d = cfg.is_object() && cfg.contains("defaults") ? &cfg["defaults"] : nullptr;
  if (d == nullptr) return false;
  const auto names = [&](const json& v) {
    return v.is_string() && v.get<std::string>().find(part) != std::string::npos;
  };
  if (names(*d)) return true;
  return d->is_array() && std::any_of(d->begin(), d->end(), names);
}

}  // namespace

bool megatron_defaults(const json& cfg) { return defaults_name(cfg, "ppo_megatron_trainer"); }

bool one_step_off_defaults(const json& cfg) { return defaults_name(cfg, "one_step_off"); }

// The adapters' targets under Megatron-Bridge's names (model.lora.target_modules, default
// linear_qkv, linear_proj, linear_fc1, linear_fc2 in _generated_ppo_megatron_trainer.yaml at
// b178a3c): the fused q/k/v projection, the output projection, the gate-and-up and the down
// projection, the experts' as the dense MLP's.
void read_megatron_lora_targets(VerlReader& r) {
  const std::string key = "actor_rollout_ref.model.lora.target_modules";
  const json* given = r.at(key);
  const json names = given != nullptr && given->is_array()
                         ? *given
                         : json::array({"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"});
  if (given != nullptr && !given->is_array()) {
    throw VerlReader::bad(key, "is not a list of module names",
                          "a list of linear_qkv, linear_proj, linear_fc1, linear_fc2");
  }
  std::vector<std::string> targets;
  for (const json& name : names) {
    const std::string n = name.is_string() ? name.get<std::string>() : name.dump();
    if (n == "linear_qkv") {
      targets.insert(targets.end(), {"q", "k", "v"});
    } else if (n == "linear_proj") {
      targets.emplace_back("o");
    } else if (n == "linear_fc1") {
      targets.insert(targets.end(), {"gate", "up"});
    } else if (n == "linear_fc2") {
      targets.emplace_back("down");
    } else {
      throw VerlReader::bad(key, fmt::format("names '{}', which is not modelled", excerpt(n)),
                            "linear_qkv, linear_proj, linear_fc1, linear_fc2");
    }
  }
  if (targets.empty()) {
    throw VerlReader::bad(key, "is empty", "linear_qkv, linear_proj, linear_fc1, linear_fc2");
  }
  r.set("lora_targets", fmt::format("{}", fmt::join(targets, ",")),
        given != nullptr ? key : key + " (verl's default: every linear)");
}

// The Megatron actor's layout (verl/trainer/config/_generated_ppo_megatron_trainer.yaml at
// b178a3c: actor.megatron, Megatron-Core's parallel sizes): tp x pp x cp GPUs a data-parallel
// rank, returned.
std::int64_t read_megatron_layout(VerlReader& r, std::int64_t gpus) {
  const std::string at = "actor_rollout_ref.actor.megatron.";
  const std::int64_t tp = r.count(at + "tensor_model_parallel_size", 1);
  const std::int64_t pp = r.count(at + "pipeline_model_parallel_size", 1);
  const std::int64_t cp = r.count(at + "context_parallel_size", 1);
  if (gpus % (tp * pp * cp) != 0) {
    throw VerlReader::bad(
        at + "tensor_model_parallel_size",
        fmt::format("x pipeline x context = {} does not divide the {} GPUs", tp * pp * cp, gpus),
        "tp x pp x cp a divisor of n_gpus_per_node x nnodes");
  }
  r.set("tp", std::to_string(tp), at + "tensor_model_parallel_size");
  r.set("pp", std::to_string(pp), at + "pipeline_model_parallel_size");
  r.set("cp", std::to_string(cp), at + "context_parallel_size");
  r.set("ep", std::to_string(r.count(at + "expert_model_parallel_size", 1)),
        at + "expert_model_parallel_size");
  if (r.at(at + "expert_tensor_parallel_size") != nullptr) {
    r.set("etp", std::to_string(r.count(at + "expert_tensor_parallel_size", 1)),
          at + "expert_tensor_parallel_size");
  }
  if (r.at(at + "virtual_pipeline_model_parallel_size") != nullptr) {
    r.set("virtual_stages", std::to_string(r.count(at + "virtual_pipeline_model_parallel_size", 1)),
          at + "virtual_pipeline_model_parallel_size");
  }
  if (tp > 1 && r.flag(at + "sequence_parallel", true)) {
    r.set("sequence_parallel", "true", at + "sequence_parallel");
  }
  return tp * pp * cp;
}

// The Megatron actor (workers/megatron_workers.py over Megatron-Core): the distributed optimizer
// (ZeRO-1), recompute as override_transformer_config sets it (none by default), padding removed
// (thd) unless use_remove_padding is off, offload between phases as the FSDP actor's.
void read_megatron_actor(VerlReader& r) {
  const std::string at = "actor_rollout_ref.actor.megatron.";
  r.set("framework", "megatron", "actor_rollout_ref.actor.strategy (megatron)");
  if (r.flag(at + "use_distributed_optimizer", true)) {
    r.set("zero", "1", at + "use_distributed_optimizer");
  }
  const std::string granularity =
      r.text(at + "override_transformer_config.recompute_granularity", "none");
  if (granularity != "none" && granularity != "full" && granularity != "selective") {
    throw VerlReader::bad(at + "override_transformer_config.recompute_granularity",
                          fmt::format("'{}' is not modelled", excerpt(granularity)),
                          "full|selective|null");
  }
  r.set("recompute", granularity, at + "override_transformer_config.recompute_granularity");
  // verl builds TransformerConfig without gradient_accumulation_fusion (config_converter.py),
  // whose Megatron-Core default is false: each micro-batch's gradient added into the buffer.
  const std::string fusion = at + "override_transformer_config.gradient_accumulation_fusion";
  r.set("grad_accumulation_kernel", r.flag(fusion, false) ? "fused" : "add", fusion);
  r.set("pack_sequences", r.flag(at + "use_remove_padding", true) ? "true" : "false",
        at + "use_remove_padding");
  const std::int64_t rank =
      static_cast<std::int64_t>(r.number("actor_rollout_ref.model.lora.rank", 0));
  if (rank > 0) {
    r.set("method", "lora", "actor_rollout_ref.model.lora.rank");
    r.set("lora_rank", std::to_string(rank), "actor_rollout_ref.model.lora.rank");
    read_megatron_lora_targets(r);
  }
  // The reference is a module of its own on the device (megatron_workers.py at b178a3c: ref_module,
  // moved to the host between its passes only with ref.megatron.param_offload), not NeMo RL's
  // state dict swapped into the policy, which the megatron profile assumes.
  r.set("pipeline_pads_packs", "false",
        "actor_rollout_ref.actor.megatron (Megatron-Core's variable_seq_lengths, which verl sets)");
  const std::string ref_offload = "actor_rollout_ref.ref.megatron.param_offload";
  r.set("reference_on_host", r.flag(ref_offload, false) ? "true" : "false", ref_offload);
  if (r.flag(at + "param_offload", false)) {
    r.set("offload_between_phases", "params", at + "param_offload (between phases)");
  } else if (r.flag(at + "optimizer_offload", false)) {
    r.set("offload_between_phases", "optimizer", at + "optimizer_offload (between phases)");
  } else {
    r.set("offload_between_phases", "none", "actor_rollout_ref.actor.megatron (no offload)");
  }
}

}  // namespace tb::api::config_detail
