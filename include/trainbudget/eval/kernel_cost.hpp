// What one kernel costs on a device: the cost backends of the step's time, behind one interface
// (as CommModel is for collectives), so a measured table can replace the analytic model without
// touching the step's assembly (eval/kernel_time.hpp). docs/time.md derives every formula.
#pragma once

#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/kernel_costs.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// C[m x n] = A[m x k] B[k x n], `count` times (a batch, or a grouped GEMM's experts).
struct GemmShape {
  double m{0.0}, n{0.0}, k{0.0};
  double count{1.0};
  bool fp8{false};  // runs on the fp8 tensor cores (an fp8 recipe's linear layers)
  // One launch over the `count` problems (a strided-batched or grouped GEMM): their tiles share
  // one grid, so the waves count all of them; otherwise `count` separate launches.
  bool batched{false};
};

// One fused attention call (FlashAttention and its kin): `heads` = micro-batch x heads on this
// device, `queries` per head, each scored against `keys` keys on average, at head dim `d`
// (qk) and `d_v`.
struct AttentionShape {
  double heads{0.0}, queries{0.0}, keys{0.0};
  double d{0.0}, d_v{0.0};
  double seq{0.0};  // the sequence length the kernel sees (its table's x axis)
  AttentionKernel kernel{AttentionKernel::kFlash2};
};

class KernelCostModel {
 public:
  virtual ~KernelCostModel() = default;
  [[nodiscard]] virtual Seconds gemm(const GemmShape& g,
                                     const ClusterProfile& c) const noexcept = 0;
  // Forward, or backward (dQ, dK, dV with the recomputed scores) when `backward`.
  [[nodiscard]] virtual Seconds attention(const AttentionShape& a, bool backward,
                                          const ClusterProfile& c) const noexcept = 0;
  // An element-wise or reduction kernel moving `bytes` through device memory.
  [[nodiscard]] virtual Seconds memory(Bytes bytes, const ClusterProfile& c) const noexcept = 0;
};

// The analytic backend: a GEMM at the device's measured matmul ceiling times the share of the
// device its tiles fill (tile and wave quantisation, NVIDIA's "Matrix Multiplication Background
// User's Guide"), or its operands over the bandwidth when that is longer (the roofline);
// attention at the published throughput of the kernel the framework calls (the class's table by
// head dim and sequence); memory-bound kernels at the class's share of the bandwidth.
class AnalyticKernelCost final : public KernelCostModel {
 public:
  [[nodiscard]] Seconds gemm(const GemmShape& g, const ClusterProfile& c) const noexcept override;
  [[nodiscard]] Seconds attention(const AttentionShape& a, bool backward,
                                  const ClusterProfile& c) const noexcept override;
  [[nodiscard]] Seconds memory(Bytes bytes, const ClusterProfile& c) const noexcept override;
};

// The measured backend: a GEMM at the rate this machine reached at the same shape, or at the
// nearest shape it timed (by the sum of the dimensions' log ratios), from the profile's table
// (`trainbudget measure --step`); attention and memory-bound kernels as the analytic backend
// prices them.
class MeasuredKernelCost final : public KernelCostModel {
 public:
  [[nodiscard]] Seconds gemm(const GemmShape& g, const ClusterProfile& c) const noexcept override;
  [[nodiscard]] Seconds attention(const AttentionShape& a, bool backward,
                                  const ClusterProfile& c) const noexcept override;
  [[nodiscard]] Seconds memory(Bytes bytes, const ClusterProfile& c) const noexcept override;
};

// The first writes into `count` tensors of `bytes` each when the device's allocator maps
// tensors that large afresh (glibc's malloc under eager PyTorch on a CPU): every page faults and
// is zeroed, at the measured first-touch rate, on the thread that runs the kernel. The size that
// comes back fresh is kernels.fresh_tensor_bytes, or `largest` (the largest tensor the pass
// allocates and frees, 0 when not known) where that is smaller: glibc's dynamic mmap threshold
// rises to the largest block freed and its trim threshold to twice that, so a pass that frees two
// of its largest tensors together hands their pages back and faults them in again next time.
// 0 below that size, without a measured rate, or on a device whose allocator caches its memory
// (a GPU). docs/time.md, "Measured".
[[nodiscard]] Seconds fresh_tensor_time(double bytes, double count, const ClusterProfile& c,
                                        double largest = 0.0) noexcept;

[[nodiscard]] const KernelCostModel& default_kernel_cost_model() noexcept;
// The backend a cluster is priced with: measured when its device has a GEMM table, else
// analytic.
[[nodiscard]] const KernelCostModel& kernel_cost_model_for(const ClusterProfile& c) noexcept;

// The share of the device a GEMM's output tiles keep busy: m n / (waves x units x tile), the
// best of the class's tile and its transpose; 1 without a unit count.
[[nodiscard]] double wave_efficiency(double m, double n, const KernelCosts& k,
                                     double batch = 1.0) noexcept;

// The attention table's share of the 16-bit peak at head dim `d` and sequence `seq`: the nearest
// head dim, linear in log2(seq) between the table's points, clamped at its ends; 0 when the
// table is absent.
[[nodiscard]] double attention_efficiency(const AttentionTable& t, double d, double seq,
                                          bool backward) noexcept;

}  // namespace tb
