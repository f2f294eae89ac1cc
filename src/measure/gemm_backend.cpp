// Operands, verification against the naive reference, the naive backend and the registry.
#include "trainbudget/measure/gemm_backend.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

std::size_t elements(std::int64_t rows, std::int64_t cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

template <class T>
T load(const std::vector<std::byte>& buffer, std::size_t index) {
  T value;
  std::memcpy(&value, buffer.data() + index * sizeof(T), sizeof(T));
  return value;
}

double element(const std::vector<std::byte>& buffer, std::size_t index, DType dtype, bool input) {
  switch (dtype) {
    case DType::kFp64:
      return load<double>(buffer, index);
    case DType::kBf16:
      return input ? static_cast<double>(detail::from_bf16(load<std::uint16_t>(buffer, index)))
                   : static_cast<double>(load<float>(buffer, index));
    case DType::kFp16:
      return input ? static_cast<double>(detail::from_fp16(load<std::uint16_t>(buffer, index)))
                   : static_cast<double>(load<float>(buffer, index));
    default:
      return static_cast<double>(load<float>(buffer, index));
  }
}

void fill(std::vector<std::byte>& buffer, DType dtype, detail::SplitMix64& rng) {
  const std::size_t n = buffer.size() / input_bytes(dtype);
  switch (dtype) {
    case DType::kFp64:
      detail::fill_uniform(reinterpret_cast<double*>(buffer.data()), n, rng);
      return;
    case DType::kBf16:
      detail::fill_uniform_bf16(reinterpret_cast<std::uint16_t*>(buffer.data()), n, rng);
      return;
    case DType::kFp16:
      detail::fill_uniform_fp16(reinterpret_cast<std::uint16_t*>(buffer.data()), n, rng);
      return;
    default:
      detail::fill_uniform(reinterpret_cast<float*>(buffer.data()), n, rng);
  }
}

// Our own i-k-j triple loop: the reference every library is checked against, and a backend of
// its own to show what a library is worth. Timed only on small problems.
class NaiveKernel final : public GemmKernel {
 public:
  explicit NaiveKernel(GemmOperands& o) : o_(o) {}
  void run() override {
    const GemmShape& s = o_.shape();
    switch (o_.dtype()) {
      case DType::kFp64:
        detail::naive_gemm(static_cast<const double*>(o_.a()), static_cast<const double*>(o_.b()),
                           static_cast<double*>(o_.c()), s.m, s.n, s.k);
        return;
      case DType::kBf16:
      case DType::kFp16:
        detail::naive_gemm_16(
            static_cast<const std::uint16_t*>(o_.a()), static_cast<const std::uint16_t*>(o_.b()),
            static_cast<float*>(o_.c()), s.m, s.n, s.k, o_.dtype() == DType::kFp16);
        return;
      default:
        detail::naive_gemm(static_cast<const float*>(o_.a()), static_cast<const float*>(o_.b()),
                           static_cast<float*>(o_.c()), s.m, s.n, s.k);
    }
  }
  [[nodiscard]] std::string implementation() const override { return "i-k-j loop"; }

 private:
  GemmOperands& o_;
};

class NaiveBackend final : public GemmBackend {
 public:
  NaiveBackend() {
    info_.name = "naive";
    info_.status = Status::kOk;
    info_.library = "built in";
    info_.version = "trainbudget";
    info_.kernel = "i-k-j loop, -O2, no explicit SIMD";
    info_.threads = 1;
  }
  [[nodiscard]] const BackendInfo& info() const override { return info_; }
  [[nodiscard]] std::optional<std::string> unsupported(DType dtype) const override {
    if (dtype == DType::kFp64 || dtype == DType::kFp32 || dtype == DType::kBf16 ||
        dtype == DType::kFp16) {
      return std::nullopt;
    }
    return fmt::format("the naive reference has no {} path", enum_name(dtype));
  }
  // 512^3 takes about a second at the ~0.3 GFLOP/s a scalar loop reaches.
  [[nodiscard]] std::optional<std::string> too_large(const GemmShape& s) const override {
    constexpr double kLimit = 512.0 * 512.0 * 512.0;
    if (static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= kLimit) {
      return std::nullopt;
    }
    return "the naive reference is timed only up to 512^3 multiply-adds";
  }
  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    return std::make_unique<NaiveKernel>(operands);
  }

 private:
  BackendInfo info_;
};

#ifndef TRAINBUDGET_HAVE_CUDA
// The build has no CUDA: the backend exists so that `--backend cublas` says why it is missing.
class UnbuiltBackend final : public GemmBackend {
 public:
  UnbuiltBackend(std::string name, std::string reason) {
    info_.name = std::move(name);
    info_.status = Status::kSkipped;
    info_.reason = std::move(reason);
  }
  [[nodiscard]] const BackendInfo& info() const override { return info_; }
  [[nodiscard]] std::optional<std::string> unsupported(DType) const override {
    return info_.reason;
  }
  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands&) override {
    throw Error(fmt::format("{}: {}", info_.name, info_.reason));
  }

 private:
  BackendInfo info_;
};
#endif

}  // namespace

std::size_t input_bytes(DType dtype) {
  switch (dtype) {
    case DType::kFp64:
      return 8;
    case DType::kBf16:
    case DType::kFp16:
      return 2;
    default:
      return 4;
  }
}

std::size_t output_bytes(DType dtype) { return dtype == DType::kFp64 ? 8 : 4; }

GemmOperands::GemmOperands(DType dtype, GemmShape shape, std::uint64_t seed)
    : dtype_(dtype),
      shape_(shape),
      a_(elements(shape.m, shape.k) * input_bytes(dtype)),
      b_(elements(shape.k, shape.n) * input_bytes(dtype)),
      c_(elements(shape.m, shape.n) * output_bytes(dtype)) {
  detail::SplitMix64 rng(seed);
  fill(a_, dtype, rng);
  fill(b_, dtype, rng);
  fill_c_with_nan();
}

double GemmOperands::a_at(std::int64_t row, std::int64_t col) const {
  return element(a_, static_cast<std::size_t>(row * shape_.k + col), dtype_, true);
}
double GemmOperands::b_at(std::int64_t row, std::int64_t col) const {
  return element(b_, static_cast<std::size_t>(row * shape_.n + col), dtype_, true);
}
double GemmOperands::c_at(std::int64_t row, std::int64_t col) const {
  return element(c_, static_cast<std::size_t>(row * shape_.n + col), dtype_, false);
}

void GemmOperands::fill_c_with_nan() {
  const std::size_t n = c_.size() / output_bytes(dtype_);
  if (dtype_ == DType::kFp64) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) std::memcpy(c_.data() + i * 8, &nan, 8);
  } else {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) std::memcpy(c_.data() + i * 4, &nan, 4);
  }
}

double relative_error_bound(DType dtype, std::int64_t k) {
  const double u = dtype == DType::kFp64 ? 0x1p-53 : 0x1p-24;
  double bound = 2.0 * static_cast<double>(k + 1) * u;
  // tf32 keeps 10 mantissa bits of each input: each product is off by up to ~2 x 2^-11.
  if (dtype == DType::kTf32) bound += 0x1p-10;
  return bound;
}

Verification verify(GemmBackend& backend, DType dtype, GemmShape shape) {
  GemmOperands operands(dtype, shape, 20240917);
  std::unique_ptr<GemmKernel> kernel = backend.prepare(operands);
  kernel->run();
  kernel->fetch();
  Verification v;
  v.shape = shape;
  v.bound = relative_error_bound(dtype, shape.k);
  double worst = 0.0;
  bool finite = true;
  for (std::int64_t i = 0; i < shape.m; ++i) {
    for (std::int64_t j = 0; j < shape.n; ++j) {
      double ref = 0.0;
      double scale = 0.0;
      for (std::int64_t p = 0; p < shape.k; ++p) {
        const double prod = operands.a_at(i, p) * operands.b_at(p, j);
        ref += prod;
        scale += std::fabs(prod);
      }
      const double got = operands.c_at(i, j);
      if (!std::isfinite(got)) finite = false;
      worst = std::max(worst, std::fabs(got - ref) / scale);
    }
  }
  v.max_error = finite ? worst : std::numeric_limits<double>::infinity();
  v.passed = finite && worst <= v.bound;
  return v;
}

std::vector<std::string> backend_names() {
  return {"openblas", "onednn", "blis", "naive", "cublas"};
}

std::vector<std::string> default_backend_names() {
#ifdef TRAINBUDGET_HAVE_CUDA
  return {"openblas", "onednn", "blis", "cublas"};
#else
  return {"openblas", "onednn", "blis"};
#endif
}

std::unique_ptr<GemmBackend> make_naive_backend() { return std::make_unique<NaiveBackend>(); }

#ifndef TRAINBUDGET_HAVE_CUDA
std::unique_ptr<GemmBackend> make_cublas_backend() {
  return std::make_unique<UnbuiltBackend>(
      "cublas", "built without CUDA (configure with -DTRAINBUDGET_WITH_CUDA=ON)");
}
#endif

std::unique_ptr<GemmBackend> make_backend(std::string_view name, const CpuInfo& cpu,
                                          const std::string& library) {
  if (name == "openblas") {
    return make_openblas_backend(library.empty() ? "libopenblas.so.0" : library, cpu);
  }
  if (name == "blis") return make_blis_backend(library.empty() ? "libblis.so.4" : library, cpu);
  if (name == "onednn") return make_onednn_backend(library.empty() ? "libdnnl.so.2" : library);
  if (name == "naive") return make_naive_backend();
  if (name == "cublas") return make_cublas_backend();
  throw InvalidRequest("backend", fmt::format("unknown backend '{}'", name),
                       fmt::format("{}|all", fmt::join(backend_names(), "|")));
}

}  // namespace tb::measure
