// LLaMA-Factory's v1 YAML (src/llamafactory/v1/config: model_args.py, training_args.py,
// data_args.py, sample_args.py, arg_utils.py; its plugins under v1/plugins; examples/v1), read as
// the fields it means (docs/configs.md, "LLaMA-Factory v1"). The trainer is the launch command's
// (`llamafactory-cli sft|dpo|rm`, v1/launcher.py), not the file's: sft unless a preference key
// says otherwise.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "config_formats.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// peft_config (v1/plugins/model_plugins/peft.py: LoraParams, FreezeParams).
void read_peft(const json& p, Reader& r, std::string& method) {
  const std::string name = text_at(p, "name", "");
  if (name == "lora") {
    method = "lora";
    r.out.values["lora_rank"] = text_at(p, "r", "8");  // LoraParams.r
    r.out.values["lora_dropout"] = text_at(p, "lora_dropout", "0.05");
    const std::string targets = text_at(p, "target_modules", "all");
    r.out.values["lora_targets"] = targets == "all" ? "all-linear" : targets;
    r.out.mapped.emplace_back(
        "peft_config (lora: r, lora_dropout, target_modules) -> method, "
        "lora_rank, lora_dropout, lora_targets");
    if (p.contains("use_dora") && r.flag(p["use_dora"]))
      r.set("dora", true, "peft_config.use_dora");
    if (p.contains("modules_to_save") && given(p["modules_to_save"])) {
      r.set("lora_modules_to_save", p["modules_to_save"], "peft_config.modules_to_save");
    }
  } else if (name == "freeze") {
    method = "freeze";
    r.out.mapped.emplace_back("peft_config (freeze) -> method");
    r.unknown(
        "peft_config.freeze_trainable_layers (the last N layers trained: trainable_fraction is "
        "not derived from it)");
  } else {
    r.unknown(fmt::format("peft_config.name={}", excerpt(name)));
  }
}

// dist_config (v1/plugins/trainer_plugins/distributed: fsdp2.py, deepspeed.py, fsdpturbo.py).
void read_dist(const json& d, Reader& r, const std::filesystem::path& dir, bool& deepspeed) {
  const std::string name = text_at(d, "name", "");
  if (name == "fsdp2" || name == "fsdpturbo") {
    // FSDP2Engine: reshard_after_forward defaults to True (FULL_SHARD), False keeps the gathered
    // weights to the backward (SHARD_GRAD_OP).
    const bool reshard = !d.contains("reshard_after_forward") || r.flag(d["reshard_after_forward"]);
    r.set("zero", reshard ? 3 : 2, "dist_config.reshard_after_forward");
    r.out.mapped.push_back(fmt::format("dist_config.name ({}) -> zero", name));
    if (d.contains("offload_params") && r.flag(d["offload_params"])) {
      r.set("offload", "params", "dist_config.offload_params");
    }
    if (d.contains("ep_size")) {
      r.set("ep", d["ep_size"], "dist_config.ep_size");
      // The launch's GPUs are not in the file: at least the expert-parallel group's.
      r.set("devices", d["ep_size"], "dist_config.ep_size (the fewest GPUs that hold it)");
    }
  } else if (name == "deepspeed") {
    deepspeed = true;
    if (d.contains("config_file") && d["config_file"].is_string()) {
      follow_deepspeed(d["config_file"].get<std::string>(), dir, r.out);
    } else {
      r.unknown("dist_config.config_file (deepspeed names no config file)");
    }
  } else {
    r.unknown(fmt::format("dist_config.name={}", excerpt(name)));
  }
}

// kernel_config.name, comma-separated (v1/plugins/model_plugins/kernels/interface.py): "auto"
// applies NPU kernels only (_AUTO_KERNELS has no CUDA entry); liger_kernel patches the model.
void read_kernels(const json& k, Reader& r) {
  const std::string names = text_at(k, "name", "");
  for (const std::string_view one :
       split_comma_list(names, "kernel_config.name", "kernel names, comma-separated")) {
    if (one == "liger_kernel") {
      r.set("use_liger_kernel", true, "kernel_config.name (liger_kernel)");
    } else if (one == "flash-linear-attention") {
      r.none(
          "kernel_config.name (flash-linear-attention: fla's Gated DeltaNet kernels, which "
          "the estimate prices)");
    } else if (one == "auto") {
      r.none("kernel_config.name (auto: NPU kernels only; none on CUDA)");
    } else {
      r.unknown(fmt::format("kernel_config.name={}", excerpt(one)));
    }
  }
}

// Whether the dataset YAML train_dataset names (each entry's converter, v1/plugins/data_plugins/
// converter.py) holds preference pairs ("pair"), which only `llamafactory-cli dpo` trains. Opened
// from where the job is launched, then beside the config, as LLaMA-Factory resolves it; a file
// found in neither says nothing.
bool pairs_in(const std::string& path, const std::filesystem::path& dir) {
  for (const std::filesystem::path& p : {std::filesystem::path{path}, dir / path}) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) continue;
    json data;
    try {
      data = yaml_as_json(io::read_regular_file(p, kMaxConfigBytes));
    } catch (const std::exception&) {
      return false;
    }
    if (!data.is_object()) return false;
    return std::any_of(data.begin(), data.end(), [](const json& entry) {
      return entry.is_object() && text_at(entry, "converter", "") == "pair";
    });
  }
  return false;
}

}  // namespace

bool is_llamafactory_v1(const json& cfg) {
  constexpr std::array<std::string_view, 12> kV1Keys{
      "model_class",         "dist_config",       "peft_config",
      "kernel_config",       "quant_config",      "batching_strategy",
      "sample_backend",      "optim_config",      "init_config",
      "lr_scheduler_config", "global_batch_size", "enable_activation_checkpointing"};
  if (!cfg.contains("model") || !cfg["model"].is_string()) return false;
  return std::any_of(kV1Keys.begin(), kV1Keys.end(),
                     [&](std::string_view k) { return cfg.contains(std::string{k}); });
}

void read_llamafactory_v1(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  // An adapter export (examples/v1/train_lora/export_lora.yaml: `llamafactory-cli export`)
  // trains nothing.
  if (cfg.contains("peft_config") && cfg["peft_config"].is_object() &&
      cfg["peft_config"].contains("export_dir") && !cfg.contains("train_dataset")) {
    throw InvalidRequest("config",
                         "is LLaMA-Factory v1's adapter export (peft_config.export_dir), which "
                         "trains nothing",
                         "a training config (train_dataset, micro_batch_size, cutoff_len, ...)");
  }
  // TrainingArguments: enable_activation_checkpointing and bf16 default to True.
  out.values["recompute"] = "full";
  out.mapped.emplace_back("(activation checkpointing on by default) -> recompute");
  std::string method = "full";
  bool deepspeed = false;
  bool bf16 = true;
  bool four_bit = false;
  constexpr std::array<std::string_view, 25> kNoEffect{"trust_remote_code",
                                                       "custom_chat_template",
                                                       "output_dir",
                                                       "learning_rate",
                                                       "num_train_epochs",
                                                       "max_grad_norm",
                                                       "batching_workers",
                                                       "dist_timeout",
                                                       "lr_scheduler_config",
                                                       "seed",
                                                       "full_determinism",
                                                       "resume_from_checkpoint",
                                                       "save_steps",
                                                       "save_epochs",
                                                       "save_ckpt_as_hf",
                                                       "save_total_limit",
                                                       "logging_steps",
                                                       "eval_dataset",
                                                       "sample_backend",
                                                       "max_new_tokens",
                                                       "init_config",
                                                       "pref_beta",
                                                       "pref_ftx",
                                                       "dpo_label_smoothing",
                                                       "simpo_gamma"};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "model") {
      r.set("model", v, key);
    } else if (key == "model_class") {
      if (text_of(v) != "llm") r.unknown(fmt::format("model_class={}", excerpt(text_of(v))));
    } else if (key == "flash_attn") {
      out.values["attention"] = text_of(v) == "eager" ? "eager" : "flash";
      out.mapped.emplace_back("flash_attn -> attention");
    } else if (key == "micro_batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "max_steps") {
      if (v.is_number() && v.get<double>() > 0) {
        r.set("steps", v, key);
      } else {
        r.none(key);
      }
    } else if (key == "global_batch_size") {
      r.unknown(
          "global_batch_size (the accumulation is global / (dp x micro_batch_size), and "
          "the devices are the launch's)");
    } else if (key == "cutoff_len") {
      r.set("seq_len", v, key);
    } else if (key == "bf16") {
      bf16 = !v.is_boolean() || v.get<bool>();
      if (!bf16) r.set("activation_dtype", "fp32", key);
    } else if (key == "enable_activation_checkpointing") {
      out.values["recompute"] = r.flag(v) ? "full" : "none";
      out.mapped.emplace_back("enable_activation_checkpointing -> recompute");
    } else if (key == "batching_strategy") {
      r.none("batching_strategy (rows of cutoff_len tokens priced either way)");
    } else if (key == "dist_config") {
      if (given(v)) read_dist(v, r, dir, deepspeed);
    } else if (key == "dp_size") {
      r.unknown("dp_size (the devices are the launch's: devices)");
    } else if (key == "cp_size") {
      const std::string mode = text_at(cfg, "cp_mode", "ulysses");
      if (mode == "ulysses" && text_of(v) != "1") {
        r.unknown("cp_size with cp_mode ulysses (all-to-all sequence parallelism: not modelled)");
      } else {
        r.set("cp", v, key);
      }
    } else if (key == "cp_mode") {
      r.none(key);
    } else if (key == "mp_replicate_size" || key == "mp_shard_size") {
      if (text_of(v) != "1")
        r.unknown(fmt::format("{} (HSDP's replicate x shard mesh: not modelled)", key));
    } else if (key == "optim_config") {
      const std::string name = text_at(v, "name", "adamw");
      if (name != "adamw") {
        r.unknown(fmt::format("optim_config.name={} (AdamW's states counted)", excerpt(name)));
      }
    } else if (key == "peft_config") {
      if (given(v)) read_peft(v, r, method);
    } else if (key == "kernel_config") {
      if (given(v)) read_kernels(v, r);
    } else if (key == "quant_config") {
      if (!given(v)) continue;
      const std::string bits = text_at(v, "quantization_bit", "4");
      four_bit = bits == "4" || bits == "8";
      if (bits == "8") {
        out.values["qlora_bits"] = "8";  // bitsandbytes' LLM.int8
        out.mapped.emplace_back("quant_config (quantization_bit 8) -> method, qlora_bits");
      } else if (four_bit) {
        out.mapped.emplace_back("quant_config (quantization_bit 4) -> method");
      } else {
        r.unknown(
            fmt::format("quant_config.quantization_bit={} (counted in 16 bits)", excerpt(bits)));
      }
    } else if (key == "pref_loss") {
      const std::string loss = text_of(v);
      out.values["trainer"] = loss == "sigmoid" ? "dpo" : loss;
      out.mapped.emplace_back("pref_loss -> trainer");
    } else if (key == "train_dataset") {
      if (v.is_string() && pairs_in(v.get<std::string>(), dir) && !cfg.contains("pref_loss")) {
        out.values["trainer"] = "dpo";
        out.mapped.emplace_back("train_dataset (converter pair: llamafactory-cli dpo) -> trainer");
      } else {
        r.none(key);
      }
    } else if (key == "ld_alpha") {
      if (given(v)) r.unknown(key);
    } else if (one_of(key, kNoEffect)) {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
  if (method == "lora") {
    out.values["method"] = four_bit ? "qlora" : "lora";
  } else {
    out.values["method"] = method;
    out.values.erase("qlora_bits");  // a quantized base trains adapters only
  }
  // The model is loaded with dtype "auto" (core/model_engine.py) and FSDP2's mixed precision
  // keeps the sharded parameters in it (param_dtype bf16, fsdp2.py), as DDP and one device do:
  // no fp32 copy unless DeepSpeed's engine keeps one.
  if (method == "full" && !deepspeed) keep_bf16_weights(out, "dist_config");
  if (!out.values.count("trainer")) {
    out.mapped.emplace_back(
        "(the trainer is the launch command's, llamafactory-cli sft|dpo|rm: sft assumed) -> "
        "trainer");
  }
}

}  // namespace tb::api::config_detail
