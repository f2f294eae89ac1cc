// A device as the estimator sees it: memory, dense peak rates per dtype, each figure sourced.
// The io layer builds these from data/hardware/*.toml; core never reads files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// Whether a rate is a vendor figure or a measurement (of a matmul through some library).
enum class RateKind { kSpec, kMeasured };

struct ComputeRate {
  DType dtype{DType::kFp32};
  FlopsPerSecond dense;                  // never a 2:4-sparsity figure
  std::optional<FlopsPerSecond> sparse;  // informational only
  // A measured ceiling of large dense matmuls at this dtype (e.g. ml-engineering's MAMF
  // finder): what GEMM-bound compute reaches; sets the step-time model's GEMM efficiency.
  std::optional<FlopsPerSecond> matmul;
  std::string matmul_source;
  RateKind kind{RateKind::kSpec};
  std::string source;
  std::string note;
  std::string measured_by;  // kMeasured only
  std::string method;       // kMeasured only
  std::string date;
};

// One GEMM shape timed on this machine (`trainbudget measure --step`): the measured cost
// backend prices a step's GEMMs by these (docs/time.md, "Measured").
struct MeasuredGemm {
  std::int64_t m{0}, n{0}, k{0};
  DType dtype{DType::kFp32};
  FlopsPerSecond rate;  // 2mnk / the median call time
};

struct Interconnect {
  std::string name;
  BytesPerSecond bandwidth;
  bool bidirectional{true};
  std::string source;
};

struct Price {
  DollarsPerHour usd_per_hour;
  std::string date;
  std::string source;
};

// The prefix a vendor's capacity figure uses. HBM, GDDR and LPDDR capacities are binary: an
// "80 GB" H100 has 80 GiB = 85.9e9 bytes (nvidia-smi: 81559 MiB usable). Catalog files say which
// with the key (capacity_gib or capacity_gb); reports print the capacity in the same unit.
enum class CapacityUnit { kGB, kGiB };

struct Device {
  std::string id;
  std::string name;
  std::string vendor;
  std::string category;
  std::string notes;
  Bytes memory_capacity;
  CapacityUnit memory_capacity_unit{CapacityUnit::kGB};  // the unit the catalog gave it in
  std::optional<BytesPerSecond> memory_bandwidth;
  // kMeasured: a STREAM-style triad on this machine (measure --save), used as it is for the
  // achievable bandwidth; kSpec: the vendor's peak.
  RateKind memory_bandwidth_kind{RateKind::kSpec};
  // A measured CPU profile: one thread's write rate into freshly mapped pages (measure's "first
  // touch"), what a tensor the allocator maps afresh is written at. Absent: not measured.
  std::optional<BytesPerSecond> first_touch_bandwidth;
  // A measured GPU machine's host RAM (memory.host_gb): where offload goes when no system says.
  std::optional<Bytes> host_memory;
  std::string memory_source;
  std::vector<ComputeRate> rates;
  std::optional<Interconnect> interconnect;
  std::optional<Watts> tdp_watts;
  std::string power_source;
  std::optional<Price> price;
  std::vector<MeasuredGemm> gemm_table;  // measured profiles only; empty otherwise
  std::string origin;                    // the file it came from, for messages

  // The rate published for exactly this dtype, if any.
  [[nodiscard]] const ComputeRate* rate(DType dtype) const;
};

// The rate a job computing in `wanted` runs at on `device`, following rate_fallbacks().
// nullptr when the device has no usable figure.
[[nodiscard]] const ComputeRate* select_rate(const Device& device, DType wanted);

}  // namespace tb
