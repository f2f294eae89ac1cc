// safetensors headers: tensor names, dtypes and shapes, read without touching the weights.
//
// Format (huggingface/safetensors README, "Format"): an 8-byte little-endian unsigned header
// length N, N bytes of UTF-8 JSON {name: {"dtype", "shape", "data_offsets": [begin, end]},
// "__metadata__": {string: string}}, then the data buffer. Offsets are relative to the buffer,
// and the tensors must tile it exactly: no overlap, no hole, nothing past its end.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::io {

struct TensorInfo {
  std::string name;
  std::string dtype;  // as written: "BF16", "F8_E4M3", ...
  std::vector<std::int64_t> shape;
  std::int64_t elements{0};
  std::uint64_t begin{0};  // data_offsets, relative to the data buffer
  std::uint64_t end{0};
};

struct SafetensorsHeader {
  std::string file;
  std::uint64_t header_bytes{0};    // N
  std::uint64_t data_bytes{0};      // the buffer after the header
  std::vector<TensorInfo> tensors;  // sorted by begin offset
  std::map<std::string, std::string> metadata;
};

// The largest header accepted; the safetensors library refuses headers over 100,000,000 bytes
// (MAX_HEADER_SIZE in safetensors/src/tensor.rs).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// Bits per element of a safetensors dtype; nullopt for a dtype we do not know.
[[nodiscard]] std::optional<int> safetensors_dtype_bits(std::string_view dtype);

// Validates the JSON header of a file whose data buffer has `data_bytes` bytes. Throws
// DataError(origin, all problems) naming each tensor and field.
[[nodiscard]] SafetensorsHeader parse_safetensors_header(std::string_view header_json,
                                                         std::uint64_t data_bytes,
                                                         const std::string& origin);

// Parses the first bytes of a file given its full size: the 8-byte length, then the header.
// `prefix` must hold at least 8 + N bytes when N fits the file; used by the fuzz target.
[[nodiscard]] SafetensorsHeader parse_safetensors_prefix(std::string_view prefix,
                                                         std::uint64_t file_size,
                                                         const std::string& origin);

// Reads only the 8-byte length and the header of a file, never the weights.
[[nodiscard]] SafetensorsHeader read_safetensors_header(const std::filesystem::path& file);

}  // namespace tb::io
