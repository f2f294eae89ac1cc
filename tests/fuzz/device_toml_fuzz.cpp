// libFuzzer target: hardware TOML text -> parse_device_toml. A tb::Error is the answer to bad
// input; anything else is a bug. An accepted device survives the round trip the catalog and
// `measure --save` rely on: device_toml() writes text that parse_device_toml() accepts, and
// writing that device again gives the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trainbudget/io/device_toml.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tb::Device device;
  try {
    device = tb::io::parse_device_toml(text, "fuzz/device.toml");
  } catch (const tb::Error&) {
    return 0;
  }
  // No catch from here: a device we accepted must write and read back.
  const std::string written = tb::io::device_toml(device);
  const tb::Device again = tb::io::parse_device_toml(written, "fuzz/written.toml");
  if (tb::io::device_toml(again) != written) __builtin_trap();
  return 0;
}
