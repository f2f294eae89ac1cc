// The three memory numbers of a step (docs/memory-numbers.md): the allocated peak the model
// predicts (torch.cuda.max_memory_allocated), the reserved peak (plus the caching allocator's
// blocks, torch.cuda.max_memory_reserved) and the device total (plus the CUDA context, the
// cuBLAS workspace and NCCL's buffers: what nvidia-smi shows), each with its source, and the
// band the framework's uncertain kernels span around the allocated peak.
#pragma once

#include <string>

#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// Reserved / allocated - 1 of PyTorch's CUDA caching allocator: 2 MiB rounding of large blocks,
// 20 MiB segments for 1-10 MiB requests (c10/cuda/CUDACachingAllocator.cpp: kRoundLarge,
// kLargeBuffer) and the fragmentation between steps. fms-acceleration's A100-80GB benchmark
// (scripts/benchmarks/refs/a100_80gb.csv) has nvidia-smi 11-17 % above the allocated peak on
// Mistral-7B full and LoRA runs, of which ~0.5 GiB is the context: 10 % central, 3-20 % band.
inline constexpr double kReservedFraction = 0.10;
inline constexpr double kReservedFractionLow = 0.03;
inline constexpr double kReservedFractionHigh = 0.20;

// The CUDA context with lazy module loading: ~300-600 MB (pytorch/pytorch#109888, #107667,
// ptrblck; 426 MiB measured on an RTX 6000 Ada with nothing allocated). 0.5 GiB taken.
inline constexpr double kCudaContextBytes = 512.0 * 1024 * 1024;
// cuBLAS workspace per handle and stream: 32 MiB on sm90 (Hopper), 8.125 MiB otherwise
// (aten/src/ATen/cuda/CublasHandlePool.cpp, getChosenWorkspaceSize). 32 MiB taken.
inline constexpr double kCublasWorkspaceBytes = 32.0 * 1024 * 1024;
// NCCL per connection: SIMPLE 4 MiB + LL 512 KiB + LL128 4.69 MiB (nccl src/init.cc
// DEFAULT_BUFFSIZE, DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE), x 2 ring peers x 8 channels
// (channels depend on the topology; 8 taken).
inline constexpr double kNcclBytes = 2.0 * 8.0 * (4194304.0 + 524288.0 + 4915200.0);

struct MemoryNumbers {
  Bytes allocated;            // the model's peak over the step
  Bytes band_low, band_high;  // the allocated peak under the framework alternatives
  std::string moves_most;     // the field whose alternatives move it most ("loss=chunked:8")
  Bytes reserved;             // allocated x (1 + kReservedFraction)
  Bytes reserved_low, reserved_high;
  Bytes runtime;       // context + cuBLAS workspace (+ NCCL with more than one device)
  Bytes device_total;  // reserved + runtime
};

// The runtime outside PyTorch's allocator on a CUDA device (0 for CPUs and Apple silicon).
[[nodiscard]] Bytes cuda_runtime_bytes(int devices) noexcept;

// Whether the device's allocator keeps freed blocks cached (PyTorch's CUDA and MPS allocators);
// its CPU allocator returns them to the system, so reserved equals allocated there.
[[nodiscard]] bool caching_allocator(const Device& device) noexcept;

// The three numbers from an allocated peak and its band, for CUDA devices (runtime included)
// or others; `cached`: the allocator keeps a cache (caching_allocator), else reserved is the
// allocated peak itself.
[[nodiscard]] MemoryNumbers memory_numbers(Bytes allocated, Bytes band_low, Bytes band_high,
                                           bool cuda, int devices, bool cached = true);

// Whether a device runs the CUDA (or ROCm) runtime: NVIDIA and AMD GPUs.
[[nodiscard]] bool cuda_like(const Device& device) noexcept;

// What a training process may use of the device's memory: the capacity, except on Apple
// silicon, where Metal's recommendedMaxWorkingSetSize caps the GPU at about 2/3 of unified
// memory up to 36 GB and about 78 % above (measured values: 16 GB M4 10.67 GB, 48 GB M5 Pro
// 37.44 GiB, 128 GB M5 Max 107.52 GiB; no Apple document states the rule).
[[nodiscard]] Bytes usable_capacity(const Device& device) noexcept;

// What the allocated peak may reach on one device and still fit: the usable capacity less the
// runtime, over the allocator's fragmentation floor (1 + kReservedFractionLow). The caching
// allocator frees its cached blocks and retries before it reports out of memory
// (c10/cuda/CUDACachingAllocator.cpp, release_cached_blocks on a failed cudaMalloc), so the
// usual 10 % cache is not needed to fit; the fragmentation that remains is.
[[nodiscard]] Bytes allocatable_capacity(const Device& device, int devices) noexcept;

}  // namespace tb
