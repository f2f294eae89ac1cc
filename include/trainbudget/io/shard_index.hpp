// model.safetensors.index.json: {"metadata": {"total_size": bytes}, "weight_map": {tensor:
// file}} (huggingface_hub's sharded-checkpoint index; transformers' modeling_utils writes it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::io {

struct ShardIndex {
  std::vector<std::string> files;                 // each file once, sorted
  std::map<std::string, std::string> weight_map;  // tensor -> file
  std::optional<std::uint64_t> total_size;        // metadata.total_size, when given
};

// Parses an index, checking every file name stays inside the model folder; DataError lists
// the problems (the first few of them, for an index of any size). Linear in the entries
// (up to the map's log factor).
[[nodiscard]] ShardIndex parse_shard_index(std::string_view json_text, const std::string& origin);

}  // namespace tb::io
