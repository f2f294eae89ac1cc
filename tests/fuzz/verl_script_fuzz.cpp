// libFuzzer target: a verl run script's text -> its Hydra overrides (api/config_formats.hpp,
// verl_script_overrides: line continuations, quotes, variables and $((...)) arithmetic), then the
// mapped training config. An InvalidRequest is the answer to bad input; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/config_formats.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  // Always a script: the fuzzed text as the lines before the launcher (its shell variables),
  // then the launcher line and the same text as its arguments.
  const std::string text =
      std::string{body} + "\npython3 -m verl.trainer.main_ppo \\\n" + std::string{body};
  try {
    const auto overrides = tb::api::config_detail::verl_script_overrides(text);
    if (!overrides.is_object()) __builtin_trap();
    (void)tb::api::parse_training_config(text, "/nonexistent-fuzz-dir", "verl");
  } catch (const tb::Error&) {
  }
  return 0;
}
