// What trainbudget knows about the model of a job: a bare count, or an architecture with its
// exact counts and where they came from (config.json, a model folder, a preset).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/param_counts.hpp"

namespace tb {

// Element counts read from a checkpoint's safetensors headers (never its weights).
struct CheckpointSummary {
  std::vector<std::string> files;  // the safetensors files read
  std::int64_t tensors{0};
  std::int64_t elements{0};         // every tensor element
  std::int64_t buffer_elements{0};  // stored buffers, not parameters (rotary inv_freq, masks)
  std::int64_t scale_elements{0};   // quantization scales (FP8 weight_scale_inv, ...)
  std::vector<std::pair<std::string, std::int64_t>> elements_by_dtype;  // sorted by dtype
  std::uint64_t data_bytes{0};
  std::optional<std::uint64_t> index_total_size;  // model.safetensors.index.json's claim
  // elements - buffers - scales: what should equal the config's count.
  [[nodiscard]] std::int64_t parameter_elements() const {
    return elements - buffer_elements - scale_elements;
  }
};

struct ModelSource {
  // count | config | folder | hf-cache | hf-hub | preset (JSON model.source)
  std::string kind{"count"};
  std::string origin;  // the file, folder or preset id given as the model
  std::string name;    // display name: the preset's, else the folder's or config's
  std::string source;  // presets: where the published figures come from
  std::optional<ModelArchitecture> architecture;
  std::optional<ParamCounts> counts;
  std::optional<CheckpointSummary> checkpoint;  // folders with safetensors files
  std::vector<std::string> warnings;  // e.g. header elements disagree with the config's count
};

}  // namespace tb
