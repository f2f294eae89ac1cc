// The memory bandwidth a decode step actually reaches: a measured figure as it is, else a
// sourced fraction of the vendor's peak for the device's class. docs/inference.md,
// "Achievable bandwidth", lists the measurements behind each fraction.
#pragma once

#include <optional>
#include <string>

#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

struct AchievableBandwidth {
  BytesPerSecond peak;        // the catalog's figure
  BytesPerSecond achievable;  // what the decode model divides by
  double fraction{1.0};       // achievable / peak
  bool measured{false};       // the catalog's figure is itself a measurement (measure --save)
  std::string source;
};

// nullopt when the device has no bandwidth figure.
[[nodiscard]] std::optional<AchievableBandwidth> achievable_bandwidth(const Device& device);

}  // namespace tb
