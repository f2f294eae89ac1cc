// The request boundary's field tables: every input of a request described once (key, type,
// unit, default, help, accepted values) with the function that checks and applies it. The CLI's
// flags (--micro-batch), the JSON keys (micro_batch), --help and docs/fields.md all come from
// these rows; validation happens here, once.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"

namespace tb::api {

enum class FieldType : std::uint8_t {
  kCount,    // a positive count with a suffix: 7e9, 7B, 1.5T
  kNumber,   // a real number in a range
  kInteger,  // a whole number in a range
  kChoice,   // one of the accepted words
  kText,     // free text (a path or an id)
  kList,     // comma-separated items
  kFlag,     // present or absent: true | false in JSON
};

// The values a request gives, by key: what the CLI parsed or a JSON request file held. Flags
// are "true" or "false".
using FieldMap = std::map<std::string, std::string, std::less<>>;

struct EstimateRequest;

struct Field {
  std::string_view key;  // JSON key; the CLI flag is --key with '_' as '-'
  FieldType type;
  std::string_view value_name;     // the CLI's metavar: COUNT, FRACTION, N
  std::string_view unit;           // what a value counts, for people: parameters, tokens, ...
  std::string_view default_value;  // as the user would write it; empty: none (help says)
  std::string_view help;
  std::string (*accepted)();  // the accepted values, for errors, --help and the docs
  // Checks `value` and writes it into the request; throws InvalidRequest naming `key`.
  void (*apply)(std::string_view value, EstimateRequest& request);
  std::string_view group;  // job | layout | cluster | step | output | plan
};

// The estimate request's fields, in --help order.
[[nodiscard]] std::span<const Field> estimate_fields();
// The online RL rows (num_generations, rollout_engine, ...), part of the estimate's table.
[[nodiscard]] std::span<const Field> rollout_fields();
// The run's length (tokens, dataset_tokens, dataset_file, epochs, steps), part of the estimate's.
[[nodiscard]] std::span<const Field> run_length_fields();
// QLoRA's quantized-base rows (qlora_bits, no_double_quant), part of the estimate's table.
[[nodiscard]] std::span<const Field> quantization_fields();
// Megatron-Core's uneven pipeline split (first_stage_layers, last_stage_layers), part of the
// estimate's table.
[[nodiscard]] std::span<const Field> pipeline_fields();
// The vision-language rows (images, image_size, ...), part of the estimate's table.
[[nodiscard]] std::span<const Field> vision_fields();
// A plan request's: the estimate's (less fit and explain) and the plan's own.
[[nodiscard]] std::span<const Field> plan_fields();

// An infer request's: the model, the machines, the output and the serving rows
// (serving_fields.cpp).
[[nodiscard]] std::span<const Field> infer_fields();
// A compare request's: the infer request's, the fine-tuning tokens and the pretraining rows.
[[nodiscard]] std::span<const Field> compare_fields();

// The field with this key, or nullptr.
[[nodiscard]] const Field* find_field(std::span<const Field> fields, std::string_view key);

}  // namespace tb::api

// "type" for the docs.
template <>
struct tb::EnumNames<tb::api::FieldType> {
  static constexpr std::array<std::pair<tb::api::FieldType, std::string_view>, 7> kNames{
      {{tb::api::FieldType::kCount, "count"},
       {tb::api::FieldType::kNumber, "number"},
       {tb::api::FieldType::kInteger, "integer"},
       {tb::api::FieldType::kChoice, "choice"},
       {tb::api::FieldType::kText, "text"},
       {tb::api::FieldType::kList, "list"},
       {tb::api::FieldType::kFlag, "flag"}}};
};

namespace tb::api {}  // namespace tb::api
