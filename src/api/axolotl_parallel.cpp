// axolotl's FSDP and data-parallel keys read as the fields they mean (docs/configs.md). axolotl
// exports them to accelerate (src/axolotl/utils/trainer.py, setup_fsdp_envs and
// setup_parallelism_envs, at 067b021c8): any `fsdp` list or `fsdp_config` turns FSDP on, whose
// sharding is FULL_SHARD (ZeRO-3) unless the config asks for another.
#include <fmt/format.h>

#include <algorithm>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {

// axolotl's device mesh (setup_parallelism_envs in src/axolotl/utils/trainer.py, and its
// ParallelismConfig patch in monkeypatch/accelerate/parallelism_config.py, at 067b021c8): each
// size above 1 goes to accelerate's ParallelismConfig, whose mesh (ep, dp_replicate, dp_shard,
// cp, tp) must hold every process, so the product is the devices (under DeepSpeed's sequence
// parallelism the smallest world). FSDP shards over dp_shard and replicates over dp_replicate
// (HSDP): the shard group. expert_parallel_size (the ExpertParallelPlugin's own axis) splits the
// experts; context_parallel_size (and the deprecated sequence_parallel_degree) the sequence.
void read_axolotl_mesh_key(const json& cfg, const std::string& key, const json& v, Reader& r) {
  TrainingConfig& out = r.out;
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1) {
    r.unknown(fmt::format("{}={}", key, excerpt(text_of(v))));
    return;
  }
  if (v.get<std::int64_t>() == 1) {
    r.none(key);
    return;
  }
  if (key == "tensor_parallel_size") r.set("tp", v, key);
  if (key == "context_parallel_size" || key == "sequence_parallel_degree") r.set("cp", v, key);
  if (key == "expert_parallel_size") r.set("ep", v, key);
  const std::int64_t shard = size_of(cfg, "dp_shard_size");
  const std::int64_t replicate = size_of(cfg, "dp_replicate_size");
  if (key == "dp_replicate_size") {
    out.values["shard_group"] = std::to_string(shard);
    out.mapped.push_back(
        fmt::format("{} (HSDP: shards over dp_shard_size {}) -> shard_group", key, shard));
  }
  const std::int64_t tp = size_of(cfg, "tensor_parallel_size");
  const std::int64_t cp =
      std::max(size_of(cfg, "context_parallel_size"), size_of(cfg, "sequence_parallel_degree"));
  // In floating point: sizes the fields refuse later (over 65536) must not overflow here.
  const double mesh = static_cast<double>(shard) * static_cast<double>(replicate) *
                      static_cast<double>(tp) * static_cast<double>(cp) *
                      static_cast<double>(size_of(cfg, "expert_parallel_size"));
  if (out.values.try_emplace("devices", fmt::format("{:.0f}", mesh)).second) {
    out.mapped.push_back(fmt::format("the mesh's sizes (their product, {:.0f}) -> devices", mesh));
  }
}

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
  if (key == "dp_shard_size" || key == "dp_replicate_size" || key == "tensor_parallel_size" ||
      key == "context_parallel_size" || key == "sequence_parallel_degree" ||
      key == "expert_parallel_size") {
    read_axolotl_mesh_key(cfg, key, v, r);
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
