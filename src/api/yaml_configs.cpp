// The YAML training configs users have (docs/configs.md): which format a file is, and two of them,
// axolotl and LLaMA-Factory, read as the fields they mean (torchtune_config.cpp and
// accelerate_config.cpp read the others). Keys understood but without an effect on the estimate
// are listed as such, keys not understood are listed, a value the estimate cannot model (an
// 8-bit base) is named; nothing is dropped silently.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {

// A full fine-tune's weights as axolotl keeps them. With bf16 it loads the model in bf16
// (utils/config/__init__.py, normalize_config: cfg.torch_dtype = torch.bfloat16); neither the
// Trainer nor axolotl's FSDP2 preparation (monkeypatch/accelerate/fsdp2.py, fsdp2_prepare_model,
// which replaces accelerate's upcast) makes an fp32 copy, and AdamW keeps its moments in the
// parameters' dtype. DeepSpeed keeps its own fp32 master and moments, and accelerate's own FSDP
// preparation upcasts the model to fp32: those keep the optimizer's recipe.
namespace {
void axolotl_bf16_weights(const json& cfg, TrainingConfig& out) {
  const json bf16 = cfg.value("bf16", json());
  const bool on = (bf16.is_boolean() && bf16.get<bool>()) || (bf16.is_string() && bf16 == "auto");
  // FSDP through accelerate upcasts to fp32 unless axolotl's own FSDP2 preparation replaces it,
  // which it patches in only for fsdp_config with fsdp_version 2 (loaders/patch_manager.py).
  const json fsdp_list = cfg.value("fsdp", json());
  const bool fsdp = cfg.contains("fsdp_config") || (fsdp_list.is_array() && !fsdp_list.empty());
  // The version at the top or inside fsdp_config (schemas/validation.py, _resolve_fsdp_version).
  const json inner = cfg.value("fsdp_config", json::object());
  const json version =
      cfg.value("fsdp_version", inner.is_object() ? inner.value("fsdp_version", json()) : json());
  const bool axolotl_fsdp2 = cfg.contains("fsdp_config") && text_of(version) == "2";
  const bool accelerate_fsdp = fsdp && !axolotl_fsdp2;
  if (!on || cfg.contains("deepspeed") || accelerate_fsdp || out.values.contains("method")) return;
  keep_bf16_weights(out, "bf16");
}
}  // namespace

// axolotl's config (axolotl docs/config-reference, src/axolotl/utils/schemas/config.py).
void read_axolotl(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  std::string adapter;
  bool four_bit = false;
  bool eight_bit = false;  // load_in_8bit: LLM.int8 under the adapters (axolotl's 8-bit LoRA)
  // axolotl reads the lora_* keys only with an adapter (lora, qlora); a full fine-tune's file
  // may still carry them (its archived examples do).
  const json adapter_key = cfg.value("adapter", json());
  const bool adapted = adapter_key.is_string() && !adapter_key.get<std::string>().empty();
  const bool online_rl = axolotl_online_rl(cfg);
  for (const auto& [key, v] : cfg.items()) {
    if (!adapted && key.starts_with("lora_")) {
      r.none(key);
    } else if (key == "base_model") {
      r.set("model", v, key);
    } else if (key == "adapter") {
      adapter = v.is_string() ? v.get<std::string>() : "";
      out.mapped.push_back("adapter -> method");
    } else if (key == "load_in_4bit") {
      four_bit = r.flag(v);
      out.mapped.push_back("load_in_4bit -> method");
    } else if (key == "load_in_8bit") {
      eight_bit = r.flag(v);
      if (!eight_bit) r.none(key);
    } else if (key == "lora_r") {
      r.set("lora_rank", v, key);
    } else if (key == "lora_target_modules") {
      r.set("lora_targets", v, key);
    } else if (key == "lora_target_linear") {
      if (r.flag(v) && !cfg.contains("lora_target_modules")) {
        out.values["lora_targets"] = "all-linear";
        out.mapped.push_back("lora_target_linear -> lora_targets");
      } else {
        r.none(key);
      }
    } else if (key == "lora_dropout") {
      r.set("lora_dropout", v, key);
    } else if (key == "peft_use_dora") {
      if (r.flag(v)) {
        out.values["dora"] = "true";
        out.mapped.push_back("peft_use_dora -> dora");
      }
    } else if (key == "lora_modules_to_save") {
      // PEFT's modules_to_save (LoraConfig); an empty list trains none.
      if (v.is_array() && v.empty()) {
        r.none(key);
      } else {
        r.set("lora_modules_to_save", v, key);
      }
    } else if (key == "micro_batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "sequence_len" && online_rl) {
      // The GRPO builder drops the max_length axolotl sets from it (get_blocklist_args_kwargs):
      // a prompt keeps TRL's max_prompt_length, a completion trl.max_completion_length.
      r.none("sequence_len (not applied under online RL)");
    } else if ((key == "trl" || key == "ebft" || key == "rl_beta") && online_rl) {
      continue;  // read with rl (read_axolotl_online_rl)
    } else if (key == "sequence_len") {
      r.set("seq_len", v, key);
    } else if (key == "gradient_checkpointing") {
      // true: transformers' per-layer checkpointing. "offload" (and the older "unsloth") also
      // sends each checkpoint to the host: axolotl's validation.py sets activation_offloading
      // for it; "offload_disk" writes them to disk (not modelled: the host's count).
      out.values["recompute"] = (r.flag(v) || v.is_string()) ? "full" : "none";
      out.mapped.push_back("gradient_checkpointing -> recompute");
      const std::string mode = v.is_string() ? v.get<std::string>() : "";
      if (mode == "offload" || mode == "unsloth" || mode == "offload_disk") {
        out.values["offload_activations"] = "true";
        out.mapped.push_back("gradient_checkpointing -> offload_activations");
      }
    } else if (key == "activation_offloading") {
      // axolotl: true or "legacy" (host memory), "disk" (counted as the host's).
      if (r.flag(v) || (v.is_string() && text_of(v) != "false")) {
        out.values["offload_activations"] = "true";
        out.mapped.push_back("activation_offloading -> offload_activations");
      } else {
        r.none(key);
      }
    } else if (key == "flash_attention" || key == "sdp_attention") {
      if (r.flag(v)) {
        out.values["attention"] = "flash";
        out.mapped.push_back(key + " -> attention");
      } else {
        r.none(key);
      }
    } else if (key == "optimizer") {
      const std::string recipe = v.is_string() ? recipe_of(v.get<std::string>()) : "";
      if (recipe.empty()) {
        r.unknown(fmt::format("optimizer={}", excerpt(text_of(v))));
      } else {
        out.values["recipe"] = recipe;
        out.mapped.push_back("optimizer -> recipe");
      }
    } else if (key == "deepspeed" && v.is_string()) {
      follow_deepspeed(v.get<std::string>(), dir, out);
    } else if (key == "rl") {
      // axolotl's RLType (schemas/enums.py): dpo, ipo, kto, orpo, simpo, grpo, gdpo run TRL's
      // trainers. Another value trains something else, so it is refused, not read as SFT.
      const std::string t = text_of(v);
      if (t == "grpo" || t == "gdpo" || t == "ebft") {
        read_axolotl_online_rl(cfg, t, out);
      } else if (t == "dpo" || t == "ipo" || t == "kto" || t == "orpo" || t == "simpo") {
        out.values["trainer"] = t;
        out.mapped.push_back("rl -> trainer");
      } else {
        throw InvalidRequest("config",
                             fmt::format("axolotl key rl '{}' is not modelled", excerpt(t)),
                             "dpo|ipo|kto|orpo|simpo|grpo|gdpo|ebft");
      }
    } else if (key == "max_steps") {
      // axolotl passes max_steps to the Trainer, which stops there whatever num_epochs says.
      if (v.is_number() && v.get<double>() > 0) {
        r.set("steps", v, key);
      } else {
        r.none(key);
      }
    } else if (key == "num_epochs") {
      // Mapped with a local dataset (keys are read in order: datasets first).
      if (!out.values.contains("epochs")) r.none(key);
    } else if (key == "datasets" && v.is_array()) {
      // Each entry's path: a local JSON file is counted, a hub id is not.
      const json epochs = cfg.value("num_epochs", json());
      for (const json& d : v) {
        std::string path;
        if (d.is_object()) {
          const auto found = d.find("path");
          if (found != d.end() && found->is_string()) path = found->get_ref<const std::string&>();
        }
        if (path.empty()) {
          r.none("datasets");
        } else {
          (void)local_dataset(path, dir, epochs, "num_epochs", "datasets.path", out);
        }
      }
    } else if (!read_axolotl_parallel(cfg, key, v, r) && !read_axolotl_kernels(cfg, key, v, r) &&
               !read_axolotl_reward(cfg, key, v, r) && !read_axolotl_keys(cfg, key, v, r)) {
      r.unknown(key);
    }
  }
  if (adapter == "lora" || adapter == "qlora") {
    out.values["method"] = adapter == "qlora" || four_bit || eight_bit ? "qlora" : "lora";
    if (eight_bit && !four_bit) {
      out.values["qlora_bits"] = "8";
      out.mapped.push_back("load_in_8bit -> method, qlora_bits");
    }
  } else if (!adapter.empty()) {
    out.unknown.push_back(fmt::format("adapter={}", excerpt(adapter)));
  } else if (eight_bit) {
    out.unknown.push_back(
        "load_in_8bit=true without an adapter (not modelled: counted in 16 bits)");
  }
  axolotl_bf16_weights(cfg, out);
  axolotl_lora_kernels(cfg, out);
  // quantize_moe_experts: the fused experts quantized with the base (its validation asks for
  // qlora + load_in_4bit or lora + load_in_8bit, both a quantized base here);
  // llama4_linearized_experts: a Llama 4 checkpoint whose experts are nn.Linear modules
  // (axolotl's monkeypatch), which bitsandbytes then quantizes the same way.
  for (const char* key : {"quantize_moe_experts", "llama4_linearized_experts"}) {
    const auto experts = cfg.find(key);
    if (experts == cfg.end() || !experts->is_boolean() || !experts->get<bool>()) continue;
    const auto method = out.values.find("method");
    if (method != out.values.end() && method->second == "qlora") {
      out.values["quantize_moe_experts"] = "true";
      out.mapped.push_back(fmt::format("{} -> quantize_moe_experts", key));
    } else {
      out.unknown.push_back(fmt::format("{}=true without a quantized base", key));
    }
  }
}

// LLaMA-Factory's YAML (src/llamafactory/hparams: model_args.py, data_args.py,
// finetuning_args.py; examples/train_lora). Gradient checkpointing is on unless
// disable_gradient_checkpointing (model/model_utils/checkpointing.py).
void read_llamafactory(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  out.values["recompute"] = "full";
  out.mapped.push_back("(gradient checkpointing on by default) -> recompute");
  std::string finetuning = "lora";  // FinetuningArguments.finetuning_type's default
  bool four_bit = false;
  std::string stage = "sft";
  std::string pref_loss = "sigmoid";
  bool pure_bf16 = false;
  constexpr std::array<std::string_view, 39> kNoEffect{"trust_remote_code",
                                                       "adam_beta1",
                                                       "adam_beta2",
                                                       "max_grad_norm",
                                                       "dataloader_num_workers",
                                                       "seed",
                                                       "run_name",
                                                       "use_reentrant_gc",
                                                       "do_train",
                                                       "dataset",
                                                       "template",
                                                       "max_samples",
                                                       "overwrite_cache",
                                                       "preprocessing_num_workers",
                                                       "output_dir",
                                                       "logging_steps",
                                                       "save_steps",
                                                       "plot_loss",
                                                       "overwrite_output_dir",
                                                       "learning_rate",
                                                       "num_train_epochs",
                                                       "lr_scheduler_type",
                                                       "warmup_ratio",
                                                       "bf16",
                                                       "fp16",
                                                       "ddp_timeout",
                                                       "val_size",
                                                       "per_device_eval_batch_size",
                                                       "eval_strategy",
                                                       "eval_steps",
                                                       "report_to",
                                                       "resume_from_checkpoint",
                                                       "save_only_model",
                                                       "lora_alpha",
                                                       "pref_beta",
                                                       "pref_ftx",
                                                       "dataset_dir",
                                                       "warmup_steps",
                                                       "weight_decay"};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "model_name_or_path") {
      r.set("model", v, key);
    } else if (key == "stage") {
      stage = text_of(v);
      out.mapped.push_back("stage -> trainer");
    } else if (key == "pref_loss") {
      pref_loss = text_of(v);
      out.mapped.push_back("pref_loss -> trainer");
    } else if (key == "finetuning_type") {
      finetuning = text_of(v);
      out.mapped.push_back("finetuning_type -> method");
    } else if (key == "quantization_bit") {
      // bitsandbytes' 4-bit NF4 or 8-bit LLM.int8 (quantization_method bnb, the default).
      four_bit = v.is_number_integer() && (v.get<int>() == 4 || v.get<int>() == 8);
      if (v.is_number_integer() && v.get<int>() == 8) {
        out.values["qlora_bits"] = "8";
        out.mapped.push_back("quantization_bit -> method, qlora_bits");
      } else {
        out.mapped.push_back("quantization_bit -> method");
      }
    } else if (key == "lora_rank") {
      r.set("lora_rank", v, key);
    } else if (key == "lora_target") {
      const std::string t = text_of(v);
      out.values["lora_targets"] = t == "all" ? "all-linear" : t;
      out.mapped.push_back("lora_target -> lora_targets");
    } else if (key == "lora_dropout") {
      r.set("lora_dropout", v, key);
    } else if (key == "additional_target") {
      r.set("lora_modules_to_save", v, key);  // LoraConfig's modules_to_save (model/adapter.py)
    } else if (key == "use_dora") {
      if (r.flag(v)) {
        out.values["dora"] = "true";
        out.mapped.push_back("use_dora -> dora");
      }
    } else if (key == "use_galore") {
      // LLaMA-Factory's galore_rank defaults to 16 (hparams/finetuning_args.py).
      if (r.flag(v)) {
        out.values["galore_rank"] =
            cfg.contains("galore_rank") ? text_of(cfg["galore_rank"]) : "16";
        out.mapped.push_back("use_galore, galore_rank -> galore_rank");
      }
    } else if (key == "galore_layerwise") {
      if (r.flag(v)) {
        r.unknown(
            "galore_layerwise=true (each gradient freed as its layer updates: not modelled, "
            "the gradients are counted whole)");
      }
    } else if (key == "galore_rank") {
      const bool used = cfg.contains("use_galore") && cfg["use_galore"].is_boolean() &&
                        cfg["use_galore"].get<bool>();
      if (!used) r.none(key);
    } else if (key == "galore_target" || key == "galore_update_interval" || key == "galore_scale" ||
               key == "galore_proj_type") {
      r.none(key);
    } else if (key == "per_device_train_batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "cutoff_len") {
      r.set("seq_len", v, key);
    } else if (key == "disable_gradient_checkpointing") {
      if (r.flag(v)) out.values["recompute"] = "none";
      out.mapped.push_back("disable_gradient_checkpointing -> recompute");
    } else if (key == "enable_liger_kernel") {
      r.set("use_liger_kernel", v, key);
    } else if (key == "flash_attn") {
      const std::string f = text_of(v);
      if (f == "fa2" || f == "sdpa") out.values["attention"] = "flash";
      if (f == "disabled" || f == "eager") out.values["attention"] = "eager";
      out.mapped.push_back("flash_attn -> attention");
    } else if (key == "optim") {
      const std::string recipe = recipe_of(text_of(v));
      if (recipe.empty())
        r.unknown(fmt::format("optim={}", excerpt(text_of(v))));
      else
        r.set("recipe", recipe, key);
    } else if (key == "deepspeed" && v.is_string()) {
      follow_deepspeed(v.get<std::string>(), dir, out);
    } else if (key == "freeze_vision_tower") {
      // FinetuningArguments: the vision encoder frozen unless false (default true).
      if (v.is_boolean() && !v.get<bool>()) out.values["train_vision_tower"] = "true";
      out.mapped.push_back("freeze_vision_tower -> train_vision_tower");
    } else if (key == "freeze_multi_modal_projector") {
      // FinetuningArguments (default true): the projector frozen or trained with the tower, as
      // --train-vision-tower prices them both; apart from it, not modelled.
      const bool tower_frozen = !cfg.contains("freeze_vision_tower") ||
                                !cfg["freeze_vision_tower"].is_boolean() ||
                                cfg["freeze_vision_tower"].get<bool>();
      if (!v.is_boolean() || v.get<bool>() != tower_frozen) {
        r.unknown(
            fmt::format("freeze_multi_modal_projector={} (the projector {} apart from the "
                        "vision tower: not modelled)",
                        excerpt(text_of(v)), tower_frozen ? "trained" : "frozen"));
      } else {
        out.mapped.push_back("freeze_multi_modal_projector -> train_vision_tower");
      }
    } else if (key == "freeze_language_model") {
      // FinetuningArguments (default false); true trains the vision side alone.
      if (!v.is_boolean() || v.get<bool>()) {
        r.unknown(
            fmt::format("freeze_language_model={} (the vision side trained alone: not "
                        "modelled)",
                        excerpt(text_of(v))));
      } else {
        r.none(key);
      }
    } else if (key == "packing") {
      // Packed sequences fill cutoff_len, the length the estimate prices; unpacked ones are
      // padded to their batch's longest, at most that.
      r.none(
          fmt::format("packing={} (sequences priced at cutoff_len either way: an unpacked "
                      "batch's are at most that)",
                      excerpt(text_of(v))));
    } else if (key == "video_max_pixels") {
      // A video's frames; the config gives no frame count (a dataset's videos).
      r.none(
          fmt::format("video_max_pixels={} (a video's frame cap; give video_frames and "
                      "image_max_pixels for a video job)",
                      excerpt(text_of(v))));
    } else if (key == "image_max_pixels") {
      r.set("image_max_pixels", v, key);
    } else if (key == "image_do_pan_and_scan") {
      r.set("pan_and_scan", v, key);  // Gemma 3 (ModelArguments; mm_plugin.py passes it on)
    } else if (key == "pure_bf16") {
      // Trainable parameters stay bf16 (model/adapter.py: cast_trainable_params_to_fp32 is off);
      // otherwise a full fine-tune upcasts them to fp32, the 16 bytes amp-adam counts.
      if (r.flag(v)) pure_bf16 = true;
      r.none(key);
    } else if (one_of(key, kNoEffect)) {
      r.none(key);
    } else if (!read_llamafactory_keys(cfg, key, v, r)) {
      r.unknown(key);
    }
  }
  if (finetuning != "lora" && out.values.erase("qlora_bits") > 0) {
    out.unknown.emplace_back(
        "quantization_bit=8 without LoRA (LLaMA-Factory quantizes for LoRA only)");
  }
  if (finetuning == "full" || finetuning == "freeze") {
    out.values["method"] = finetuning;
    if (pure_bf16) {
      const auto it = out.values.find("recipe");
      const bool eight_bit = it != out.values.end() && it->second.find("8bit") != std::string::npos;
      out.values["recipe"] = eight_bit ? "bf16-adam-8bit" : "pure-bf16-adam";
      std::erase(out.no_effect, std::string{"pure_bf16"});
      out.mapped.emplace_back("pure_bf16 -> recipe");
    }
  } else if (finetuning == "lora") {
    out.values["method"] = four_bit ? "qlora" : "lora";
  } else {
    // OFT's orthogonal blocks (finetuning_type oft) train neither the whole model nor LoRA's
    // matrices: refused rather than read as another method.
    throw InvalidRequest(
        "config",
        fmt::format("LLaMA-Factory key finetuning_type '{}' is not modelled", excerpt(finetuning)),
        "full|freeze|lora");
  }
  // stage: sft and pt train with the LM loss; dpo with pref_loss; kto. rm (a value head beside
  // the LM head, whose logits it still computes: not TRL's RewardTrainer) and ppo are refused
  // rather than read as SFT.
  if (stage == "dpo") {
    const std::string t = pref_loss == "sigmoid" ? "dpo" : pref_loss;
    if (t != "dpo" && t != "ipo" && t != "orpo" && t != "simpo") {
      throw InvalidRequest(
          "config", fmt::format("LLaMA-Factory key pref_loss '{}' is not modelled", excerpt(t)),
          "sigmoid|ipo|orpo|simpo");
    }
    out.values["trainer"] = t;
  } else if (stage == "kto") {
    out.values["trainer"] = "kto";
  } else if (stage != "sft" && stage != "pt") {
    throw InvalidRequest(
        "config",
        fmt::format(
            "LLaMA-Factory key stage '{}' is not modelled{}", excerpt(stage),
            stage == "rm" ? " (a value head beside the LM head, whose logits it computes)" : ""),
        "sft|pt|dpo|kto");
  }
}

bool read_yaml_format(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir,
                      std::string_view format) {
  const bool automatic = format == "auto";
  const auto dotted = [&](std::string_view prefix) {
    return std::any_of(cfg.items().begin(), cfg.items().end(),
                       [&](const auto& item) { return item.key().rfind(prefix, 0) == 0; });
  };
  if (format == "verl" ||
      (automatic && (cfg.contains("actor_rollout_ref") || dotted("actor_rollout_ref.")))) {
    out.format = "verl";
    read_verl(cfg, out);
    return true;
  }
  const auto builds = [&](const char* key) {
    return cfg.contains(key) && cfg[key].is_object() && cfg[key].contains("_component_");
  };
  if (format == "torchtune" || (automatic && (builds("model") || builds("policy_model")))) {
    out.format = "torchtune";
    read_torchtune(cfg, out, dir);
    return true;
  }
  // Before axolotl's: v1 also writes micro_batch_size.
  if (format == "llama-factory-v1" || (automatic && is_llamafactory_v1(cfg))) {
    out.format = "llama-factory-v1";
    read_llamafactory_v1(cfg, out, dir);
    return true;
  }
  if (format == "axolotl" ||
      (automatic && (cfg.contains("base_model") || cfg.contains("micro_batch_size") ||
                     cfg.contains("sequence_len")))) {
    out.format = "axolotl";
    read_axolotl(cfg, out, dir);
    return true;
  }
  if (format == "llama-factory" ||
      (automatic && (cfg.contains("finetuning_type") || cfg.contains("cutoff_len") ||
                     (cfg.contains("stage") && cfg.contains("model_name_or_path"))))) {
    out.format = "llama-factory";
    read_llamafactory(cfg, out, dir);
    return true;
  }
  if (format == "accelerate" ||
      (automatic && (cfg.contains("distributed_type") || cfg.contains("compute_environment")))) {
    out.format = "accelerate";
    read_accelerate(cfg, out, dir);
    return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
