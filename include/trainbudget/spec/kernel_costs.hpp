// How fast one class of device runs each kind of kernel a training step launches: the numbers
// the analytic cost backend (eval/kernel_cost.hpp) prices a kernel with. Each class is a data
// file, data/kernels/<id>.toml, with a source per figure (docs/time.md); the device files name
// no class, the class file lists its devices.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// The sequence lengths and head dims a fused-attention table is given at; the backend
// interpolates in log(sequence) and picks the nearest head dim.
inline constexpr std::array<double, 6> kAttentionSeqPoints{512, 1024, 2048, 4096, 8192, 16384};
inline constexpr std::array<double, 3> kAttentionHeadDims{64, 128, 256};

// A fused attention kernel's throughput as a share of the device's dense 16-bit peak, causal,
// forward and backward apart, at each head dim and sequence point (FLOPs counted as the
// FlashAttention papers do: 4 s^2 d per head forward, halved when causal, backward 2.5x).
struct AttentionTable {
  std::array<std::array<double, kAttentionSeqPoints.size()>, kAttentionHeadDims.size()> forward{};
  std::array<std::array<double, kAttentionSeqPoints.size()>, kAttentionHeadDims.size()> backward{};
  bool present{false};
};

// Which fused attention a framework calls: FlashAttention-2 (PyTorch SDPA's flash backend,
// the flash-attn package), the vendor's fused kernel (cuDNN through Transformer Engine,
// FlashAttention-3 on Hopper), or FlashAttention 1.x (flash-attn before 2.0 and its Triton port,
// the kernels of 2022-2023 stacks).
enum class AttentionKernel : std::uint8_t { kFlash2, kVendor, kFlash1 };

template <>
struct EnumNames<AttentionKernel> {
  static constexpr std::array<std::pair<AttentionKernel, std::string_view>, 3> kNames{
      {{AttentionKernel::kFlash2, "flash2"},
       {AttentionKernel::kVendor, "vendor"},
       {AttentionKernel::kFlash1, "flash1"}}};
};

// How a framework issues its kernels: one Python op at a time (eager PyTorch), compiled and
// fused (torch.compile, JAX), or hand-fused with few launches (Megatron-Core with Transformer
// Engine). Sets the kernel count per layer and the host's dispatch cost per kernel.
enum class Dispatch : std::uint8_t { kEager, kCompiled, kFused };
inline constexpr std::size_t kDispatchModes = 3;

template <>
struct EnumNames<Dispatch> {
  static constexpr std::array<std::pair<Dispatch, std::string_view>, kDispatchModes> kNames{
      {{Dispatch::kEager, "eager"},
       {Dispatch::kCompiled, "compiled"},
       {Dispatch::kFused, "fused"}}};
};

// Numbers only (what a ClusterProfile carries; copied per evaluation, no allocation).
struct KernelCosts {
  // Streaming multiprocessors (compute units) that GEMM tiles are spread over; 0: no wave
  // quantisation (a CPU, a device whose count is not known).
  int compute_units{0};
  // The GEMM tile the class's libraries favour for large 16-bit GEMMs (rows x columns of C).
  double tile_m{128}, tile_n{128};
  // Share of the memory bandwidth that element-wise and reduction kernels (norms, activations,
  // residual adds, casts, the loss) reach; 1 (the datasheet's peak) for a device no class lists.
  double elementwise_efficiency{1.0};
  // Tensors of at least this many bytes get new pages from the OS at every allocation (the
  // allocator maps them afresh and unmaps them when freed), so their first write runs at the
  // device's first-touch rate; 0: the allocator keeps and reuses its memory (CUDA's caching
  // allocator).
  double fresh_tensor_bytes{0.0};
  // Streaming multiprocessors a collective occupies while it runs (NCCL's channels, one thread
  // block each): the compute it overlaps with runs on the rest (0: not modeled).
  int collective_units{0};
  // Device time between two kernels (launch latency and the tail of the previous one).
  double launch_gap_s{0.0};
  // The host's time to issue one kernel, per Dispatch mode: the step cannot run faster than the
  // host issues its kernels.
  std::array<double, kDispatchModes> dispatch_s{};
  AttentionTable flash2;  // FlashAttention-2 / SDPA's flash backend
  AttentionTable vendor;  // cuDNN / FlashAttention-3 (absent: flash2)
  AttentionTable flash1;  // FlashAttention 1.x (absent: flash2)
};

// A class as the catalog holds it: the numbers plus the words.
struct KernelClass {
  std::string id;
  std::string name;
  std::vector<std::string> devices;     // device ids of the class
  std::vector<std::string> categories;  // and every device of these categories not listed
  std::vector<int> compute_units;       // per device, same order (0: unknown)
  KernelCosts costs;                    // compute_units left 0; set per device
  std::string source;                   // one line per figure, for `hardware show` and docs
  std::string origin;                   // the file
};

}  // namespace tb
