// A machine the user asked to estimate on: a catalog device and an optional dtype override.
#pragma once

#include <optional>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/spec/kernel_costs.hpp"
#include "trainbudget/spec/system.hpp"

namespace tb {

// A device and, optionally, the dtype to use instead of the recipe's ("h100-sxm:fp8").
struct MachineChoice {
  const Device* device{nullptr};
  std::optional<DType> dtype;
  const System* system{nullptr};  // the node shape; nullptr: the device's interconnect alone
  KernelCosts kernels{};          // the device's kernel class (HardwareCatalog::kernel_costs)
};

}  // namespace tb
