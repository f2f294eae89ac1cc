// What `trainbudget measure` produces: plain records, no behaviour. The runner fills them, the
// views (report/view.hpp) print them and the profile writer saves them. This
// header depends on core only, so the report layer can read it without linking the measure layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/units/units.hpp"

namespace tb::measure {

// Whether a backend or a run could be measured (docs/architecture.md, "Errors": a measurement that
// could not run is a status in the result, never an exception).
enum class Status { kOk, kSkipped, kFailed };

[[nodiscard]] constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kSkipped:
      return "skipped";
    case Status::kFailed:
      return "failed";
  }
  return "failed";
}

// Median and spread of repeated timings, in seconds.
struct SampleStats {
  double median{0.0};
  double mean{0.0};
  double min{0.0};
  double max{0.0};
  double stddev{0.0};  // sample standard deviation (n - 1); 0 for a single sample
  std::size_t count{0};
};

// A GEMM problem: C (m x n) = A (m x k) * B (k x n), row-major, no transposes.
struct GemmShape {
  std::int64_t m{0};
  std::int64_t n{0};
  std::int64_t k{0};

  // 2mnk: one multiply and one add per inner-product term.
  [[nodiscard]] constexpr Flops flops() const {
    return Flops{2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k)};
  }
  [[nodiscard]] constexpr bool square() const { return m == n && n == k; }
  constexpr bool operator==(const GemmShape&) const = default;
};

// A backend as the context block shows it.
struct BackendInfo {
  std::string name;  // "openblas", "onednn", "blis", "naive", "cublas"
  Status status{Status::kSkipped};
  std::string reason;   // why skipped or failed
  std::string library;  // the file it was loaded from, or "built in"
  std::string version;
  std::string kernel;  // the kernel or ISA it chose, e.g. "Haswell", "avx512_core_bf16"
  int threads{0};
  std::vector<std::string> warnings;  // e.g. a forced, downgraded kernel
  bool gpu{false};                    // computes on a GPU: its rates describe that device
  std::string device_name;            // GPU backends: the device's name
  Bytes device_memory;                // GPU backends: the device's memory
};

// Comparison of a backend's result with the naive reference on a small problem.
struct Verification {
  GemmShape shape;
  double max_error{0.0};  // max |c - ref| / sum_k |a||b|, the bound's own scale
  double bound{0.0};
  bool passed{false};
};

struct GemmRun {
  std::string backend;
  DType dtype{DType::kFp32};
  GemmShape shape;
  std::string shape_label;  // "square" or what the skinny shape stands for
  Status status{Status::kOk};
  std::string reason;
  std::string kernel;  // the implementation the library picked for this problem, if it says
  std::optional<Verification> verification;
  int warmups{0};
  int calls_per_sample{1};              // small problems are timed in batches; samples are per call
  std::vector<double> samples_seconds;  // every sample, in order, seconds per call
  SampleStats stats;
  FlopsPerSecond median_rate;
  FlopsPerSecond best_rate;  // from the fastest sample
};

// STREAM-style kernels (McCalpin): copy c = a; triad a = b + s * c.
struct BandwidthRun {
  std::string kernel;    // "copy", "triad", "first touch" or "device copy" (GPU)
  std::string backend;   // empty for the CPU's STREAM, else the GPU backend
  Bytes array_bytes;     // one array
  Bytes bytes_per_pass;  // STREAM counting: copy 2 arrays, triad 3 (no write-allocate)
  int threads{0};
  std::vector<double> samples_seconds;
  SampleStats stats;
  BytesPerSecond median_rate;
  BytesPerSecond best_rate;
};

// The CPU as the OS describes it.
struct CpuInfo {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel", ...
  std::string model_name;
  int family{-1};
  int model{-1};
  int logical_cpus{0};    // usable by this process
  int physical_cores{0};  // distinct (package, core) pairs among them
  std::vector<std::string> flags;
  double clock_hz{0.0};
  std::string clock_source;  // where clock_hz came from
  bool clock_is_guess{true};

  [[nodiscard]] bool has(std::string_view flag) const {
    for (const std::string& f : flags) {
      if (f == flag) return true;
    }
    return false;
  }
};

// FLOPs per cycle per core of one dtype, and where that figure comes from.
struct PerCycle {
  double flops{0.0};
  std::string basis;  // "Zen 5 server: 64 FP32 FLOPs/cycle/core expected, unmeasured [...]"
  bool derived{false};
};

// cores x clock x FLOPs/cycle/core for one dtype.
struct PeakRate {
  DType dtype{DType::kFp32};
  FlopsPerSecond rate;
  PerCycle per_cycle;
  int cores{0};
  double clock_hz{0.0};
};

struct TheoreticalPeak {
  std::string microarchitecture;  // "Zen 5 (server)", "unknown x86-64"
  std::vector<PeakRate> rates;

  [[nodiscard]] const PeakRate* find(DType dtype) const {
    for (const PeakRate& r : rates) {
      if (r.dtype == dtype) return &r;
    }
    return nullptr;
  }
};

struct MeasurementContext {
  std::string host;
  std::string date;  // ISO 8601, UTC
  std::string tool_version;
  std::string commit;
  std::string build_type;
  std::string compiler;
  bool quick{false};
  CpuInfo cpu;
  std::vector<std::string> isa;  // the GEMM-relevant ISA flags found (cpu_info.hpp isa_flags)
  Bytes memory_capacity;         // MemTotal
  Bytes memory_available;        // MemAvailable at the start of the run (0: unknown)
  std::map<std::string, std::string> environment;  // the variables that steer the backends
  std::vector<BackendInfo> backends;
  std::vector<std::string> warnings;
};

struct Measurement {
  MeasurementContext context;
  TheoreticalPeak peak;
  std::vector<GemmRun> gemm;
  std::vector<BandwidthRun> bandwidth;

  // The fastest ok run per dtype (by median rate); nullptr when none.
  [[nodiscard]] const GemmRun* best(DType dtype) const {
    const GemmRun* best = nullptr;
    for (const GemmRun& r : gemm) {
      if (r.dtype != dtype || r.status != Status::kOk) continue;
      if (best == nullptr || r.median_rate > best->median_rate) best = &r;
    }
    return best;
  }
  // The triad run: what the profile and `memory_bandwidth` report.
  [[nodiscard]] const BandwidthRun* memory_bandwidth() const {
    for (const BandwidthRun& r : bandwidth) {
      if (r.kernel == "triad") return &r;
    }
    return nullptr;
  }
  // The first-touch run (fresh pages written by one thread), if measured.
  [[nodiscard]] const BandwidthRun* first_touch() const {
    for (const BandwidthRun& r : bandwidth) {
      if (r.kernel == "first touch") return &r;
    }
    return nullptr;
  }
  // True when some backend or run failed (not skipped): the command's exit code says so.
  [[nodiscard]] bool any_failed() const {
    for (const BackendInfo& b : context.backends) {
      if (b.status == Status::kFailed) return true;
    }
    for (const GemmRun& r : gemm) {
      if (r.status == Status::kFailed) return true;
    }
    return false;
  }
};

}  // namespace tb::measure
