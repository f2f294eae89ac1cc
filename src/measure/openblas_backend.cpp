// OpenBLAS through dlopen: cblas_dgemm/sgemm (and cblas_sbgemm where the build has it), with the
// kernel it picked (openblas_get_corename) and a warning when that kernel is older than the CPU.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "cblas_abi.hpp"
#include "dynamic_library.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

using cblas::DgemmFn;
using cblas::kNoTrans;
using cblas::kRowMajor;
using cblas::SgemmFn;
using SbgemmFn = void (*)(int, int, int, int, int, int, float, const std::uint16_t*, int,
                          const std::uint16_t*, int, float, float*, int);
using CharFn = char* (*)();
using IntFn = int (*)();

// The widest vector ISA each OpenBLAS x86-64 core type's fp32/fp64 kernels use (names as
// openblas_get_corename prints them; OpenBLAS driver/others/dynamic.c), as a level: 0 SSE,
// 1 AVX, 2 AVX2, 3 AVX-512. BF16 and AMX only change sbgemm, so they do not count here.
int kernel_level(std::string_view corename) {
  struct Entry {
    std::string_view name;
    int level;
  };
  constexpr std::array<Entry, 14> kLevels{{{"Prescott", 0},
                                           {"Core2", 0},
                                           {"Penryn", 0},
                                           {"Dunnington", 0},
                                           {"Nehalem", 0},
                                           {"Barcelona", 0},
                                           {"Bulldozer", 1},
                                           {"Sandybridge", 1},
                                           {"Haswell", 2},
                                           {"Zen", 2},
                                           {"SkylakeX", 3},
                                           {"Cooperlake", 3},
                                           {"SapphireRapids", 3},
                                           {"Excavator", 2}}};
  for (const Entry& e : kLevels) {
    if (e.name.size() == corename.size() &&
        std::equal(e.name.begin(), e.name.end(), corename.begin(),
                   [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return e.level;
    }
  }
  return -1;
}

int cpu_level(const CpuInfo& cpu) {
  if (cpu.has("avx512f")) return 3;
  if (cpu.has("avx2") && cpu.has("fma")) return 2;
  if (cpu.has("avx")) return 1;
  return 0;
}

constexpr std::array<std::string_view, 4> kLevelNames{"SSE", "AVX", "AVX2", "AVX-512"};

std::string cstr(CharFn fn) {
  if (fn == nullptr) return {};
  const char* s = fn();
  return s != nullptr ? std::string(s) : std::string{};
}

class OpenBlasKernel final : public GemmKernel {
 public:
  OpenBlasKernel(GemmOperands& o, DgemmFn d, SgemmFn s, SbgemmFn sb)
      : o_(o), dgemm_(d), sgemm_(s), sbgemm_(sb) {}
  void run() override {
    const auto m = static_cast<int>(o_.shape().m);
    const auto n = static_cast<int>(o_.shape().n);
    const auto k = static_cast<int>(o_.shape().k);
    switch (o_.dtype()) {
      case DType::kFp64:
        dgemm_(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0, static_cast<const double*>(o_.a()), k,
               static_cast<const double*>(o_.b()), n, 0.0, static_cast<double*>(o_.c()), n);
        return;
      case DType::kBf16:
        sbgemm_(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0F,
                static_cast<const std::uint16_t*>(o_.a()), k,
                static_cast<const std::uint16_t*>(o_.b()), n, 0.0F, static_cast<float*>(o_.c()), n);
        return;
      default:
        sgemm_(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0F, static_cast<const float*>(o_.a()), k,
               static_cast<const float*>(o_.b()), n, 0.0F, static_cast<float*>(o_.c()), n);
    }
  }

 private:
  GemmOperands& o_;
  DgemmFn dgemm_;
  SgemmFn sgemm_;
  SbgemmFn sbgemm_;
};

class OpenBlasBackend final : public GemmBackend {
 public:
  OpenBlasBackend(const std::string& library, const CpuInfo& cpu) : lib_(library) {
    info_.name = "openblas";
    if (!lib_.ok()) {
      info_.status = Status::kSkipped;
      info_.reason = fmt::format("cannot load {}: {}", library, lib_.error());
      return;
    }
    dgemm_ = lib_.function<DgemmFn>("cblas_dgemm");
    sgemm_ = lib_.function<SgemmFn>("cblas_sgemm");
    sbgemm_ = lib_.function<SbgemmFn>("cblas_sbgemm");
    const auto corename = lib_.function<CharFn>("openblas_get_corename");
    const auto config = lib_.function<CharFn>("openblas_get_config");
    const auto threads = lib_.function<IntFn>("openblas_get_num_threads");
    if (dgemm_ == nullptr || sgemm_ == nullptr || corename == nullptr) {
      info_.status = Status::kSkipped;
      info_.reason = fmt::format(
          "{} has no cblas_dgemm/cblas_sgemm/openblas_get_corename: not "
          "OpenBLAS",
          library);
      return;
    }
    info_.status = Status::kOk;
    info_.library = lib_.path_of("cblas_sgemm");
    info_.kernel = cstr(corename);
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64": the second word.
    const std::string conf = cstr(config);
    std::istringstream words(conf);
    std::string first;
    words >> first >> info_.version;
    if (info_.version.empty()) info_.version = conf;
    info_.threads = threads != nullptr ? threads() : 0;
    const char* env = std::getenv("OPENBLAS_CORETYPE");
    if (auto warning = openblas_downgrade_warning(info_.kernel, cpu, env)) {
      info_.warnings.push_back(*warning);
    }
  }

  [[nodiscard]] const BackendInfo& info() const override { return info_; }

  [[nodiscard]] std::optional<std::string> unsupported(DType dtype) const override {
    if (info_.status != Status::kOk) return info_.reason;
    if (dtype == DType::kFp64 || dtype == DType::kFp32) return std::nullopt;
    if (dtype == DType::kBf16) {
      if (sbgemm_ != nullptr) return std::nullopt;
      return "this OpenBLAS build has no cblas_sbgemm (built without BUILD_BFLOAT16)";
    }
    return fmt::format("OpenBLAS has no {} GEMM", enum_name(dtype));
  }

  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    if (auto why = unsupported(operands.dtype())) throw Error(fmt::format("openblas: {}", *why));
    return std::make_unique<OpenBlasKernel>(operands, dgemm_, sgemm_, sbgemm_);
  }

 private:
  detail::DynamicLibrary lib_;
  BackendInfo info_;
  DgemmFn dgemm_{nullptr};
  SgemmFn sgemm_{nullptr};
  SbgemmFn sbgemm_{nullptr};
};

}  // namespace

std::optional<std::string> openblas_downgrade_warning(std::string_view corename, const CpuInfo& cpu,
                                                      const char* coretype_env) {
  const int kernel = kernel_level(corename);
  const int available = cpu_level(cpu);
  if (kernel < 0 || kernel >= available) return std::nullopt;
  const auto kernel_isa = kLevelNames[static_cast<std::size_t>(kernel)];
  const auto cpu_isa = kLevelNames[static_cast<std::size_t>(available)];
  if (coretype_env != nullptr && *coretype_env != '\0') {
    return fmt::format(
        "OpenBLAS runs its {} kernel ({}) because OPENBLAS_CORETYPE={} is set, but this CPU has "
        "{}: unset it (e.g. `env -u OPENBLAS_CORETYPE trainbudget measure`) to let OpenBLAS "
        "choose",
        corename, kernel_isa, coretype_env, cpu_isa);
  }
  return fmt::format(
      "OpenBLAS runs its {} kernel ({}) although this CPU has {}: this OpenBLAS does not know "
      "the CPU; a newer OpenBLAS may choose a faster kernel",
      corename, kernel_isa, cpu_isa);
}

std::unique_ptr<GemmBackend> make_openblas_backend(const std::string& library, const CpuInfo& cpu) {
  return std::make_unique<OpenBlasBackend>(library, cpu);
}

}  // namespace tb::measure
