// The share of a device's dense peak its GEMMs reach, and what that share stands on
// (eval/cluster_profile.cpp). report/estimate_words.hpp words the basis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// The GEMM efficiency a machine computes at, and its source: the user's, 1 for a measured rate,
// the catalog's measured matmul ceiling over the peak, or kDefaultGemmEfficiency.
enum class GemmBasis : std::uint8_t {
  kGiven,            // the gemm_efficiency field
  kMeasuredRate,     // the rate is itself a measured matmul rate
  kMeasuredCeiling,  // the catalog's measured matmul ceiling over the dense peak
  kDefault,          // kDefaultGemmEfficiency
};
struct GemmEfficiency {
  double value{1.0};
  GemmBasis basis{GemmBasis::kDefault};
  FlopsPerSecond matmul;  // kMeasuredCeiling: the ceiling and the peak it is a share of
  FlopsPerSecond dense;
  std::string source;  // kMeasuredCeiling: the catalog's citation of the ceiling
};
[[nodiscard]] GemmEfficiency gemm_efficiency_of(const ComputeRate& rate,
                                                std::optional<double> given);

// The median bf16 efficiency of the 12 accelerators in ml-engineering's "Maximum Achievable
// Matmul FLOPS" table (stas00/ml-engineering, compute/accelerator/README.md at 744d01e: from
// MI300X 51.4 % to Gaudi 2 96.9 %; the middle two are B200 77.6 % and B300 78.6 %): the GEMM
// efficiency of a device with no measured ceiling of its own.
inline constexpr double kDefaultGemmEfficiency = 0.781;

}  // namespace tb
