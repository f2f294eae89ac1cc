// BLIS through dlopen (its CBLAS layer), with the sub-configuration it picked for this CPU
// (bli_arch_query_id) and its thread count, which BLIS sets to 1 unless told otherwise.
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cblas_abi.hpp"
#include "dynamic_library.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

// Debian's BLIS: 32-bit BLAS integers (BLIS_BLAS_INT_TYPE_SIZE 32), 64-bit dim_t/arch_t ints; the
// CBLAS calls follow cblas_abi.hpp.
using cblas::DgemmFn;
using cblas::kNoTrans;
using cblas::kRowMajor;
using cblas::SgemmFn;
using VersionFn = char* (*)();
using ArchIdFn = int (*)();
using ArchStringFn = const char* (*)(int);
using SetThreadsFn = void (*)(std::int64_t);
using GetThreadsFn = std::int64_t (*)();

class BlisKernel final : public GemmKernel {
 public:
  BlisKernel(GemmOperands& o, DgemmFn d, SgemmFn s) : o_(o), dgemm_(d), sgemm_(s) {}
  void run() override {
    const auto m = static_cast<int>(o_.shape().m);
    const auto n = static_cast<int>(o_.shape().n);
    const auto k = static_cast<int>(o_.shape().k);
    if (o_.dtype() == DType::kFp64) {
      dgemm_(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0, static_cast<const double*>(o_.a()), k,
             static_cast<const double*>(o_.b()), n, 0.0, static_cast<double*>(o_.c()), n);
    } else {
      sgemm_(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0F, static_cast<const float*>(o_.a()), k,
             static_cast<const float*>(o_.b()), n, 0.0F, static_cast<float*>(o_.c()), n);
    }
  }

 private:
  GemmOperands& o_;
  DgemmFn dgemm_;
  SgemmFn sgemm_;
};

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

class BlisBackend final : public GemmBackend {
 public:
  BlisBackend(const std::string& library, const CpuInfo& cpu) : lib_(library) {
    info_.name = "blis";
    // Debian's BLIS 0.9 aborts the whole process (bli_arch.c, "Accessed uninitialized context in
    // gks") on the first call when BLIS_ARCH_TYPE names a configuration it was not built with,
    // and no value worked here: leave BLIS alone rather than be killed by it.
    if (env_set("BLIS_ARCH_TYPE")) {
      info_.status = Status::kSkipped;
      info_.reason =
          "BLIS_ARCH_TYPE is set, and a BLIS built without arch-type support aborts the process on "
          "it; unset BLIS_ARCH_TYPE to measure BLIS";
      return;
    }
    if (!lib_.ok()) {
      info_.status = Status::kSkipped;
      info_.reason = fmt::format("cannot load {}: {}", library, lib_.error());
      return;
    }
    dgemm_ = lib_.function<DgemmFn>("cblas_dgemm");
    sgemm_ = lib_.function<SgemmFn>("cblas_sgemm");
    const auto version = lib_.function<VersionFn>("bli_info_get_version_str");
    const auto arch_id = lib_.function<ArchIdFn>("bli_arch_query_id");
    const auto arch_string = lib_.function<ArchStringFn>("bli_arch_string");
    const auto set_threads = lib_.function<SetThreadsFn>("bli_thread_set_num_threads");
    const auto get_threads = lib_.function<GetThreadsFn>("bli_thread_get_num_threads");
    if (dgemm_ == nullptr || sgemm_ == nullptr || version == nullptr) {
      info_.status = Status::kSkipped;
      info_.reason = fmt::format(
          "{} has no cblas_dgemm/cblas_sgemm/bli_info_get_version_str: not BLIS with CBLAS",
          library);
      return;
    }
    info_.status = Status::kOk;
    info_.library = lib_.path_of("bli_info_get_version_str");
    const char* v = version();
    info_.version = v != nullptr ? v : "";
    if (arch_id != nullptr && arch_string != nullptr) {
      const char* arch = arch_string(arch_id());
      info_.kernel = arch != nullptr ? arch : "";
    }
    // BLIS runs single-threaded unless BLIS_NUM_THREADS or OMP_NUM_THREADS says otherwise; a
    // user's setting wins, else one thread per physical core, as OpenBLAS and oneDNN do.
    if (set_threads != nullptr && !env_set("BLIS_NUM_THREADS") && !env_set("OMP_NUM_THREADS") &&
        cpu.physical_cores > 0) {
      set_threads(cpu.physical_cores);
    }
    if (get_threads != nullptr) info_.threads = static_cast<int>(get_threads());
    if (info_.kernel == "generic") {
      info_.warnings.push_back(
          fmt::format("BLIS {} runs its generic (unoptimised) kernels: it has no "
                      "sub-configuration for this CPU; a newer BLIS (or AMD's AOCL-BLIS) may",
                      info_.version));
    } else if (cpu.has("avx512f") &&
               (info_.kernel == "haswell" || info_.kernel.starts_with("zen"))) {
      info_.warnings.push_back(
          fmt::format("BLIS runs its {} (AVX2) kernels on an AVX-512 CPU: BLIS {} has no AVX-512 "
                      "configuration it selects here{}",
                      info_.kernel, info_.version,
                      env_set("BLIS_ARCH_TYPE") ? " (BLIS_ARCH_TYPE is set)" : ""));
    }
  }

  [[nodiscard]] const BackendInfo& info() const override { return info_; }

  [[nodiscard]] std::optional<std::string> unsupported(DType dtype) const override {
    if (info_.status != Status::kOk) return info_.reason;
    if (dtype == DType::kFp64 || dtype == DType::kFp32) return std::nullopt;
    return fmt::format("BLIS's CBLAS layer has no {} GEMM", enum_name(dtype));
  }

  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    if (auto why = unsupported(operands.dtype())) throw Error(fmt::format("blis: {}", *why));
    return std::make_unique<BlisKernel>(operands, dgemm_, sgemm_);
  }

 private:
  detail::DynamicLibrary lib_;
  BackendInfo info_;
  DgemmFn dgemm_{nullptr};
  SgemmFn sgemm_{nullptr};
};

}  // namespace

std::unique_ptr<GemmBackend> make_blis_backend(const std::string& library, const CpuInfo& cpu) {
  return std::make_unique<BlisBackend>(library, cpu);
}

}  // namespace tb::measure
