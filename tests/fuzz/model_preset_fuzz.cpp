// libFuzzer target: a model preset's TOML text (data/models/*.toml) -> parse_model_preset, then
// the parameter count of its architecture. A tb::Error is the answer to bad input; anything
// else (UBSan: overflow in the counts) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tb::io::ModelPreset preset =
        tb::io::parse_model_preset(text, "fuzz/models/fuzz.toml", "fuzz");
    (void)tb::count_params(preset.architecture);
  } catch (const tb::Error&) {
  }
  return 0;
}
