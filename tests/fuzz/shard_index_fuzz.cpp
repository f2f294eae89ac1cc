// libFuzzer target: model.safetensors.index.json text -> parse_shard_index. A tb::Error is the
// answer to bad input; anything else (or a hang on a large index: parsing is linear) is a bug.
// An accepted index names only plain file names (no separator, not "." or ".."), lists each
// once and sorted, and every file the weight map points to is among them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trainbudget/io/shard_index.hpp"
#include "trainbudget/spec/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tb::io::ShardIndex index = tb::io::parse_shard_index(text, "fuzz/index.json");
    for (const std::string& f : index.files) {
      if (f.empty() || f == "." || f == ".." || f.find_first_of("/\\") != std::string::npos) {
        __builtin_trap();
      }
    }
    if (std::adjacent_find(index.files.begin(), index.files.end(),
                           [](const auto& a, const auto& b) { return !(a < b); }) !=
        index.files.end()) {
      __builtin_trap();
    }
    for (const auto& [tensor, file] : index.weight_map) {
      if (!std::binary_search(index.files.begin(), index.files.end(), file)) __builtin_trap();
    }
  } catch (const tb::Error&) {
  }
  return 0;
}
