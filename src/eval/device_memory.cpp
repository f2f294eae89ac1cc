// The three memory numbers and the usable capacity (docs/memory-numbers.md).
#include "trainbudget/eval/device_memory.hpp"

namespace tb {

Bytes cuda_runtime_bytes(int devices) noexcept {
  return Bytes{kCudaContextBytes + kCublasWorkspaceBytes + (devices > 1 ? kNcclBytes : 0.0)};
}

MemoryNumbers memory_numbers(Bytes allocated, Bytes band_low, Bytes band_high, bool cuda,
                             int devices, bool cached) {
  MemoryNumbers out;
  out.allocated = allocated;
  out.band_low = band_low;
  out.band_high = band_high;
  out.reserved = cached ? allocated * (1.0 + kReservedFraction) : allocated;
  out.reserved_low = cached ? band_low * (1.0 + kReservedFractionLow) : band_low;
  out.reserved_high = cached ? band_high * (1.0 + kReservedFractionHigh) : band_high;
  out.runtime = cuda ? cuda_runtime_bytes(devices) : Bytes{0.0};
  out.device_total = out.reserved + out.runtime;
  return out;
}

bool caching_allocator(const Device& device) noexcept { return device.category != "cpu"; }

bool cuda_like(const Device& device) noexcept {
  return (device.vendor == "nvidia" || device.vendor == "amd") && device.category != "soc";
}

Bytes usable_capacity(const Device& device) noexcept {
  if (device.vendor != "apple") return device.memory_capacity;
  constexpr double kSmall = 36e9 * 1.073741824;  // 36 GiB: Apple's "36 GB" is binary
  const double fraction = device.memory_capacity.value() <= kSmall ? 2.0 / 3.0 : 0.78;
  return device.memory_capacity * fraction;
}

Bytes allocatable_capacity(const Device& device, int devices) noexcept {
  const Bytes runtime = cuda_like(device) ? cuda_runtime_bytes(devices) : Bytes{0.0};
  const Bytes left = usable_capacity(device) - runtime;
  return left.value() > 0.0 ? left / (1.0 + kReservedFractionLow) : Bytes{0.0};
}

}  // namespace tb
