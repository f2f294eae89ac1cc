// libFuzzer target: a training config's text -> parse_training_config, detected by content and
// forced into each format (JSON or YAML: TrainingArguments, DeepSpeed, axolotl, LLaMA-Factory,
// torchtune, accelerate, verl; or a verl run script). An InvalidRequest is the answer to bad
// input; anything else (a JSON type error, a YAML exception, a crash) is a bug. An accepted
// config maps only onto fields of the estimate's table.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trainbudget/api/field.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string_view format : {"auto", "hf-training-arguments", "deepspeed", "axolotl",
                                        "llama-factory", "torchtune", "accelerate", "verl"}) {
    try {
      const tb::api::TrainingConfig config =
          tb::api::parse_training_config(text, "/nonexistent-fuzz-dir", format);
      for (const auto& [key, value] : config.values) {
        if (tb::api::find_field(tb::api::estimate_fields(), key) == nullptr) __builtin_trap();
      }
    } catch (const tb::Error&) {
    }
  }
  return 0;
}
