// Rate lookup on a device.
#include "trainbudget/spec/hardware.hpp"

namespace tb {

const ComputeRate* Device::rate(DType dtype) const {
  for (const ComputeRate& r : rates) {
    if (r.dtype == dtype) return &r;
  }
  return nullptr;
}

const ComputeRate* select_rate(const Device& device, DType wanted) {
  for (DType candidate : rate_fallbacks(wanted)) {
    if (const ComputeRate* r = device.rate(candidate)) return r;
  }
  return nullptr;
}

}  // namespace tb
