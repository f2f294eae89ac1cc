// axolotl's FSDP and data-parallel keys read as the fields they mean (docs/configs.md). axolotl
// exports them to accelerate (src/axolotl/utils/trainer.py, setup_fsdp_envs and
// setup_parallelism_envs, at 067b021c8): any `fsdp` list or `fsdp_config` turns FSDP on, whose
// sharding is FULL_SHARD (ZeRO-3) unless the config asks for another.
#include <fmt/format.h>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
bool read_axolotl_parallel(const json& cfg, const std::string& key, const json& v, Reader& r) {
  TrainingConfig& out = r.out;
  if (key == "fsdp") {
    // The legacy list (full_shard, shard_grad_op, offload, auto_wrap); empty or null: no FSDP.
    if (!v.is_array() || v.empty()) {
      r.none(key);
      return true;
    }
    for (const json& item : v) {
      const std::string s = text_of(item);
      if (s == "full_shard" || s == "hybrid_shard") {
        out.values.try_emplace("zero", "3");
      } else if (s == "shard_grad_op") {
        out.values.try_emplace("zero", "2");
      } else if (s == "offload") {
        out.values["offload"] = "params";
      }
    }
    out.values.try_emplace("zero", "3");
    out.mapped.push_back("fsdp -> zero");
    return true;
  }
  if (key == "fsdp_config") {
    if (!v.is_object()) {
      r.unknown(key);
      return true;
    }
    out.values.try_emplace("zero", "3");  // FSDP on: FULL_SHARD unless a key below says otherwise
    out.mapped.push_back("fsdp_config -> zero");
    for (const auto& [k, fv] : v.items()) read_fsdp_config_key(k, fv, r);
    return true;
  }
  if (key == "fsdp_version") {
    r.none(key);  // FSDP1 and FSDP2 hold the same bytes per rank
    return true;
  }
  if (key == "dp_shard_size") {
    // The FSDP degree: every device when no other parallel size is set (devices = dp_shard x
    // dp_replicate x tp x cp in axolotl's mesh); with one, not read.
    bool alone = true;
    for (const char* other :
         {"dp_replicate_size", "tensor_parallel_size", "context_parallel_size"}) {
      const auto it = cfg.find(other);
      alone =
          alone && (it == cfg.end() || !it->is_number_integer() || it->get<std::int64_t>() <= 1);
    }
    if (alone) {
      r.set("devices", v, key);
    } else {
      r.unknown(fmt::format("{} (with another parallel size: give devices)", key));
    }
    return true;
  }
  if (key == "model_quantization_config") {
    // Mxfp4Config(dequantize=True): gpt-oss's MXFP4 experts loaded as bf16, as counted.
    if (text_of(v) == "Mxfp4Config") {
      r.none(key);
    } else {
      r.unknown(fmt::format("{}={}", key, excerpt(text_of(v))));
    }
    return true;
  }
  if (key == "model_quantization_config_kwargs") {
    const bool dequantize = v.is_object() && v.value("dequantize", false) == true;
    if (dequantize) {
      r.none(key);
    } else {
      r.unknown(fmt::format("{} without dequantize: true (MXFP4 weights kept: not modelled)", key));
    }
    return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
