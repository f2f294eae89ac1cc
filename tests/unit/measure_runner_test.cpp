// The measurement loop on tiny problems, the option parsers, and STREAM on a small array.
#include <gtest/gtest.h>

#include "trainbudget/measure/bandwidth.hpp"
#include "trainbudget/measure/runner.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

TEST(MeasureOptions, BackendListAcceptsNamesAndAllRejectsOthers) {
  EXPECT_EQ(parse_backend_list("blis,openblas,blis"),
            (std::vector<std::string>{"blis", "openblas"}));
  EXPECT_EQ(parse_backend_list("all").size(), 5U);
  EXPECT_EQ(error_of([] { (void)parse_backend_list("nope"); }),
            "backend: unknown backend 'nope'; accepted: openblas|onednn|blis|naive|cublas|all");
}

TEST(MeasureOptions, DtypeListAcceptsMeasurableDtypesOnly) {
  EXPECT_EQ(parse_dtype_list("bf16,fp32"), (std::vector<DType>{DType::kBf16, DType::kFp32}));
  EXPECT_EQ(parse_dtype_list("all").size(), 5U);
  EXPECT_EQ(error_of([] { (void)parse_dtype_list("fp7"); }),
            "dtype: unknown dtype 'fp7'; accepted: fp64|fp32|tf32|bf16|fp16|all");
  EXPECT_NE(error_of([] { (void)parse_dtype_list("fp8"); }).find("dtype: unknown dtype 'fp8'"),
            std::string::npos);
}

TEST(MeasureOptions, SizesAreSquaresOrMxNxK) {
  const std::vector<ShapeSpec> s = parse_sizes("64,2x3x4");
  ASSERT_EQ(s.size(), 2U);
  EXPECT_EQ(s[0].shape, (GemmShape{64, 64, 64}));
  EXPECT_EQ(s[1].shape, (GemmShape{2, 3, 4}));
  EXPECT_DOUBLE_EQ(s[1].shape.flops().value(), 2.0 * 2 * 3 * 4);
  for (const char* bad : {"0", "-4", "1x2", "65537", "abc", "2x3x", "2 x3x4"}) {
    EXPECT_NE(error_of([bad] { (void)parse_sizes(bad); }).find("sizes: '"), std::string::npos)
        << bad;
  }
  for (const char* bad : {"", "64,,128", "64, ,128", "64,"}) {
    EXPECT_EQ(error_of([bad] { (void)parse_sizes(bad); }).rfind("sizes: empty entry in '", 0), 0U)
        << bad;
  }
}

TEST(MeasureOptions, ListsAllowSpacesAroundEntries) {
  const std::vector<ShapeSpec> s = parse_sizes(" 64 , 2x3x4");
  ASSERT_EQ(s.size(), 2U);
  EXPECT_EQ(s[1].shape, (GemmShape{2, 3, 4}));
  EXPECT_EQ(parse_dtype_list("bf16, fp32"), (std::vector<DType>{DType::kBf16, DType::kFp32}));
  EXPECT_EQ(parse_backend_list("blis, openblas"), (std::vector<std::string>{"blis", "openblas"}));
  EXPECT_EQ(error_of([] { (void)parse_backend_list("blis,"); }).rfind("backend: empty entry", 0),
            0U);
}

TEST(MeasureOptions, RepetitionsAreWholeNumbersFrom1To1000) {
  EXPECT_EQ(parse_repetitions("7"), 7);
  for (const char* bad : {"0", "2.5", "1001", "x"}) {
    EXPECT_NE(error_of([bad] { (void)parse_repetitions(bad); }).find("repetitions"),
              std::string::npos)
        << bad;
  }
}

TEST(MeasureRunner, TinyNaiveRunKeepsEverySampleAndItsVerification) {
  MeasureOptions o;
  o.backends = {"naive"};
  o.dtypes = {DType::kFp32, DType::kTf32};
  o.shapes = parse_sizes("32");
  o.repetitions = 3;
  o.warmups = 1;
  o.bandwidth = false;
  std::vector<std::string> progress;
  o.progress = [&](std::string_view line) { progress.emplace_back(line); };
  const Measurement m = run_measurement(o);

  ASSERT_EQ(m.context.backends.size(), 1U);
  EXPECT_EQ(m.context.backends[0].status, Status::kOk);
  ASSERT_EQ(m.gemm.size(), 2U);
  // fp32 ran; tf32 was asked for explicitly and the naive backend has no tf32: skipped, with why.
  const GemmRun& run = m.gemm[0];
  EXPECT_EQ(m.gemm[1].status, Status::kSkipped);
  EXPECT_EQ(m.gemm[1].dtype, DType::kTf32);
  EXPECT_NE(m.gemm[1].reason.find("no tf32"), std::string::npos);
  EXPECT_EQ(run.status, Status::kOk);
  EXPECT_EQ(run.samples_seconds.size(), 3U);
  EXPECT_EQ(run.stats.count, 3U);
  EXPECT_LE(run.stats.min, run.stats.median);
  EXPECT_LE(run.stats.median, run.stats.max);
  EXPECT_DOUBLE_EQ(run.median_rate.value(), 2.0 * 32 * 32 * 32 / run.stats.median);
  ASSERT_TRUE(run.verification.has_value());
  EXPECT_TRUE(run.verification->passed);
  EXPECT_EQ(m.best(DType::kFp32), &run);
  EXPECT_EQ(m.best(DType::kBf16), nullptr);
  ASSERT_EQ(progress.size(), 1U);
  EXPECT_EQ(progress[0].rfind("[1/1] naive fp32 32x32x32: ", 0), 0U) << progress[0];
  EXPECT_FALSE(m.any_failed());
  EXPECT_FALSE(m.context.host.empty());
  EXPECT_EQ(m.context.date.size(), 20U);  // 2026-01-01T00:00:00Z
}

TEST(MeasureRunner, MissingLibraryLeavesASkippedBackendAndNoRuns) {
  MeasureOptions o;
  o.backends = {"openblas"};
  o.libraries = {{"openblas", "/nonexistent/libopenblas.so.0"}};
  o.shapes = parse_sizes("16");
  o.bandwidth = false;
  const Measurement m = run_measurement(o);
  ASSERT_EQ(m.context.backends.size(), 1U);
  EXPECT_EQ(m.context.backends[0].status, Status::kSkipped);
  EXPECT_TRUE(m.gemm.empty());
  EXPECT_FALSE(m.any_failed());
}

TEST(MeasureRunner, QuickShapesLeaveFp64OutOfTheLargeSize) {
  for (const ShapeSpec& s : default_shapes(true)) {
    const bool fp64 = s.dtypes.empty() ||
                      std::find(s.dtypes.begin(), s.dtypes.end(), DType::kFp64) != s.dtypes.end();
    EXPECT_EQ(fp64, s.shape.m < 2048) << s.shape.m;
  }
  EXPECT_EQ(default_shapes(false).size(), 7U);
}

TEST(Stream, TriadMovesThreeArraysCopyTwo) {
  BandwidthOptions o;
  o.array_bytes = 1 << 20;
  o.threads = 2;
  o.warmups = 0;
  o.repetitions = 2;
  const std::vector<BandwidthRun> runs = measure_stream(o);
  ASSERT_EQ(runs.size(), 2U);
  const BandwidthRun& copy = runs[0];
  const BandwidthRun& triad = runs[1];
  EXPECT_EQ(copy.kernel, "copy");
  EXPECT_EQ(triad.kernel, "triad");
  EXPECT_DOUBLE_EQ(triad.array_bytes.value(), 1 << 20);
  EXPECT_DOUBLE_EQ(triad.bytes_per_pass.value(), 3.0 * (1 << 20));
  EXPECT_EQ(triad.samples_seconds.size(), 2U);
  EXPECT_DOUBLE_EQ(triad.median_rate.value(), triad.bytes_per_pass.value() / triad.stats.median);
  EXPECT_DOUBLE_EQ(copy.bytes_per_pass.value(), 2.0 * (1 << 20));
  EXPECT_EQ(copy.samples_seconds.size(), 2U);
}

// One thread writing a fresh mapping: the bytes of one array a pass, a sample per repetition
// (the warm-up dropped). How much slower than streaming it runs is the machine's (no timing is
// asserted here).
TEST(Stream, FirstTouchWritesOneFreshArrayAPass) {
  const BandwidthRun touch = measure_first_touch(32 << 20, 3);
  EXPECT_EQ(touch.kernel, "first touch");
  EXPECT_EQ(touch.threads, 1);
  EXPECT_DOUBLE_EQ(touch.bytes_per_pass.value(), 32 << 20);
  EXPECT_EQ(touch.samples_seconds.size(), 3U);
  EXPECT_DOUBLE_EQ(touch.median_rate.value(), touch.bytes_per_pass.value() / touch.stats.median);
  EXPECT_GT(touch.median_rate.value(), 0.0);
}

TEST(Stream, DefaultArraysAreFarBeyondTheCacheButBoundedByMemory) {
  EXPECT_GE(default_stream_array_bytes(64e9), 128U << 20);
  EXPECT_LE(default_stream_array_bytes(1e9), static_cast<std::size_t>(1e9 / 16));
}

}  // namespace
}  // namespace tb::measure
