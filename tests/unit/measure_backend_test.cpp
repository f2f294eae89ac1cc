// GEMM backends: every installed library agrees with the naive reference, a missing one is
// skipped with its reason, and verification catches a wrong or unwritten result.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "measure/kernels.hpp"
#include "trainbudget/measure/cpu_info.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

constexpr GemmShape kSmall{33, 17, 65};

const CpuInfo& cpu() {
  static const CpuInfo info = read_cpu_info();
  return info;
}

TEST(GemmBackend, NaiveAgreesWithTheDoubleReferenceForEveryDtype) {
  auto naive = make_naive_backend();
  for (const DType d : {DType::kFp64, DType::kFp32, DType::kBf16, DType::kFp16}) {
    const Verification v = verify(*naive, d, kSmall);
    EXPECT_TRUE(v.passed) << enum_name(d) << " error " << v.max_error << " bound " << v.bound;
    EXPECT_LE(v.max_error, v.bound);
  }
  EXPECT_FALSE(naive->supports(DType::kTf32));
  EXPECT_TRUE(naive->too_large({1024, 1024, 1024}).has_value());
  EXPECT_FALSE(naive->too_large({512, 512, 512}).has_value());
}

// Runs `check` in a forked child and returns what it reports ("" when all is well). oneDNN and
// BLIS start OpenMP worker threads that live until the process ends, and LeakSanitizer (the asan
// preset) crashes at exit scanning the dynamic TLS of threads started inside dlopen'd libraries
// ("Tracer caught signal 11" after "DTLS ... at 0x0001..."); in a child that ends with _exit the
// leak check never runs, and the test process itself stays free of those threads.
std::string in_child(const std::function<std::string()>& check) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    close(fds[0]);
    const std::string report = check();
    std::size_t written = 0;
    while (written < report.size()) {
      const ssize_t n = write(fds[1], report.data() + written, report.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = read(fds[0], buffer.data(), buffer.size())) > 0;) {
    report.append(buffer.data(), static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) report += "the child process crashed\n";
  return report;
}

// The installed libraries, each on every dtype it claims, must agree with the reference. They
// are in .ci/install-deps, so one that does not load here is a failure, with dlopen's reason.
TEST(GemmBackend, InstalledLibrariesAgreeWithTheReference) {
  const std::string problems = in_child([] {
    std::string out;
    int checked = 0;
    for (const char* name : {"openblas", "onednn", "blis"}) {
      auto backend = make_backend(name, cpu());
      const BackendInfo& info = backend->info();
      if (info.status != Status::kOk) {
        out +=
            fmt::format("{} not usable here: {} (install .ci/install-deps)\n", name, info.reason);
        continue;
      }
      if (info.version.empty() || info.kernel.empty() || info.threads < 1) {
        out += fmt::format("{}: version '{}', kernel '{}', threads {}\n", name, info.version,
                           info.kernel, info.threads);
      }
      for (const DType d : {DType::kFp64, DType::kFp32, DType::kBf16}) {
        if (!backend->supports(d)) continue;
        const Verification v = verify(*backend, d, kSmall);
        if (!v.passed) {
          out +=
              fmt::format("{} {}: error {} > bound {}\n", name, enum_name(d), v.max_error, v.bound);
        }
        ++checked;
      }
    }
    // OpenBLAS and BLIS: fp64 and fp32; oneDNN: fp32 (and bf16 on AVX-512).
    if (checked < 5) out += fmt::format("only {} (backend, dtype) pairs checked\n", checked);
    return out;
  });
  EXPECT_EQ(problems, "");
}

TEST(GemmBackend, MissingLibraryIsSkippedWithTheReasonNeverACrash) {
  for (const char* name : {"openblas", "onednn", "blis"}) {
    auto backend = make_backend(name, cpu(), "/nonexistent/libnothing.so.9");
    EXPECT_EQ(backend->info().status, Status::kSkipped) << name;
    EXPECT_NE(backend->info().reason.find("cannot load /nonexistent/libnothing.so.9"),
              std::string::npos)
        << backend->info().reason;
    EXPECT_FALSE(backend->supports(DType::kFp32));
    GemmOperands operands(DType::kFp32, kSmall, 1);
    EXPECT_THROW((void)backend->prepare(operands), Error);
  }
}

TEST(GemmBackend, WrongLibraryIsSkippedAsNotThatLibrary) {
  auto backend = make_backend("openblas", cpu(), "libm.so.6");
  EXPECT_EQ(backend->info().status, Status::kSkipped);
  EXPECT_NE(backend->info().reason.find("not OpenBLAS"), std::string::npos)
      << backend->info().reason;
}

TEST(GemmBackend, UnknownNameIsAnErrorNamingTheFlag) {
  try {
    (void)make_backend("nope", cpu());
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("backend: unknown backend 'nope'"), std::string::npos);
  }
}

// A backend that computes the right product and then spoils it, to prove verification bites.
class SpoilingBackend final : public GemmBackend {
 public:
  enum class Fault { kOneElement, kNothingWritten };
  explicit SpoilingBackend(Fault fault) : fault_(fault) {
    info_.name = "spoiling";
    info_.status = Status::kOk;
  }
  [[nodiscard]] const BackendInfo& info() const override { return info_; }
  [[nodiscard]] std::optional<std::string> unsupported(DType) const override {
    return std::nullopt;
  }
  [[nodiscard]] std::unique_ptr<GemmKernel> prepare(GemmOperands& operands) override {
    class Kernel final : public GemmKernel {
     public:
      Kernel(GemmOperands& o, Fault f) : o_(o), f_(f) {}
      void run() override {
        if (f_ == Fault::kNothingWritten) return;
        auto naive = make_naive_backend();
        naive->prepare(o_)->run();
        float* c = static_cast<float*>(o_.c());
        c[5] *= 1.001F;  // 1e-3 relative: far above the fp32 bound
      }

     private:
      GemmOperands& o_;
      Fault f_;
    };
    return std::make_unique<Kernel>(operands, fault_);
  }

 private:
  BackendInfo info_;
  Fault fault_;
};

TEST(GemmBackend, VerificationCatchesAWrongElement) {
  SpoilingBackend backend(SpoilingBackend::Fault::kOneElement);
  const Verification v = verify(backend, DType::kFp32, kSmall);
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.max_error, v.bound);
}

TEST(GemmBackend, VerificationCatchesAnUnwrittenResult) {
  SpoilingBackend backend(SpoilingBackend::Fault::kNothingWritten);
  const Verification v = verify(backend, DType::kFp32, kSmall);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(std::isinf(v.max_error));
}

TEST(GemmBackend, ErrorBoundIsTwiceKPlusOneUnitRoundoffs) {
  EXPECT_DOUBLE_EQ(relative_error_bound(DType::kFp32, 129), 2.0 * 130 * std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(relative_error_bound(DType::kBf16, 129), 2.0 * 130 * std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(relative_error_bound(DType::kFp64, 129), 2.0 * 130 * std::ldexp(1.0, -53));
  EXPECT_DOUBLE_EQ(relative_error_bound(DType::kTf32, 129),
                   2.0 * 130 * std::ldexp(1.0, -24) + std::ldexp(1.0, -10));
}

TEST(GemmOperands, RandomNonZeroInRangeRepresentableAndReproducible) {
  const GemmShape shape{8, 16, 32};
  GemmOperands a(DType::kBf16, shape, 7);
  GemmOperands b(DType::kBf16, shape, 7);
  GemmOperands other(DType::kBf16, shape, 8);
  std::set<double> distinct;
  bool differs = false;
  for (std::int64_t i = 0; i < shape.m; ++i) {
    for (std::int64_t p = 0; p < shape.k; ++p) {
      const double v = a.a_at(i, p);
      EXPECT_NE(v, 0.0);
      EXPECT_GE(v, -1.0);
      EXPECT_LE(v, 1.0);  // bf16 rounding can reach the ends
      // Exactly a bfloat16: the conversion round-trips.
      const auto f = static_cast<float>(v);
      EXPECT_EQ(detail::from_bf16(detail::to_bf16(f)), f);
      EXPECT_EQ(v, b.a_at(i, p));
      differs = differs || v != other.a_at(i, p);
      distinct.insert(v);
    }
  }
  EXPECT_TRUE(differs);
  EXPECT_GT(distinct.size(), 100U);
  EXPECT_TRUE(std::isnan(a.c_at(0, 0)));
}

TEST(Conversions, Bf16AndFp16KnownBitPatterns) {
  EXPECT_EQ(detail::to_bf16(1.0F), 0x3F80);
  EXPECT_EQ(detail::to_bf16(-2.0F), 0xC000);
  // 1 + 2^-8 is halfway between two bf16 values: ties to even (down to 1.0).
  EXPECT_EQ(detail::to_bf16(1.0F + 0x1p-8F), 0x3F80);
  EXPECT_EQ(detail::to_bf16(1.0F + 0x1p-8F + 0x1p-16F), 0x3F81);
  EXPECT_EQ(detail::from_bf16(0x3F80), 1.0F);
  EXPECT_EQ(detail::to_fp16_exact(0.5F), 0x3800);
  EXPECT_EQ(detail::to_fp16_exact(-0x1p-11F), 0x9000);
  EXPECT_EQ(detail::from_fp16(0x3C00), 1.0F);
  EXPECT_EQ(detail::from_fp16(0x0001), 0x1p-24F);
}

TEST(OpenBlasKernel, ForcedHaswellOnAnAvx512CpuIsAWarningWithTheRemedy) {
  CpuInfo avx512;
  avx512.flags = {"avx", "avx2", "fma", "avx512f"};
  const auto w = openblas_downgrade_warning("Haswell", avx512, "Haswell");
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("OPENBLAS_CORETYPE=Haswell"), std::string::npos) << *w;
  EXPECT_NE(w->find("unset"), std::string::npos) << *w;
  EXPECT_FALSE(openblas_downgrade_warning("SkylakeX", avx512, nullptr).has_value());
  EXPECT_FALSE(openblas_downgrade_warning("Cooperlake", avx512, "Cooperlake").has_value());
  EXPECT_FALSE(openblas_downgrade_warning("SomethingNew", avx512, nullptr).has_value());
  CpuInfo avx2;
  avx2.flags = {"avx", "avx2", "fma"};
  EXPECT_FALSE(openblas_downgrade_warning("Haswell", avx2, "Haswell").has_value());
  // Not forced, but still older than the CPU: says the library does not know it.
  const auto unforced = openblas_downgrade_warning("Zen", avx512, nullptr);
  ASSERT_TRUE(unforced.has_value());
  EXPECT_NE(unforced->find("newer OpenBLAS"), std::string::npos) << *unforced;
}

}  // namespace
}  // namespace tb::measure
