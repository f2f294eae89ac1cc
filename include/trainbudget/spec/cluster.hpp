// What one evaluation runs on: a device's memory, the dense rate it computes the recipe's
// dtype at, and the utilization assumed. Numbers only; the device's names and sources stay in
// the catalog and the result.
#pragma once

#include "trainbudget/units/units.hpp"

namespace tb {

struct ClusterProfile {
  Bytes capacity;       // memory per device
  FlopsPerSecond rate;  // dense, per device; 0 when the device has no rate for the dtype
  double utilization{0.4};
};

}  // namespace tb
