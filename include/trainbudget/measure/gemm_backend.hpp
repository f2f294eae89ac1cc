// GEMM backends behind one interface: OpenBLAS, BLIS and oneDNN (each loaded with dlopen), our
// naive reference, and cuBLAS when built with CUDA. A backend that cannot run says so in its
// BackendInfo (skipped or failed, with the reason); it never throws or crashes the process.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

// Element types per dtype, row-major, C = A * B:
//   fp64: double x double -> double      fp32, tf32: float x float -> float
//   bf16: bfloat16 bits (uint16_t) x bf16 -> float (fp32 accumulation, as training uses)
//   fp16: binary16 bits (uint16_t) x fp16 -> float
// A and B hold uniform random values in [-1, 1] from a fixed seed, already representable in the
// input type, so the reference sees exactly what the backend sees. C starts as NaN: a backend
// that does not write it fails verification.
class GemmOperands {
 public:
  GemmOperands(DType dtype, GemmShape shape, std::uint64_t seed);

  [[nodiscard]] DType dtype() const { return dtype_; }
  [[nodiscard]] const GemmShape& shape() const { return shape_; }
  [[nodiscard]] const void* a() const { return a_.data(); }
  [[nodiscard]] const void* b() const { return b_.data(); }
  [[nodiscard]] void* c() { return c_.data(); }
  [[nodiscard]] std::size_t a_bytes() const { return a_.size(); }
  [[nodiscard]] std::size_t b_bytes() const { return b_.size(); }
  [[nodiscard]] std::size_t c_bytes() const { return c_.size(); }

  // Element (row, col) of A, B or C as double.
  [[nodiscard]] double a_at(std::int64_t row, std::int64_t col) const;
  [[nodiscard]] double b_at(std::int64_t row, std::int64_t col) const;
  [[nodiscard]] double c_at(std::int64_t row, std::int64_t col) const;
  void fill_c_with_nan();

 private:
  DType dtype_;
  GemmShape shape_;
  std::vector<std::byte> a_;
  std::vector<std::byte> b_;
  std::vector<std::byte> c_;
};

// Bytes of one input element and of one output element of `dtype` (see GemmOperands).
[[nodiscard]] std::size_t input_bytes(DType dtype);
[[nodiscard]] std::size_t output_bytes(DType dtype);

// One prepared problem: plans, primitives and device buffers are made before timing starts.
class GemmKernel {
 public:
  virtual ~GemmKernel() = default;
  // One C = A * B, finished when it returns (GPU backends synchronise).
  virtual void run() = 0;
  // `calls` products back to back, finished when it returns; a GPU backend queues them all and
  // synchronises once, so a sample does not time a round trip per call.
  virtual void run_many(int calls) {
    for (int i = 0; i < calls; ++i) run();
  }
  // Results back into the operands' C (GPU backends copy; CPU backends write it directly).
  virtual void fetch() {}
  // The implementation the library picked for this problem, when it says ("brg:avx512_core").
  [[nodiscard]] virtual std::string implementation() const { return {}; }
};

class GemmBackend {
 public:
  virtual ~GemmBackend() = default;
  [[nodiscard]] virtual const BackendInfo& info() const = 0;
  [[nodiscard]] const std::string& name() const { return info().name; }
  [[nodiscard]] const std::string& version() const { return info().version; }
  [[nodiscard]] const std::string& kernel() const { return info().kernel; }
  [[nodiscard]] int threads() const { return info().threads; }
  // nullopt when `dtype` runs here; otherwise why not.
  [[nodiscard]] virtual std::optional<std::string> unsupported(DType dtype) const = 0;
  [[nodiscard]] bool supports(DType dtype) const { return !unsupported(dtype).has_value(); }
  // nullopt when this backend is worth timing at `shape` (the naive one is not, past a size).
  [[nodiscard]] virtual std::optional<std::string> too_large(const GemmShape&) const {
    return std::nullopt;
  }
  // Only called when info().status is ok and supports(operands.dtype()). Throws tb::Error when
  // the library refuses the problem; the runner records that as a failed run.
  [[nodiscard]] virtual std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) = 0;
  // True when it computes on a GPU (its rates then describe that GPU, not the CPU).
  [[nodiscard]] virtual bool on_gpu() const { return info().gpu; }
  // GPU backends: device-to-device copy bandwidth (bytes read + written per second).
  [[nodiscard]] virtual std::optional<BandwidthRun> device_bandwidth(int /*repetitions*/) {
    return std::nullopt;
  }
};

// The backends this build knows, in report order: openblas, onednn, blis, naive, cublas.
[[nodiscard]] std::vector<std::string> backend_names();
// Those `--backend` defaults to: the optimised libraries (not the naive reference), cuBLAS only
// when built with CUDA.
[[nodiscard]] std::vector<std::string> default_backend_names();

// Any name from backend_names(); `library` overrides the soname to dlopen (tests use a missing
// path to check the skipped state). Throws InvalidArgument naming --backend for an unknown name.
[[nodiscard]] std::unique_ptr<GemmBackend> make_backend(std::string_view name, const CpuInfo& cpu,
                                                        const std::string& library = {});

// Individual factories (the library argument is the soname or path to dlopen).
[[nodiscard]] std::unique_ptr<GemmBackend> make_openblas_backend(const std::string& library,
                                                                 const CpuInfo& cpu);
[[nodiscard]] std::unique_ptr<GemmBackend> make_blis_backend(const std::string& library,
                                                             const CpuInfo& cpu);
[[nodiscard]] std::unique_ptr<GemmBackend> make_onednn_backend(const std::string& library);
[[nodiscard]] std::unique_ptr<GemmBackend> make_naive_backend();
[[nodiscard]] std::unique_ptr<GemmBackend> make_cublas_backend();

// A warning when OpenBLAS runs a kernel older than the CPU supports, e.g. "Haswell" (AVX2) on
// an AVX-512 CPU, saying what forced it (`coretype_env`, the value of OPENBLAS_CORETYPE, or
// null) and what the user can do. nullopt when the kernel matches the CPU or is unknown.
[[nodiscard]] std::optional<std::string> openblas_downgrade_warning(std::string_view corename,
                                                                    const CpuInfo& cpu,
                                                                    const char* coretype_env);

// Runs `backend` on a small problem and compares with the naive reference in double precision:
// error = max over C of |c - ref| / sum_k |a_ik||b_kj|, bound = relative_error_bound().
[[nodiscard]] Verification verify(GemmBackend& backend, DType dtype, GemmShape shape);

// The verification bound per dtype: 2 (k + 1) u for the accumulation's unit roundoff u
// (2^-53 fp64; 2^-24 fp32, bf16 and fp16 with fp32 accumulation), plus 2^-10 for tf32's rounded
// inputs. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., §3.1 (inner products):
// |fl(x.y) - x.y| <= gamma_k |x|.|y| with gamma_k = k u / (1 - k u).
[[nodiscard]] double relative_error_bound(DType dtype, std::int64_t k);

}  // namespace tb::measure
