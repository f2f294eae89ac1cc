// accelerate's config YAML read as the fields it means (docs/configs.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {

void read_fsdp_config_key(const std::string& raw, const json& v, Reader& r) {
  TrainingConfig& out = r.out;
  // accelerate names its keys fsdp_*; axolotl drops the prefix (check_fsdp_config_kwargs_prefix).
  const std::string key = raw != "fsdp_version" && raw.starts_with("fsdp_") ? raw.substr(5) : raw;
  const std::string name = fmt::format("fsdp_config.{}", raw);
  if (key == "sharding_strategy" || key == "reshard_after_forward") {
    // FSDP1's strategy by name or number; FSDP2's reshard_after_forward, true (FULL_SHARD) or
    // false (SHARD_GRAD_OP's layout: the gathered parameters kept from forward to backward),
    // which accelerate also reads as a strategy name.
    const std::string stage =
        v.is_boolean() ? (v.get<bool>() ? "3" : "2") : fsdp_stage_of(text_of(v));
    if (stage.empty()) {
      r.unknown(fmt::format("{}={}", name, excerpt(text_of(v))));
    } else {
      out.values.insert_or_assign("zero", stage);
      out.mapped.push_back(name + " -> zero");
    }
  } else if (key == "offload_params") {
    if (r.flag(v)) {
      out.values["offload"] = "params";  // FSDP's CPUOffload: parameters, gradients, the step
      out.mapped.push_back(name + " -> offload");
    } else {
      r.none(name);
    }
  } else if (key == "activation_checkpointing") {
    out.values["recompute"] = r.flag(v) ? "full" : "none";
    out.mapped.push_back(name + " -> recompute");
  } else {
    r.none(name);  // wrapping, state dicts, loading, prefetch, pinning: no effect on the budget
  }
}

std::string fsdp_stage_of(const std::string& s) {
  if (s == "FULL_SHARD" || s == "1" || s == "HYBRID_SHARD" || s == "4") return "3";
  if (s == "SHARD_GRAD_OP" || s == "2") return "2";
  if (s == "NO_SHARD" || s == "3") return "0";
  return "";
}

// accelerate's config YAML (accelerate config; examples/config_yaml_templates).
void read_accelerate(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "num_processes") {
      r.set("devices", v, key);
    } else if (key == "deepspeed_config" && v.is_object()) {
      out.keeps_fp32_master = true;  // DeepSpeed's engine keeps its own fp32 master
      for (const auto& [dk, dv] : v.items()) {
        const std::string name = fmt::format("deepspeed_config.{}", dk);
        if (dk == "zero_stage") {
          r.set("zero", dv, name);
        } else if (dk == "offload_optimizer_device" || dk == "offload_param_device") {
          const std::string d = text_of(dv);
          if (d == "cpu" || d == "nvme") {
            const auto it = out.values.find("offload");
            if (dk == "offload_param_device" || it == out.values.end()) {
              out.values["offload"] = dk == "offload_param_device" ? "params" : "optimizer";
            }
            out.mapped.push_back(fmt::format("{} -> offload", name));
          } else {
            r.none(name);
          }
        } else if (dk == "gradient_accumulation_steps") {
          r.set("grad_accum", dv, name);
        } else if (dk == "deepspeed_config_file" && dv.is_string()) {
          follow_deepspeed(dv.get<std::string>(), dir, out);
        } else if (dk == "zero3_init_flag" || dk == "zero3_save_16bit_model" ||
                   dk == "gradient_clipping") {
          r.none(name);
        } else {
          r.unknown(name);
        }
      }
    } else if (key == "fsdp_config" && v.is_object()) {
      // accelerate upcasts a low-precision model's trainable parameters to fp32 under mixed
      // precision, for FSDP1 (accelerator.py, prepare_model) and FSDP2 (utils/fsdp_utils.py,
      // fsdp2_prepare_model: "FSDP upcast of low precision parameters to fp32").
      out.keeps_fp32_master = true;
      // FSDP on: FULL_SHARD, accelerate's default, unless a key below says otherwise.
      if (out.values.try_emplace("zero", "3").second)
        out.mapped.emplace_back("fsdp_config -> zero");
      for (const auto& [fk, fv] : v.items()) read_fsdp_config_key(fk, fv, r);
    } else if (key == "distributed_type" || key == "mixed_precision" ||
               key == "compute_environment" || key == "machine_rank" || key == "num_machines" ||
               key == "main_training_function" || key == "rdzv_backend" || key == "same_network" ||
               key == "use_cpu" || key == "downcast_bf16" || key == "gpu_ids" ||
               key == "enable_cpu_affinity" || key == "debug" || key.rfind("tpu_", 0) == 0) {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
}

}  // namespace tb::api::config_detail
