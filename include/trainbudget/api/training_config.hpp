// A training config file the user already has, read as request fields (docs/configs.md): a
// Hugging Face / TRL TrainingArguments JSON (with a DeepSpeed JSON it names, followed) or a
// DeepSpeed JSON alone. Every key understood maps onto a field; the rest are listed, never
// dropped silently and never fatal.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "trainbudget/api/field.hpp"

namespace tb::api {

struct TrainingConfig {
  std::string format;                  // "hf-training-arguments" | "deepspeed"
  FieldMap values;                     // field key -> value, as a request file gives them
  std::vector<std::string> mapped;     // "per_device_train_batch_size -> micro_batch", in order
  std::vector<std::string> no_effect;  // understood, nothing to map (learning_rate, "auto")
  std::vector<std::string> unknown;    // keys not understood
  // A launch that keeps an fp32 master copy whatever the model's dtype (a DeepSpeed file with
  // bf16 or fp16, accelerate's DeepSpeed or FSDP): another file's bf16-weights reading yields.
  bool keeps_fp32_master{false};
  // The recipe before axolotl's bf16-weights rule (yaml_configs.cpp); empty where it did not apply.
  std::string recipe_before_bf16;
};

// The formats read, as --config-format names them; "auto" detects by content.
[[nodiscard]] std::string config_formats();

// Reads `file` (JSON or YAML), its format detected by content or forced by `format` (one of
// config_formats()). Throws InvalidRequest naming `config` (or `config_format`) for a file that
// cannot be read, is none of the formats, or is not the one forced.
[[nodiscard]] TrainingConfig read_training_config(const std::filesystem::path& file,
                                                  std::string_view format = "auto");

// Several files of one job (a training config with its DeepSpeed or accelerate file): where one
// file's reading depends on another's launch, settles it. A bf16-weights recipe (axolotl's model
// loaded in bf16, no fp32 copy) returns to the optimizer's own when another file's launch keeps
// an fp32 master (DeepSpeed, accelerate's FSDP upcast), with a mapped line saying so.
void reconcile_training_configs(std::vector<TrainingConfig>& configs);

// The same from text; `dir` resolves a DeepSpeed path the config names.
[[nodiscard]] TrainingConfig parse_training_config(std::string_view text,
                                                   const std::filesystem::path& dir,
                                                   std::string_view format = "auto");

}  // namespace tb::api
