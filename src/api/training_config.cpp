// Training config files as request fields (docs/configs.md).
#include "trainbudget/api/training_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "config_formats.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api {
namespace config_detail {

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:g}", v.get<double>());
  if (v.is_array()) {
    std::string out;
    for (const json& x : v) out += (out.empty() ? "" : ",") + text_of(x);
    return out;
  }
  return v.dump();
}

// "auto" (DeepSpeed's placeholder filled from the TrainingArguments) is no value.
std::string text_at(const json& obj, const char* key, std::string fallback) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) return fallback;
  return text_of(obj[key]);
}

bool given(const json& v) {
  return !v.is_null() && !(v.is_string() && v.get<std::string>() == "auto");
}

// DeepSpeed's zero_optimization onto zero and offload (deepspeed/runtime/zero/config.py).
void read_deepspeed(const json& ds, TrainingConfig& out, const std::string& prefix) {
  for (const auto& [key, v] : ds.items()) {
    const std::string name = prefix + key;
    if ((key == "train_micro_batch_size_per_gpu" || key == "gradient_accumulation_steps") &&
        !given(v)) {
      out.no_effect.push_back(name + "=auto");  // filled from the TrainingArguments
    } else if (key == "train_micro_batch_size_per_gpu") {
      out.values["micro_batch"] = text_of(v);
      out.mapped.push_back(name + " -> micro_batch");
    } else if (key == "gradient_accumulation_steps") {
      out.values["grad_accum"] = text_of(v);
      out.mapped.push_back(name + " -> grad_accum");
    } else if (key == "zero_optimization" && v.is_object()) {
      for (const auto& [zk, zv] : v.items()) {
        const std::string zname = name + "." + zk;
        if (zk == "stage" && given(zv)) {
          out.values["zero"] = text_of(zv);
          out.mapped.push_back(zname + " -> zero");
        } else if ((zk == "offload_optimizer" || zk == "offload_param") && zv.is_object()) {
          const auto found = zv.find("device");
          const std::string device =
              found != zv.end() && found->is_string() ? found->get<std::string>() : "none";
          if (device == "cpu" || device == "nvme") {
            // Parameters offloaded imply the optimizer too (ZeRO-Infinity): params wins.
            const auto it = out.values.find("offload");
            if (zk == "offload_param" || it == out.values.end() || it->second != "params") {
              out.values["offload"] = zk == "offload_param" ? "params" : "optimizer";
            }
            out.mapped.push_back(zname + ".device -> offload");
          }
        } else if (zk == "overlap_comm" || zk == "contiguous_gradients" ||
                   zk.find("bucket_size") != std::string::npos || zk == "round_robin_gradients" ||
                   zk.find("stage3_") == 0 || zk == "sub_group_size" || zk == "reduce_scatter" ||
                   zk == "allgather_partitions" || zk == "max_live_parameters" ||
                   zk == "max_reuse_distance" || zk == "gather_16bit_weights_on_model_save" ||
                   zk == "param_persistence_threshold" || zk == "ignore_unused_parameters") {
          // The stage3_ keys also go by their bare names (DeepSpeedZeroConfig's aliases).
          out.no_effect.push_back(zname);
        } else {
          out.unknown.push_back(zname);
        }
      }
    } else if (key == "bf16" || key == "fp16" || key == "gradient_clipping" ||
               key == "steps_per_print" || key == "wall_clock_breakdown" ||
               key == "train_batch_size" || key == "optimizer" || key == "scheduler" ||
               key == "zero_allow_untested_optimizer" || key == "zero_force_ds_cpu_optimizer") {
      // Mixed precision is the recipe's; the rest changes neither memory nor time here.
      out.no_effect.push_back(name);
    } else {
      out.unknown.push_back(name);
    }
  }
}

void follow_deepspeed(const std::string& path, const std::filesystem::path& dir,
                      TrainingConfig& out) {
  // axolotl, LLaMA-Factory and transformers' TrainingArguments open the path as given, from
  // where the job is launched; a path beside the config is tried after it. Both named if neither.
  const std::filesystem::path given_path{path};
  std::vector<std::filesystem::path> tried{given_path};
  if (given_path.is_relative() && !dir.empty() && dir != ".") tried.push_back(dir / given_path);
  std::filesystem::path ds = tried.back();
  std::error_code ec;
  const auto found = std::find_if(tried.begin(), tried.end(), [&](const auto& p) {
    return std::filesystem::symlink_status(p, ec).type() != std::filesystem::file_type::not_found;
  });
  if (found == tried.end()) {
    throw InvalidRequest(
        "config",
        tried.size() == 1
            ? fmt::format("the DeepSpeed config it names, {}, is not there", io::shown(ds))
            : fmt::format("the DeepSpeed config it names is neither at {} (from where the job is "
                          "launched, as axolotl, LLaMA-Factory and transformers open it) nor at "
                          "{} (beside the config)",
                          io::shown(tried.front()), io::shown(tried.back())),
        "run from the folder the training job is launched in, or give the path from there");
  }
  ds = *found;
  std::string text;
  try {
    text = io::read_regular_file(ds, kMaxConfigBytes);
  } catch (const DataError& e) {
    throw InvalidRequest("config", fmt::format("the DeepSpeed config it names: {}", e.what()));
  }
  // The file a config names is bounded like the config itself (issue 43: a deep one overflowed
  // the value readers' recursion).
  if (json_nesting_depth(text) > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("the DeepSpeed config it names, {}, nests more "
                                               "than {} levels",
                                               io::shown(ds), kMaxJsonDepth));
  }
  const json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object()) {
    throw InvalidRequest("config", fmt::format("{} is not a JSON object", io::shown(ds)));
  }
  check_value_count(parsed, fmt::format("the DeepSpeed config it names, {}, ", io::shown(ds)));
  read_deepspeed(parsed, out, "deepspeed.");
}

bool local_dataset(const std::string& path, const std::filesystem::path& dir, const json& epochs,
                   const std::string& epochs_key, const std::string& key, TrainingConfig& out) {
  const std::filesystem::path file = dir / path;
  const std::string ext = file.extension().string();
  std::error_code ec;
  if ((ext != ".json" && ext != ".jsonl" && ext != ".ndjson") ||
      !std::filesystem::is_regular_file(file, ec)) {
    out.no_effect.push_back(
        fmt::format("{}={} (not a local JSON file: give dataset_tokens)", key, excerpt(path)));
    return false;
  }
  std::string& files = out.values["dataset_file"];
  files += (files.empty() ? "" : ",") + file.string();
  out.mapped.push_back(fmt::format("{} -> dataset_file", key));
  if (given(epochs) && !out.values.contains("epochs")) {
    out.values["epochs"] = text_of(epochs);
    out.mapped.push_back(fmt::format("{} -> epochs", epochs_key));
  }
  return true;
}

// TRL's GRPOConfig keys (trl/trainer/grpo_config.py), read when the config has
// num_generations: the online RL fields carry the same names (docs/rl.md). A vLLM key read by
// an engine the config does not run (use_vllm false; the pool's share and sleep mode outside
// colocate, where `trl vllm-serve` takes its own) has no effect.
bool read_grpo_key(const std::string& key, const json& v, const std::string& engine,
                   TrainingConfig& out) {
  constexpr std::array<std::string_view, 6> kSame{"num_generations",       "max_prompt_length",
                                                  "max_completion_length", "beta",
                                                  "num_iterations",        "steps_per_generation"};
  constexpr std::array<std::string_view, 4> kVllm{
      "vllm_gpu_memory_utilization", "vllm_tensor_parallel_size", "vllm_enable_sleep_mode",
      "vllm_importance_sampling_correction"};
  const bool colocate_only =
      key == "vllm_gpu_memory_utilization" || key == "vllm_enable_sleep_mode";
  const bool applies = one_of(key, kSame) || (one_of(key, kVllm) && engine != "generate" &&
                                              (engine == "colocate" || !colocate_only));
  if (applies) {
    if (given(v)) {
      out.values[key] = text_of(v);
      out.mapped.push_back(fmt::format("{} -> {}", key, key));
    }
    return true;
  }
  if (one_of(key, kVllm)) {
    out.no_effect.push_back(fmt::format("{} (not read by rollout_engine {})", key, engine));
    return true;
  }
  if (key == "generation_batch_size") {
    if (given(v)) {
      out.unknown.push_back(
          "generation_batch_size (give steps_per_generation = generation_batch_size / "
          "(per_device_train_batch_size x processes))");
    }
    return true;
  }
  if (key == "use_vllm" || key == "vllm_mode") return true;  // read together below
  return false;
}

// transformers' GaLore optimizers (trainer.py, _get_optimizer_cls_and_kwargs): optim galore_*,
// optim_args "rank=R, update_proj_gap=G, scale=S" (rank 128 when absent) and
// optim_target_modules, the modules whose weights get projected moments.
void read_galore(const json& cfg, const std::string& optim, TrainingConfig& out) {
  std::string rank = "128";
  const std::string args = text_at(cfg, "optim_args", "");
  for (std::size_t at = 0; at < args.size();) {
    const std::size_t end = std::min(args.find(',', at), args.size());
    std::string item = args.substr(at, end - at);
    item.erase(0, item.find_first_not_of(' '));
    if (item.rfind("rank=", 0) == 0) rank = item.substr(5);
    at = end + 1;
  }
  out.values["method"] = "galore";
  out.values["galore_rank"] = rank;
  out.mapped.push_back("optim, optim_args -> method, galore_rank");
  if (optim != "galore_adamw") {
    out.unknown.push_back(fmt::format(
        "optim={} (GaLore's 8-bit, Adafactor and layer-wise variants: priced as galore_adamw)",
        excerpt(optim)));
  }
  const std::string targets = text_of(cfg.value("optim_target_modules", json()));
  if (targets.find("attn") != std::string::npos && targets.find("mlp") != std::string::npos) {
    out.mapped.push_back("optim_target_modules -> (every attention and MLP weight)");
  } else {
    out.unknown.push_back(
        fmt::format("optim_target_modules={} (GaLore is priced on every attention and MLP weight)",
                    excerpt(targets.empty() ? std::string{"missing"} : targets)));
  }
}

// TrainingArguments' and TRL's ScriptArguments' bookkeeping: datasets by name, evaluation,
// logging, saving, the Hub, the optimizer's hyper-parameters (no effect on memory or time).
constexpr std::array<std::string_view, 30> kHfBookkeeping{"dataset_name",
                                                          "dataset_config",
                                                          "dataset_train_split",
                                                          "dataset_test_split",
                                                          "eval_strategy",
                                                          "evaluation_strategy",
                                                          "eval_steps",
                                                          "per_device_eval_batch_size",
                                                          "logging_strategy",
                                                          "logging_dir",
                                                          "logging_first_step",
                                                          "log_level",
                                                          "push_to_hub",
                                                          "hub_model_id",
                                                          "hub_strategy",
                                                          "hub_private_repo",
                                                          "run_name",
                                                          "save_total_limit",
                                                          "overwrite_output_dir",
                                                          "do_train",
                                                          "do_eval",
                                                          "warmup_steps",
                                                          "lr_scheduler_kwargs",
                                                          "adam_beta1",
                                                          "adam_beta2",
                                                          "adam_epsilon",
                                                          "max_grad_norm",
                                                          "dataloader_num_workers",
                                                          "remove_unused_columns",
                                                          "gradient_checkpointing_kwargs"};

void read_hf(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  bool lora = false;
  bool four_bit = false;
  const bool grpo = cfg.contains("num_generations");
  std::string engine = "generate";
  if (grpo) {
    out.values["trainer"] = "grpo";
    out.mapped.push_back("num_generations (GRPOConfig) -> trainer");
    // use_vllm False: the policy's generate(); True: vllm_mode, "server" by default.
    const json use_vllm = cfg.value("use_vllm", json(false));
    if (!use_vllm.is_boolean() && !use_vllm.is_null()) {
      throw InvalidRequest("config", "use_vllm is not true or false", "true|false");
    }
    const bool vllm = use_vllm.is_boolean() && use_vllm.get<bool>();
    const json mode = cfg.value("vllm_mode", json("server"));
    if (vllm && !mode.is_string()) {
      throw InvalidRequest("config", "vllm_mode is not a name", "colocate|server");
    }
    engine = vllm ? mode.get<std::string>() : "generate";
    out.values["rollout_engine"] = engine;
    out.mapped.push_back("use_vllm, vllm_mode -> rollout_engine");
  }
  for (const auto& item : cfg.items()) {
    // Named, not structured bindings: clang 14 (the asan preset) cannot capture those.
    const std::string& key = item.key();
    const json& v = item.value();
    const auto map = [&](const char* field) {
      if (!given(v)) return;
      out.values[field] = text_of(v);
      out.mapped.push_back(fmt::format("{} -> {}", key, field));
    };
    if (grpo && read_grpo_key(key, v, engine, out)) continue;
    if (key == "per_device_train_batch_size") {
      map("micro_batch");
    } else if (key == "gradient_accumulation_steps") {
      map("grad_accum");
    } else if (key == "max_steps") {
      // TrainingArguments: max_steps > 0 overrides num_train_epochs; -1 (the default) does not.
      if (v.is_number() && v.get<double>() > 0) {
        map("steps");
      } else {
        out.no_effect.push_back(fmt::format("max_steps={} (epochs decide)", text_of(v)));
      }
    } else if (key == "max_seq_length" || key == "max_length" || key == "model_max_length") {
      map("seq_len");
    } else if (key == "model_name_or_path" || key == "model_name") {
      map("model");
    } else if (key == "gradient_checkpointing") {
      // transformers' gradient checkpointing recomputes each decoder layer whole.
      if (v.is_boolean()) {
        out.values["recompute"] = v.get<bool>() ? "full" : "none";
        out.mapped.push_back("gradient_checkpointing -> recompute");
      }
    } else if (key == "use_liger_kernel") {
      map("use_liger_kernel");
    } else if (key == "optim" && v.is_string() && v.get<std::string>().rfind("galore_", 0) == 0) {
      read_galore(cfg, v.get<std::string>(), out);
    } else if ((key == "optim_args" || key == "optim_target_modules") &&
               text_at(cfg, "optim", "").rfind("galore_", 0) == 0) {
      continue;  // read with optim
    } else if (key == "use_dora") {
      // TRL's ModelConfig.use_dora: PEFT's DoRA on the LoRA targets.
      if (v.is_boolean() && v.get<bool>()) {
        out.values["dora"] = "true";
        out.mapped.push_back("use_dora -> dora");
      } else {
        out.no_effect.push_back(key);
      }
    } else if (key == "use_rslora") {
      out.no_effect.push_back(key);  // rsLoRA rescales the adapter: same shapes and memory
    } else if (key == "optim") {
      const std::string recipe = v.is_string() ? recipe_of(v.get<std::string>()) : "";
      if (recipe.empty()) {
        out.unknown.push_back(fmt::format("optim={}", excerpt(text_of(v))));
      } else {
        out.values["recipe"] = recipe;
        out.mapped.push_back("optim -> recipe");
      }
    } else if (key == "torch_dtype" || key == "dtype") {
      // The dtype the model loads in: read below for a full fine-tune; "auto" (the checkpoint's)
      // and fp16 are named.
      const std::string d = text_of(v);
      if (d == "bfloat16" || d == "bf16" || d == "float32" || d == "fp32") {
        out.no_effect.push_back(key);
      } else {
        out.unknown.push_back(fmt::format("{}={}", key, excerpt(d)));
      }
    } else if (key == "use_peft") {
      lora = v.is_boolean() && v.get<bool>();
      out.mapped.push_back("use_peft -> method");
    } else if (key == "load_in_4bit" || key == "load_in_8bit") {
      // TRL's ModelConfig: bitsandbytes' NF4 or LLM.int8 under the adapters.
      const bool on = v.is_boolean() && v.get<bool>();
      four_bit = four_bit || on;
      if (on && key == "load_in_8bit") out.values["qlora_bits"] = "8";
      out.mapped.push_back(fmt::format("{} -> method", key));
    } else if (key == "lora_r") {
      map("lora_rank");
    } else if (key == "lora_target_modules") {
      map("lora_targets");
    } else if (key == "lora_modules_to_save") {
      map("lora_modules_to_save");  // TRL's ModelConfig, PEFT's modules_to_save
    } else if (key == "deepspeed" && v.is_string()) {
      follow_deepspeed(v.get<std::string>(), dir, out);
    } else if (key == "fsdp" && v.is_string()) {
      // transformers' fsdp option: full_shard is ZeRO-3, shard_grad_op ZeRO-2; "offload" adds
      // the parameters' and gradients' offload.
      const std::string s = v.get<std::string>();
      if (s.find("full_shard") != std::string::npos ||
          s.find("hybrid_shard") != std::string::npos) {
        out.values["zero"] = "3";
      } else if (s.find("shard_grad_op") != std::string::npos) {
        out.values["zero"] = "2";
      }
      if (s.find("offload") != std::string::npos) out.values["offload"] = "params";
      out.mapped.push_back("fsdp -> zero, offload");
    } else if (key == "bf16" || key == "fp16" || key == "tf32" || key == "output_dir" ||
               key == "logging_steps" || key == "save_steps" || key == "learning_rate" ||
               key == "warmup_ratio" || key == "lr_scheduler_type" || key == "report_to" ||
               key == "seed" || key == "weight_decay" || key == "save_strategy" ||
               key == "num_train_epochs" || key == "lora_alpha" || key == "lora_dropout" ||
               one_of(key, kHfBookkeeping)) {
      out.no_effect.push_back(key);
    } else {
      out.unknown.push_back(key);
    }
  }
  // TRL's ModelConfig torch_dtype (dtype in newer releases) loads the model in bf16; the Trainer
  // keeps it so unless DeepSpeed or FSDP (accelerate's upcast) runs it.
  const std::string dtype = text_of(cfg.value("dtype", cfg.value("torch_dtype", json())));
  const json fsdp = cfg.value("fsdp", json());
  if ((dtype == "bfloat16" || dtype == "bf16") && !lora && !four_bit &&
      !cfg.contains("deepspeed") && !(fsdp.is_string() && !fsdp.get<std::string>().empty())) {
    keep_bf16_weights(out, cfg.contains("dtype") ? "dtype" : "torch_dtype");
  }
  if (lora) {
    out.values["method"] = four_bit ? "qlora" : "lora";
  } else if (four_bit) {
    out.values.erase("qlora_bits");
    out.unknown.push_back("load_in_4bit without use_peft (4-bit full training)");
  }
}

}  // namespace config_detail

using namespace config_detail;

std::string config_formats() {
  return "auto|hf-training-arguments|deepspeed|axolotl|llama-factory|llama-factory-v1|torchtune|"
         "accelerate|verl";
}

TrainingConfig parse_training_config(std::string_view text, const std::filesystem::path& dir,
                                     std::string_view format) {
  const std::string accepted = config_formats();
  bool known = false;
  for (std::size_t at = 0; at <= accepted.size();) {
    const std::size_t end = std::min(accepted.find('|', at), accepted.size());
    known = known || std::string_view{accepted}.substr(at, end - at) == format;
    at = end + 1;
  }
  if (!known) {
    throw InvalidRequest("config_format", fmt::format("unknown format '{}'", excerpt(format)),
                         accepted);
  }
  return parse_any_config(text, dir, format);
}

namespace config_detail {

TrainingConfig parse_any_config(std::string_view text, const std::filesystem::path& dir,
                                std::string_view format) {
  // JSON first; a verl run script as its overrides; anything else is read as YAML (axolotl,
  // LLaMA-Factory, torchtune, accelerate, verl).
  // Nesting is bounded before anything is parsed: a deep document's tree is destroyed by
  // recursion (yaml_as_json bounds its own the same way).
  if (json_nesting_depth(text) > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("nests more than {} levels", kMaxJsonDepth));
  }
  json cfg = json::parse(text, nullptr, false);
  if (cfg.is_discarded())
    cfg = is_verl_script(text) ? verl_script_overrides(text) : yaml_as_json(text);
  if (!cfg.is_object()) {
    throw InvalidRequest("config", "is not a JSON object or a YAML mapping",
                         "a TrainingArguments, DeepSpeed, axolotl, LLaMA-Factory, torchtune, "
                         "accelerate or verl config");
  }
  check_value_count(cfg, "");
  TrainingConfig out;
  const bool automatic = format == "auto";
  if (read_yaml_format(cfg, out, dir, format)) return out;
  if (format == "deepspeed" || (automatic && (cfg.contains("zero_optimization") ||
                                              cfg.contains("train_micro_batch_size_per_gpu")))) {
    out.format = "deepspeed";
    read_deepspeed(cfg, out, "");
    // DeepSpeed's bf16 and fp16 modes keep fp32 master weights and moments (ZeRO's partitions,
    // BF16_Optimizer) whatever dtype the module arrives in; "auto" is the Trainer's bf16/fp16.
    for (const char* mode : {"bf16", "fp16"}) {
      const json section = cfg.value(mode, json::object());
      const json enabled = section.is_object() ? section.value("enabled", json(false)) : json();
      out.keeps_fp32_master = out.keeps_fp32_master || enabled == true || enabled == "auto";
    }
  } else if (format == "hf-training-arguments" ||
             (automatic &&
              (cfg.contains("per_device_train_batch_size") || cfg.contains("output_dir") ||
               cfg.contains("gradient_accumulation_steps") ||
               // TRL's CLI YAML (trl sft --config): ModelConfig's model_name_or_path beside
               // ScriptArguments' dataset_name (examples/cli_configs/example_config.yaml).
               (cfg.contains("model_name_or_path") && cfg.contains("dataset_name"))))) {
    out.format = "hf-training-arguments";
    read_hf(cfg, out, dir);
  } else {
    throw InvalidRequest("config", "is none of the training config formats read",
                         "a TrainingArguments JSON (per_device_train_batch_size, ...), a DeepSpeed "
                         "JSON (zero_optimization, ...), or an axolotl, LLaMA-Factory, torchtune, "
                         "accelerate or verl YAML (docs/configs.md)");
  }
  return out;
}

}  // namespace config_detail

TrainingConfig read_training_config(const std::filesystem::path& file, std::string_view format) {
  std::string text;
  try {
    text = io::read_regular_file(file, kMaxConfigBytes);
  } catch (const DataError& e) {
    throw InvalidRequest("config", fmt::format("cannot read {}", e.what()));
  }
  return parse_training_config(text, file.parent_path(), format);
}

}  // namespace tb::api
