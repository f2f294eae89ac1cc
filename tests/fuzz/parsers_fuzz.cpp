// libFuzzer target for the untrusted-input parsers: config.json and safetensors headers.
// The first byte picks the parser ('s': a safetensors file prefix; anything else: config.json
// text). A tb::Error is the expected answer to bad input; any other exception, a crash, a
// sanitizer report or a leak is a bug. Accepted configs are also counted, so that overflow in
// the counting arithmetic (UBSan) is found too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/safetensors.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] == 's') {
      (void)tb::io::parse_safetensors_prefix(input, input.size(), "fuzz.safetensors");
    } else {
      const tb::ModelArchitecture arch = tb::io::parse_hf_config(input, "fuzz/config.json");
      const tb::ParamCounts counts = tb::count_params(arch);
      std::int64_t linear = 0;
      for (const tb::LinearLayer& l : tb::model_linears(arch, true)) linear += l.total_params();
      if (linear > counts.total_with_mtp) __builtin_trap();
    }
  } catch (const tb::Error&) {
  }
  return 0;
}
