// libFuzzer target: config.json text -> parse_hf_config, then the parameter count, the linear
// layers and the LoRA adapter count (the largest rank, all-linear) of every accepted architecture.
// A tb::Error is the answer to bad input; any other exception, a crash, a sanitizer report (UBSan
// catches overflow in the counting arithmetic), a leak or a hang is a bug. The linears of an
// accepted config never hold more parameters than the whole model.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tb::ModelArchitecture arch = tb::io::parse_hf_config(text, "fuzz/config.json");
    const tb::ParamCounts counts = tb::count_params(arch);
    std::int64_t linear = 0;
    for (const tb::LinearLayer& l : tb::model_linears(arch, true)) linear += l.total_params();
    if (linear > counts.total_with_mtp) __builtin_trap();
    // The largest rank a request accepts (lora_rank in src/api/field.cpp), on every linear.
    tb::LoraSpec lora;
    lora.rank = 65536;
    lora.targets = {"all-linear"};
    (void)tb::lora_trainable_params(arch, lora);
  } catch (const tb::Error&) {
  }
  return 0;
}
