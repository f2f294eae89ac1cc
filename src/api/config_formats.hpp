// The training config readers' shared parts (docs/configs.md): values as field text, DeepSpeed's
// JSON, and the YAML formats (axolotl, LLaMA-Factory, torchtune, accelerate, verl). Private to the
// api library.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "trainbudget/api/training_config.hpp"

namespace tb::api::config_detail {

using nlohmann::json;

inline constexpr std::size_t kMaxConfigBytes = 1 << 20;
// A config holds at most this many values (keys' values, list items and scalars together; the
// frameworks' largest example files hold a few hundred). Past it the document is refused before
// any reader walks it: a fuzzer-grown JSON of 100,000 keys took seconds under every format's
// reader, and a YAML document's aliases can expand exponentially when copied out.
inline constexpr std::size_t kMaxConfigValues = 20000;
// Throws InvalidRequest("config") when `cfg` holds more than kMaxConfigValues values.
void check_value_count(const json& cfg, std::string_view what);

// A value as a field's text: strings as they are, numbers and booleans printed, lists joined by
// commas.
[[nodiscard]] std::string text_of(const json& v);
// obj[key] as text (text_of), or `fallback` where obj has no such key or it is null: a value of
// the wrong type reads as its text rather than throwing.
[[nodiscard]] std::string text_at(const json& obj, const char* key, std::string fallback);
// Not null and not DeepSpeed's "auto" placeholder.
[[nodiscard]] bool given(const json& v);
// transformers' optim names (OptimizerNames) onto a recipe id; "" when none fits.
[[nodiscard]] std::string recipe_of(const std::string& optim);
// A DeepSpeed JSON's keys (zero_optimization, micro-batch, accumulation), names prefixed.
void read_deepspeed(const json& ds, TrainingConfig& out, const std::string& prefix);
// The DeepSpeed JSON a config names, relative to the config's folder, read as above.
void follow_deepspeed(const std::string& path, const std::filesystem::path& dir,
                      TrainingConfig& out);

// A dataset path a config names (relative to the config's folder): a local .json or .jsonl file
// joins the dataset_file field (its text counted for dataset_tokens, docs/configs.md) and
// `epochs` (the config's own epoch count, when given) joins the epochs field; anything else (a
// hub dataset id, another format) is listed without effect. Returns whether it was local.
bool local_dataset(const std::string& path, const std::filesystem::path& dir, const json& epochs,
                   const std::string& epochs_key, const std::string& key, TrainingConfig& out);

// A config's text (JSON first, else YAML) read in `format`, or in the format its keys show when
// `format` is "auto".
[[nodiscard]] TrainingConfig parse_any_config(std::string_view text,
                                              const std::filesystem::path& dir,
                                              std::string_view format);

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

// A full fine-tune loaded in bf16 with no fp32 copy: the optimizer's pure-bf16 recipe, mapped
// from `key` (bf16_weights.cpp).
void keep_bf16_weights(TrainingConfig& out, const std::string& key);

// One key of an fsdp_config (accelerate's, with or without its fsdp_ prefix as axolotl writes
// it) onto zero, offload and recompute (accelerate_config.cpp).
void read_fsdp_config_key(const std::string& key, const json& v, Reader& r);

// axolotl's unfrozen_parameters, when `key` is it (axolotl_unfrozen.cpp): the whole language
// model (and the vision encoder when the patterns reach it) read as such, anything narrower or
// under an adapter listed as not understood. Returns whether the key was this one.
bool read_axolotl_unfrozen(const json& cfg, const std::string& key, const json& v, Reader& r);

// FSDP1's sharding strategy, by name or number, as a ZeRO stage ("3", "2", "0"); "" for none.
std::string fsdp_stage_of(const std::string& strategy);

// axolotl's fsdp, fsdp_config, fsdp_version, dp_shard_size and model_quantization_config(_kwargs)
// keys (axolotl_parallel.cpp); false for any other key.
bool read_axolotl_parallel(const json& cfg, const std::string& key, const json& v, Reader& r);

// A parallel degree cfg[key]: the integer when it is one above 0, else 1 (absent, or not a
// degree; the field's own check names a bad value). axolotl's mesh and LLaMA-Factory's Megatron
// keys read their sizes with it.
[[nodiscard]] inline std::int64_t size_of(const json& cfg, const char* key) {
  const auto it = cfg.find(key);
  return it != cfg.end() && it->is_number_integer() && it->get<std::int64_t>() > 0
             ? it->get<std::int64_t>()
             : 1;
}

// axolotl's reward_model, process_reward_model and num_labels (axolotl_rl.cpp); false for any
// other key.
bool read_axolotl_reward(const json& cfg, const std::string& key, const json& v, Reader& r);

// LLaMA-Factory's Megatron keys (tensor_model_parallel_size and its siblings, the distributed
// optimizer, recompute, fusions), the Trainer's max_steps and bitsandbytes' quantization keys
// (llamafactory_keys.cpp); false for any other key.
bool read_llamafactory_keys(const json& cfg, const std::string& key, const json& v, Reader& r);

// axolotl's attn_implementation, plugins, cut_cross_entropy and liger_* keys and a few
// bookkeeping ones (axolotl_kernels.cpp); false for any other key.
bool read_axolotl_kernels(const json& cfg, const std::string& key, const json& v, Reader& r);
// axolotl's LoRA kernels, on where its config validation turns them on (after the method is read).
void axolotl_lora_kernels(const json& cfg, TrainingConfig& out);

// One TRL GRPOConfig key onto the online-RL field of the same name, given the rollout engine the
// config runs (training_config.cpp); false for a key it does not read.
bool read_grpo_key(const std::string& key, const json& v, const std::string& engine,
                   TrainingConfig& out);

// axolotl's online RL, `rl` grpo or ebft, with its trl section (axolotl_rl.cpp), and whether a
// config runs it (grpo, or ebft in its structured mode).
void read_axolotl_online_rl(const json& cfg, const std::string& rl, TrainingConfig& out);
[[nodiscard]] bool axolotl_online_rl(const json& cfg);

// axolotl's bookkeeping keys, batch_size, torch_compile and the GPTQ and old packing keys
// (axolotl_keys.cpp); false for any other key.
bool read_axolotl_keys(const json& cfg, const std::string& key, const json& v, Reader& r);

// The YAML formats, each reading every key of `cfg` (yaml_configs.cpp, torchtune_config.cpp,
// accelerate_config.cpp).
void read_axolotl(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir);
void read_llamafactory(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir);
// LLaMA-Factory's v1 schema (llamafactory_v1_config.cpp): a string `model` beside one of its
// own keys (model_class, dist_config, peft_config, kernel_config, optim_config, ...).
[[nodiscard]] bool is_llamafactory_v1(const json& cfg);
void read_llamafactory_v1(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir);
void read_torchtune(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir);
// A torchtune model builder's name (torchtune.models.*, without lora_/qlora_) as a preset id;
// empty when none is known.
[[nodiscard]] std::string_view torchtune_preset(std::string_view builder);
// torchtune's generic llama2 builder (and llama2_classifier) from the dimensions its config gives,
// as a config.json's text (torchtune_llama2.cpp); none when one it needs is missing.
[[nodiscard]] std::optional<std::string> torchtune_llama2_config(const json& args);
// Whether `key` is one of those dimensions (or the builder's norm_eps and rope_base).
[[nodiscard]] bool torchtune_llama2_dimension(std::string_view key);
// The PPO recipe's keys (torchtune_ppo.cpp), which read_torchtune leaves to read_torchtune_ppo.
[[nodiscard]] bool torchtune_ppo_key(const std::string& key);
// A PPO recipe config (it names policy_model) as --trainer ppo; `policy_preset` is the preset the
// policy's builder gave, empty when none.
void read_torchtune_ppo(const json& cfg, const std::string& policy_preset, Reader& r);
void read_accelerate(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir);
void read_verl(const json& cfg, TrainingConfig& out);
// A shell script that runs verl.trainer.main_ppo (verl_script.cpp), and its key=value overrides
// as an object of dotted keys; a shell variable's value is kept as an unresolved ${...}.
[[nodiscard]] bool is_verl_script(std::string_view text);
[[nodiscard]] json verl_script_overrides(std::string_view text);

// YAML text as JSON (YAML 1.2 core schema for scalars: true/false, null, integers, floats; the
// rest strings); InvalidRequest naming config for text that is not YAML or nests past 64 levels.
[[nodiscard]] json yaml_as_json(std::string_view text);
// Reads `cfg` in the YAML format `format` names, or ("auto") the one its keys show; false when it
// is none of them.
bool read_yaml_format(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir,
                      std::string_view format);

}  // namespace tb::api::config_detail
