// cuBLAS backend checks (ctest label "gpu"): agreement with the naive reference on the GPU, a
// timed run, device bandwidth. Each test skips with the reason when the build has no CUDA or
// the machine no CUDA device (scripts/gpu-check.sh runs them where one is).
#include <gtest/gtest.h>

#include "trainbudget/measure/cpu_info.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/measure/runner.hpp"

namespace tb::measure {
namespace {

// The backend, or the reason to skip.
std::unique_ptr<GemmBackend> cublas_or_reason(std::string& reason) {
  auto backend = make_backend("cublas", CpuInfo{});
  if (backend->info().status != Status::kOk) {
    reason = backend->info().reason;
    return nullptr;
  }
  return backend;
}

TEST(CublasGpu, NoDeviceOrNoCudaIsASkipWithItsReasonNeverACrash) {
  auto backend = make_backend("cublas", CpuInfo{});
  EXPECT_EQ(backend->info().name, "cublas");
  EXPECT_TRUE(backend->info().gpu || backend->info().status != Status::kOk);
  if (backend->info().status != Status::kOk) {
    EXPECT_FALSE(backend->info().reason.empty());
    EXPECT_FALSE(backend->supports(DType::kBf16));
    GTEST_SKIP() << "cublas: " << backend->info().reason;
  }
  EXPECT_FALSE(backend->info().device_name.empty());
  EXPECT_GT(backend->info().device_memory.value(), 0.0);
}

TEST(CublasGpu, EveryDtypeAgreesWithTheReference) {
  std::string reason;
  auto backend = cublas_or_reason(reason);
  if (!backend) GTEST_SKIP() << "cublas: " << reason;
  for (const DType d : {DType::kFp64, DType::kFp32, DType::kTf32, DType::kBf16, DType::kFp16}) {
    ASSERT_TRUE(backend->supports(d)) << enum_name(d);
    const Verification v = verify(*backend, d, {67, 45, 129});
    EXPECT_TRUE(v.passed) << enum_name(d) << " error " << v.max_error << " bound " << v.bound;
  }
}

TEST(CublasGpu, TimedRunKeepsSamplesAndMeasuresDeviceBandwidth) {
  std::string reason;
  if (!cublas_or_reason(reason)) GTEST_SKIP() << "cublas: " << reason;
  MeasureOptions o;
  o.backends = {"cublas"};
  o.dtypes = {DType::kBf16};
  o.shapes = parse_sizes("1024");
  o.repetitions = 3;
  o.bandwidth = true;
  const Measurement m = run_measurement(o);
  ASSERT_EQ(m.gemm.size(), 1U);
  EXPECT_EQ(m.gemm[0].status, Status::kOk) << m.gemm[0].reason;
  EXPECT_EQ(m.gemm[0].samples_seconds.size(), 3U);
  EXPECT_GT(m.gemm[0].median_rate.value(), 0.0);
  bool device_copy = false;
  for (const BandwidthRun& r : m.bandwidth) device_copy = device_copy || r.backend == "cublas";
  EXPECT_TRUE(device_copy);
}

}  // namespace
}  // namespace tb::measure
