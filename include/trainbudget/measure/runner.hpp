// The measurement as a whole: which backends, dtypes and shapes, the timing loop (verify, warm
// up, repeat, keep every sample), memory bandwidth, and the context block.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

struct ShapeSpec {
  GemmShape shape;
  std::string label;
  std::vector<DType> dtypes;  // the dtypes timed at this shape; empty: all of them
  // A training step's shape (measure --step): each call timed alone with the caches flushed
  // before it (flush_cache), as a step's GEMMs read weights last touched a layer ago, at least
  // kColdSamples calls; otherwise calls run back to back, batched when short.
  bool cold{false};
};

inline constexpr int kColdSamples = 15;

struct MeasureOptions {
  bool quick{false};
  std::vector<std::string> backends;  // empty: default_backend_names()
  std::vector<DType> dtypes;          // empty: every measurable dtype each backend supports
  std::vector<ShapeSpec> shapes;      // empty: default_shapes(quick)
  int repetitions{0};                 // timed calls per run; 0: 3 quick, 5 full
  int warmups{-1};                    // untimed calls first; -1: 1 quick, 2 full
  bool bandwidth{true};               // run STREAM copy and triad
  std::map<std::string, std::string> libraries;    // backend -> library to dlopen instead
  std::function<void(std::string_view)> progress;  // one line per finished step
};

// The dtypes a measurement can time: fp64, fp32, tf32, bf16, fp16.
[[nodiscard]] const std::vector<DType>& measurable_dtypes();

// Quick: 512^3 and 1024^3 for every dtype, 2048^3 for all but fp64 (slow, and rarely what a
// model trains in). Full: squares 512..4096 and the three GEMMs of an MLP layer
// (hidden 2048, 4096 tokens): FFN up, FFN down, weight gradient, for every dtype.
[[nodiscard]] std::vector<ShapeSpec> default_shapes(bool quick);

// GPU backends: quick 8192^3; full 4096^3 to 16384^3 and a training shape (hidden 4096).
[[nodiscard]] std::vector<ShapeSpec> default_gpu_shapes(bool quick);

// Command-line lists. Each throws InvalidArgument naming its flag and the accepted values.
// The backend field: names from backend_names() or "all" (every backend, the naive one included).
[[nodiscard]] std::vector<std::string> parse_backend_list(std::string_view text);
// The dtype field: measurable dtypes or "all".
[[nodiscard]] std::vector<DType> parse_dtype_list(std::string_view text);
// The sizes field: N (N x N x N) or MxNxK, comma-separated, each in [1, 65536].
[[nodiscard]] std::vector<ShapeSpec> parse_sizes(std::string_view text);
// The repetitions field: a whole number in [1, 1000].
[[nodiscard]] int parse_repetitions(std::string_view text);

// Runs everything the options ask for. Backends that cannot run and runs that fail are recorded
// with their status; only bad options throw.
[[nodiscard]] Measurement run_measurement(const MeasureOptions& options);

}  // namespace tb::measure
