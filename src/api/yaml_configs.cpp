// The YAML training configs users have (docs/configs.md): axolotl, LLaMA-Factory, torchtune and
// accelerate, each read as the fields it means. Keys understood but without an effect on the
// estimate are listed as such, keys not understood are listed, a value the estimate cannot model
// (an 8-bit base) is named; nothing is dropped silently.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// A YAML plain scalar as the 1.2 core schema reads it.
json plain_scalar(const std::string& s) {
  static const std::regex kInt{"[-+]?[0-9]+"};
  static const std::regex kFloat{R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)"};
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (std::regex_match(s, kInt)) {
    long long v = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc{} && end == s.data() + s.size()) return v;
  }
  if (std::regex_match(s, kFloat)) {
    double v = 0.0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc{} && end == s.data() + s.size()) return v;
  }
  return s;
}

// Nodes past this many are refused: an alias-heavy document ("billion laughs") expands
// exponentially when copied out.
constexpr std::size_t kMaxNodes = 100000;

json convert(const YAML::Node& node, std::size_t depth, std::size_t& nodes) {
  if (++nodes > kMaxNodes) {
    throw InvalidRequest("config", fmt::format("holds more than {} values", kMaxNodes));
  }
  if (depth > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("nests more than {} levels", kMaxJsonDepth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      // A quoted scalar ("!" tag) stays a string.
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(convert(item, depth + 1, nodes));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        out[kv.first.as<std::string>()] = convert(kv.second, depth + 1, nodes);
      }
      return out;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
  }
  return nullptr;
}

// The reading of one format: every key either mapped, without effect, or not understood.
struct Reader {
  TrainingConfig& out;
  void set(const char* field, const json& v, const std::string& key) {
    if (!given(v)) return;
    out.values[field] = text_of(v);
    out.mapped.push_back(fmt::format("{} -> {}", key, field));
  }
  void none(const std::string& key) { out.no_effect.push_back(key); }
  void unknown(const std::string& key) { out.unknown.push_back(key); }
  bool flag(const json& v) const { return v.is_boolean() && v.get<bool>(); }
};

template <std::size_t N>
bool one_of(const std::string& key, const std::array<std::string_view, N>& keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// axolotl's config (axolotl docs/config-reference, src/axolotl/utils/schemas/config.py).
void read_axolotl(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  std::string adapter;
  bool four_bit = false;
  constexpr std::array<std::string_view, 37> kNoEffect{"model_type",
                                                       "tokenizer_type",
                                                       "datasets",
                                                       "dataset_prepared_path",
                                                       "val_set_size",
                                                       "output_dir",
                                                       "sample_packing",
                                                       "eval_sample_packing",
                                                       "pad_to_sequence_len",
                                                       "lora_alpha",
                                                       "lora_model_dir",
                                                       "wandb_project",
                                                       "wandb_entity",
                                                       "wandb_watch",
                                                       "wandb_name",
                                                       "wandb_log_model",
                                                       "num_epochs",
                                                       "lr_scheduler",
                                                       "learning_rate",
                                                       "bf16",
                                                       "fp16",
                                                       "tf32",
                                                       "resume_from_checkpoint",
                                                       "logging_steps",
                                                       "warmup_ratio",
                                                       "warmup_steps",
                                                       "evals_per_epoch",
                                                       "saves_per_epoch",
                                                       "weight_decay",
                                                       "special_tokens",
                                                       "hub_model_id",
                                                       "strict",
                                                       "train_on_inputs",
                                                       "group_by_length",
                                                       "early_stopping_patience",
                                                       "local_rank",
                                                       "xformers_attention"};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "base_model") {
      r.set("model", v, key);
    } else if (key == "adapter") {
      adapter = v.is_string() ? v.get<std::string>() : "";
      out.mapped.push_back("adapter -> method");
    } else if (key == "load_in_4bit") {
      four_bit = r.flag(v);
      out.mapped.push_back("load_in_4bit -> method");
    } else if (key == "load_in_8bit") {
      if (r.flag(v))
        r.unknown("load_in_8bit=true (an 8-bit base is not modelled: counted in 16 bits)");
      else
        r.none(key);
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
    } else if (key == "lora_modules_to_save") {
      if (v.is_array() && !v.empty()) {
        r.unknown(
            fmt::format("lora_modules_to_save={} (trained in full beside the adapters: not "
                        "modelled)",
                        text_of(v)));
      }
    } else if (key == "micro_batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "sequence_len") {
      r.set("seq_len", v, key);
    } else if (key == "gradient_checkpointing") {
      // true or "unsloth": transformers' per-layer checkpointing.
      out.values["recompute"] = (r.flag(v) || v.is_string()) ? "full" : "none";
      out.mapped.push_back("gradient_checkpointing -> recompute");
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
    } else if (one_of(key, kNoEffect) || key.rfind("wandb_", 0) == 0) {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
  if (adapter == "lora" || adapter == "qlora") {
    out.values["method"] = adapter == "qlora" || four_bit ? "qlora" : "lora";
  } else if (!adapter.empty()) {
    out.unknown.push_back(fmt::format("adapter={}", excerpt(adapter)));
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
  constexpr std::array<std::string_view, 32> kNoEffect{"trust_remote_code",
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
      four_bit = v.is_number_integer() && v.get<int>() == 4;
      if (v.is_number_integer() && v.get<int>() == 8) {
        r.unknown("quantization_bit=8 (an 8-bit base is not modelled: counted in 16 bits)");
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
    } else if (key == "per_device_train_batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "cutoff_len") {
      r.set("seq_len", v, key);
    } else if (key == "disable_gradient_checkpointing") {
      if (r.flag(v)) out.values["recompute"] = "none";
      out.mapped.push_back("disable_gradient_checkpointing -> recompute");
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
    } else if (one_of(key, kNoEffect)) {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
  if (finetuning == "full" || finetuning == "freeze") {
    out.values["method"] = finetuning;
  } else if (finetuning == "lora") {
    out.values["method"] = four_bit ? "qlora" : "lora";
  } else {
    out.unknown.push_back(fmt::format("finetuning_type={}", excerpt(finetuning)));
  }
  // stage: sft and pt train with the LM loss; dpo with pref_loss; kto; rm and ppo not modelled.
  if (stage == "dpo") {
    const std::string t = pref_loss == "sigmoid" ? "dpo" : pref_loss;
    if (t == "dpo" || t == "ipo" || t == "orpo" || t == "simpo")
      out.values["trainer"] = t;
    else
      out.unknown.push_back(fmt::format("pref_loss={}", excerpt(pref_loss)));
  } else if (stage == "kto") {
    out.values["trainer"] = "kto";
  } else if (stage != "sft" && stage != "pt") {
    out.unknown.push_back(fmt::format("stage={} (not modelled)", excerpt(stage)));
  }
}

// torchtune's recipe configs (recipes/configs/*): the model builder's name gives the preset and
// the method; torchtune's profile (--framework torchtune) gives its kernels.
void read_torchtune(const json& cfg, TrainingConfig& out) {
  Reader r{out};
  out.values["framework"] = "torchtune";
  out.mapped.push_back("(a torchtune recipe) -> framework");
  // Builder names (torchtune.models.*) onto presets.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kModels{
      {{"llama3_1_8b", "llama-3.1-8b"},
       {"llama3_1_70b", "llama-3.1-70b"},
       {"llama3_1_405b", "llama-3.1-405b"},
       {"llama3_8b", "llama-3-8b"},
       {"llama3_2_1b", "llama-3.2-1b"},
       {"llama3_2_3b", "llama-3.2-3b"},
       {"llama3_3_70b", "llama-3.3-70b"},
       {"llama2_7b", "llama-2-7b"},
       {"llama2_13b", "llama-2-13b"},
       {"llama2_70b", "llama-2-70b"},
       {"mistral_7b", "mistral-7b-v0.1"},
       {"gemma_2b", "gemma-2b"},
       {"gemma_7b", "gemma-7b"},
       {"qwen2_5_7b_base", "qwen2.5-7b"},
       {"qwen2_5_0_5b", "qwen2.5-0.5b"},
       {"qwen2_5_1_5b_base", "qwen2.5-1.5b"},
       {"phi3_mini", "phi-3-mini-4k"}}};
  constexpr std::array<std::string_view, 22> kNoEffect{"output_dir",
                                                       "checkpointer",
                                                       "resume_from_checkpoint",
                                                       "save_adapter_weights_only",
                                                       "save_last_epoch_only",
                                                       "epochs_to_save",
                                                       "dataset",
                                                       "seed",
                                                       "shuffle",
                                                       "lr_scheduler",
                                                       "loss",
                                                       "epochs",
                                                       "max_steps_per_epoch",
                                                       "clip_grad_norm",
                                                       "metric_logger",
                                                       "log_every_n_steps",
                                                       "log_peak_memory_stats",
                                                       "log_level",
                                                       "device",
                                                       "dtype",
                                                       "profiler",
                                                       "optimizer_in_bwd"};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "model" && v.is_object()) {
      const std::string component = v.value("_component_", std::string{});
      std::string name = component.substr(component.rfind('.') + 1);
      std::string method = "full";
      if (name.rfind("qlora_", 0) == 0) {
        method = "qlora";
        name = name.substr(6);
      } else if (name.rfind("lora_", 0) == 0) {
        method = "lora";
        name = name.substr(5);
      }
      const auto* preset = std::find_if(kModels.begin(), kModels.end(),
                                        [&](const auto& m) { return m.first == name; });
      if (preset != kModels.end()) {
        out.values["model"] = std::string{preset->second};
        out.mapped.push_back("model._component_ -> model");
      } else {
        r.unknown(fmt::format("model._component_={}", excerpt(component)));
      }
      out.values["method"] = method;
      out.mapped.push_back("model._component_ -> method");
      std::vector<std::string> targets;
      std::vector<std::string> mlp;  // after the attention modules, as torchtune lists them
      for (const auto& [mk, mv] : v.items()) {
        if (mk == "_component_") continue;
        if (mk == "lora_attn_modules" && mv.is_array()) {
          for (const json& m : mv) {
            const std::string t = m.is_string() ? m.get<std::string>() : "";
            const std::string ours = t == "q_proj"        ? "q"
                                     : t == "k_proj"      ? "k"
                                     : t == "v_proj"      ? "v"
                                     : t == "output_proj" ? "o"
                                                          : "";
            if (ours.empty())
              r.unknown(fmt::format("model.lora_attn_modules: {}", excerpt(t)));
            else if (std::find(targets.begin(), targets.end(), ours) == targets.end())
              targets.push_back(ours);
          }
        } else if (mk == "apply_lora_to_mlp") {
          if (r.flag(mv)) mlp = {"gate", "up", "down"};
        } else if (mk == "apply_lora_to_output") {
          if (r.flag(mv))
            r.unknown("model.apply_lora_to_output=True (an adapter on the LM head: not modelled)");
        } else if (mk == "lora_rank") {
          r.set("lora_rank", mv, "model.lora_rank");
        } else if (mk == "lora_dropout") {
          r.set("lora_dropout", mv, "model.lora_dropout");
        } else if (mk == "quantize_base") {
          if (r.flag(mv)) out.values["method"] = "qlora";
        } else if (mk == "lora_alpha" || mk == "use_dora") {
          r.none("model." + mk);
        } else {
          r.unknown("model." + mk);
        }
      }
      targets.insert(targets.end(), mlp.begin(), mlp.end());
      if (!targets.empty()) {
        out.values["lora_targets"] = fmt::format("{}", fmt::join(targets, ","));
        out.mapped.push_back("model.lora_attn_modules, apply_lora_to_mlp -> lora_targets");
      }
    } else if (key == "tokenizer" && v.is_object()) {
      if (v.contains("max_seq_len")) r.set("seq_len", v["max_seq_len"], "tokenizer.max_seq_len");
    } else if (key == "batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "enable_activation_checkpointing") {
      out.values["recompute"] = r.flag(v) ? "full" : "none";
      out.mapped.push_back("enable_activation_checkpointing -> recompute");
    } else if (key == "enable_activation_offloading") {
      if (r.flag(v))
        r.unknown("enable_activation_offloading=True (not modelled)");
      else
        r.none(key);
    } else if (key == "compile") {
      r.set("compile", v, key);
    } else if (key == "optimizer" && v.is_object()) {
      const std::string component = v.value("_component_", std::string{});
      // torchtune trains in the config's dtype: bf16 weights and AdamW moments, no fp32 master.
      const bool bf16 = cfg.value("dtype", std::string{"bf16"}) == "bf16";
      if (component == "torch.optim.AdamW") {
        out.values["recipe"] = bf16 ? "pure-bf16-adam" : "fp32-adam";
      } else if (component == "bitsandbytes.optim.PagedAdamW8bit") {
        out.values["recipe"] = "paged-adam-8bit";
      } else {
        r.unknown(fmt::format("optimizer._component_={}", excerpt(component)));
      }
      if (out.values.contains("recipe")) out.mapped.push_back("optimizer, dtype -> recipe");
      if (v.contains("fused") && r.flag(v["fused"])) {
        out.values["optimizer_kernel"] = "fused";
        out.mapped.push_back("optimizer.fused -> optimizer_kernel");
      }
    } else if (one_of(key, kNoEffect) || key == "tokenizer") {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
}

// accelerate's config YAML (accelerate config; examples/config_yaml_templates).
void read_accelerate(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  for (const auto& [key, v] : cfg.items()) {
    if (key == "num_processes") {
      r.set("devices", v, key);
    } else if (key == "deepspeed_config" && v.is_object()) {
      for (const auto& [dk, dv] : v.items()) {
        const std::string name = "deepspeed_config." + dk;
        if (dk == "zero_stage") {
          r.set("zero", dv, name);
        } else if (dk == "offload_optimizer_device" || dk == "offload_param_device") {
          const std::string d = text_of(dv);
          if (d == "cpu" || d == "nvme") {
            const auto it = out.values.find("offload");
            if (dk == "offload_param_device" || it == out.values.end()) {
              out.values["offload"] = dk == "offload_param_device" ? "params" : "optimizer";
            }
            out.mapped.push_back(name + " -> offload");
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
      for (const auto& [fk, fv] : v.items()) {
        const std::string name = "fsdp_config." + fk;
        if (fk == "fsdp_sharding_strategy") {
          const std::string s = text_of(fv);
          if (s == "FULL_SHARD" || s == "1" || s == "HYBRID_SHARD" || s == "4") {
            out.values["zero"] = "3";
          } else if (s == "SHARD_GRAD_OP" || s == "2") {
            out.values["zero"] = "2";
          } else if (s == "NO_SHARD" || s == "3") {
            out.values["zero"] = "0";
          }
          out.mapped.push_back(name + " -> zero");
        } else if (fk == "fsdp_offload_params") {
          if (r.flag(fv)) {
            out.values["offload"] = "params";
            out.mapped.push_back(name + " -> offload");
          } else {
            r.none(name);
          }
        } else if (fk == "fsdp_activation_checkpointing") {
          out.values["recompute"] = r.flag(fv) ? "full" : "none";
          out.mapped.push_back(name + " -> recompute");
        } else {
          r.none(name);  // wrap policy, prefetch, state dict, loading: no effect on the budget
        }
      }
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

}  // namespace

json yaml_as_json(std::string_view text) {
  // yaml-cpp walks nesting recursively: flow brackets and indentation are bounded first.
  if (json_nesting_depth(text) > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("nests more than {} levels", kMaxJsonDepth));
  }
  std::size_t indent = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t first = text.find_first_not_of(' ', at);
    if (first != std::string_view::npos && first < end) indent = std::max(indent, first - at);
    at = end + 1;
  }
  if (indent > 2 * kMaxJsonDepth * 4) {
    throw InvalidRequest("config", fmt::format("is indented {} columns deep", indent));
  }
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string{text});
  } catch (const YAML::Exception& e) {
    throw InvalidRequest("config",
                         fmt::format("is neither JSON nor YAML: {}", excerpt(e.what(), 200)));
  }
  std::size_t nodes = 0;
  return convert(doc, 0, nodes);
}

bool read_yaml_format(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir,
                      std::string_view format) {
  const bool automatic = format == "auto";
  if (format == "torchtune" || (automatic && cfg.contains("model") && cfg["model"].is_object() &&
                                cfg["model"].contains("_component_"))) {
    out.format = "torchtune";
    read_torchtune(cfg, out);
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
