// libFuzzer target: a safetensors file's first bytes (8-byte length, JSON header, data) ->
// parse_safetensors_prefix, once with the input as the whole file and once as the prefix of a
// 1 TB file, so that offsets past the bytes present are reached too. A tb::Error is the answer
// to bad input; anything else is a bug. An accepted header's tensors tile the data buffer
// exactly, sorted by offset: the first begins at 0, each begins where the one before ends, and
// the last ends at the buffer's end.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trainbudget/io/safetensors.hpp"
#include "trainbudget/spec/error.hpp"

namespace {

void check_tiling(const tb::io::SafetensorsHeader& h) {
  std::uint64_t at = 0;
  for (const tb::io::TensorInfo& t : h.tensors) {
    if (t.begin != at || t.end < t.begin) __builtin_trap();
    at = t.end;
  }
  if (at != h.data_bytes) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  for (const std::uint64_t file_size : {std::uint64_t{size}, std::uint64_t{1} << 40}) {
    try {
      check_tiling(tb::io::parse_safetensors_prefix(file, file_size, "fuzz.safetensors"));
    } catch (const tb::Error&) {
    }
  }
  return 0;
}
