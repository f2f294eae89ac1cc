// The GEMM shapes one micro-batch runs (kernel_time.hpp, step_gemm_shapes): the step's kernels
// walked with a backend that prices nothing and notes each shape, for the cuBLAS measurement.
#include <algorithm>
#include <vector>

#include "trainbudget/eval/kernel_time.hpp"

namespace tb {

namespace {

// A cost backend that prices nothing and notes every GEMM shape it is asked about.
class GemmRecorder final : public KernelCostModel {
 public:
  explicit GemmRecorder(std::vector<GemmDims>& shapes) : shapes_(shapes) {}
  Seconds gemm(const GemmShape& g, const ClusterProfile&) const noexcept override {
    const GemmDims d{g.m, g.n, g.k};
    if (g.m >= 1.0 && g.n >= 1.0 && g.k >= 1.0 &&
        std::find(shapes_.begin(), shapes_.end(), d) == shapes_.end()) {
      shapes_.push_back(d);
    }
    return Seconds{0.0};
  }
  Seconds attention(const AttentionShape&, bool, const ClusterProfile&) const noexcept override {
    return Seconds{0.0};
  }
  Seconds memory(Bytes, const ClusterProfile&) const noexcept override { return Seconds{0.0}; }

 private:
  std::vector<GemmDims>& shapes_;
};

}  // namespace

std::vector<GemmDims> step_gemm_shapes(const ModelProfile& profile, const Layout& layout) {
  std::vector<GemmDims> shapes;
  const GemmRecorder recorder(shapes);
  ClusterProfile c;
  c.rate = FlopsPerSecond{1.0};
  c.rate_16 = FlopsPerSecond{1.0};
  (void)micro_batch_kernels(profile, layout, c, recorder);
  return shapes;
}

}  // namespace tb
