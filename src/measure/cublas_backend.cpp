// cuBLAS on the first CUDA device (built only with TRAINBUDGET_WITH_CUDA): cublasGemmEx for
// fp64, fp32 (no TF32), tf32, bf16 and fp16 with fp32 accumulation, and a device-to-device copy
// for memory bandwidth. Without a device it is "skipped: no CUDA device", never a crash.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>

#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/measure/statistics.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(fmt::format("cublas: {}: {}", what, cudaGetErrorString(status)));
  }
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw Error(fmt::format("cublas: {}: {}", what, cublasGetStatusString(status)));
  }
}

// Device memory that frees itself.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  [[nodiscard]] void* get() const { return ptr_; }

 private:
  void* ptr_{nullptr};
};

struct GemmTypes {
  cudaDataType_t input;
  cudaDataType_t output;
  cublasComputeType_t compute;
};

GemmTypes types_of(DType dtype) {
  switch (dtype) {
    case DType::kFp64:
      return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::kTf32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case DType::kBf16:
      return {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::kFp16:
      return {CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    default:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};  // fp32: no TF32
  }
}

class CublasKernel final : public GemmKernel {
 public:
  CublasKernel(cublasHandle_t handle, GemmOperands& o)
      : handle_(handle), o_(o), a_(o.a_bytes()), b_(o.b_bytes()), c_(o.c_bytes()) {
    check_cuda(cudaMemcpy(a_.get(), o.a(), o.a_bytes(), cudaMemcpyHostToDevice), "copy A");
    check_cuda(cudaMemcpy(b_.get(), o.b(), o.b_bytes(), cudaMemcpyHostToDevice), "copy B");
  }

  void run() override { run_many(1); }

  void run_many(int calls) override {
    for (int i = 0; i < calls; ++i) enqueue();
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  void fetch() override {
    check_cuda(cudaMemcpy(o_.c(), c_.get(), o_.c_bytes(), cudaMemcpyDeviceToHost), "copy C");
  }

  [[nodiscard]] std::string implementation() const override { return "cublasGemmEx"; }

 private:
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands, pass (n, m, k).
  void enqueue() {
    const GemmShape& s = o_.shape();
    const GemmTypes t = types_of(o_.dtype());
    const double one64 = 1.0;
    const double zero64 = 0.0;
    const float one32 = 1.0F;
    const float zero32 = 0.0F;
    const bool fp64 = o_.dtype() == DType::kFp64;
    const void* alpha = fp64 ? static_cast<const void*>(&one64) : &one32;
    const void* beta = fp64 ? static_cast<const void*>(&zero64) : &zero32;
    const auto m = static_cast<int>(s.m);
    const auto n = static_cast<int>(s.n);
    const auto k = static_cast<int>(s.k);
    check_cublas(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, b_.get(), t.input,
                              n, a_.get(), t.input, k, beta, c_.get(), t.output, n, t.compute,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  }

  cublasHandle_t handle_;
  GemmOperands& o_;
  DeviceBuffer a_;
  DeviceBuffer b_;
  DeviceBuffer c_;
};

class CublasBackend final : public GemmBackend {
 public:
  CublasBackend() {
    info_.name = "cublas";
    info_.gpu = true;
    info_.library = "libcublas (linked)";
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      info_.status = Status::kSkipped;
      info_.reason = status != cudaSuccess
                         ? fmt::format("no CUDA device ({})", cudaGetErrorString(status))
                         : std::string("no CUDA device");
      return;
    }
    cudaDeviceProp prop{};
    if (cudaSetDevice(0) != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
        cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) {
      info_.status = Status::kFailed;
      info_.reason = "cannot initialise CUDA device 0 and a cuBLAS handle";
      return;
    }
    info_.status = Status::kOk;
    info_.device_name = prop.name;
    info_.device_memory = Bytes{static_cast<double>(prop.totalGlobalMem)};
    int version = 0;
    cublasGetVersion(handle_, &version);
    // CUBLAS_VERSION = major * 10000 + minor * 100 + patch.
    info_.version = fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
    info_.kernel = fmt::format("{} (sm_{}{}, {} SMs){}", prop.name, prop.major, prop.minor,
                               prop.multiProcessorCount,
                               count > 1 ? fmt::format("; device 0 of {}", count) : "");
    info_.threads = 0;
  }
  ~CublasBackend() override {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  CublasBackend(const CublasBackend&) = delete;
  CublasBackend& operator=(const CublasBackend&) = delete;

  [[nodiscard]] const BackendInfo& info() const override { return info_; }

  [[nodiscard]] std::optional<std::string> unsupported(DType dtype) const override {
    if (info_.status != Status::kOk) return info_.reason;
    if (dtype == DType::kFp64 || dtype == DType::kFp32 || dtype == DType::kTf32 ||
        dtype == DType::kBf16 || dtype == DType::kFp16) {
      return std::nullopt;
    }
    return fmt::format("the cuBLAS backend has no {} path (fp8 needs cublasLt scaling)",
                       enum_name(dtype));
  }

  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    if (auto why = unsupported(operands.dtype())) throw Error(fmt::format("cublas: {}", *why));
    return std::make_unique<CublasKernel>(handle_, operands);
  }

  // cudaMemcpy device to device of 1 GiB: each byte is read once and written once.
  [[nodiscard]] std::optional<BandwidthRun> device_bandwidth(int repetitions) override {
    if (info_.status != Status::kOk) return std::nullopt;
    constexpr std::size_t kBytes = std::size_t{1} << 30;
    DeviceBuffer from(kBytes);
    DeviceBuffer to(kBytes);
    check_cuda(cudaMemset(from.get(), 1, kBytes), "cudaMemset");
    BandwidthRun run;
    run.kernel = "device copy";
    run.backend = info_.name;
    run.array_bytes = Bytes{static_cast<double>(kBytes)};
    run.bytes_per_pass = Bytes{2.0 * static_cast<double>(kBytes)};
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    for (int i = -1; i < std::max(1, repetitions); ++i) {  // i = -1: warm-up
      cudaEventRecord(start);
      check_cuda(cudaMemcpy(to.get(), from.get(), kBytes, cudaMemcpyDeviceToDevice),
                 "cudaMemcpy device to device");
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0.0F;
      cudaEventElapsedTime(&ms, start, stop);
      if (i >= 0) run.samples_seconds.push_back(static_cast<double>(ms) / 1e3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    run.stats = summarize(run.samples_seconds);
    run.median_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.median};
    run.best_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.min};
    return run;
  }

 private:
  BackendInfo info_;
  cublasHandle_t handle_{nullptr};
};

}  // namespace

std::unique_ptr<GemmBackend> make_cublas_backend() { return std::make_unique<CublasBackend>(); }

}  // namespace tb::measure
