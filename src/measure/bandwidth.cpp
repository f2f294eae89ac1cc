// STREAM copy and triad with one std::thread per core; each thread first-touches and then
// streams its own slice, so pages sit on the node of the core that uses them.
#include "trainbudget/measure/bandwidth.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "kernels.hpp"
#include "trainbudget/measure/statistics.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;

std::size_t llc_bytes() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  std::size_t scale = 1;
  if (text.back() == 'K') scale = 1024;
  if (text.back() == 'M') scale = kMiB;
  if (scale != 1) text.pop_back();
  try {
    return static_cast<std::size_t>(std::stoull(text)) * scale;
  } catch (const std::exception&) {
    return 0;
  }
}

// Runs body(begin, end) on `threads` slices of [0, n) in parallel and waits.
void parallel(std::size_t n, int threads,
              const std::function<void(std::size_t, std::size_t)>& body) {
  const auto t = static_cast<std::size_t>(std::max(1, threads));
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (std::size_t i = 0; i < t; ++i) {
    const std::size_t begin = n * i / t;
    const std::size_t end = n * (i + 1) / t;
    pool.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

}  // namespace

std::size_t default_stream_array_bytes(double memory_total) {
  std::size_t llc = llc_bytes();
  if (llc == 0) llc = 32 * kMiB;
  std::size_t bytes = std::max<std::size_t>(4 * llc, 128 * kMiB);
  if (memory_total > 0.0) {
    bytes = std::min(bytes, static_cast<std::size_t>(memory_total / 16.0));
  }
  return bytes;
}

std::vector<BandwidthRun> measure_stream(const BandwidthOptions& options) {
  const std::size_t n = std::max<std::size_t>(options.array_bytes / sizeof(double), 1024);
  // Uninitialised storage: the first touch happens in the threads below.
  const auto a = std::make_unique_for_overwrite<double[]>(n);
  const auto b = std::make_unique_for_overwrite<double[]>(n);
  const auto c = std::make_unique_for_overwrite<double[]>(n);
  parallel(n, options.threads, [&](std::size_t lo, std::size_t hi) {
    detail::stream_init(a.get(), 1.0, lo, hi);
    detail::stream_init(b.get(), 2.0, lo, hi);
    detail::stream_init(c.get(), 0.5, lo, hi);
  });
  constexpr double kScalar = 3.0;
  std::vector<BandwidthRun> runs;
  for (const bool triad : {false, true}) {
    const auto pass = [&] {
      parallel(n, options.threads, [&](std::size_t lo, std::size_t hi) {
        if (triad) {
          detail::stream_triad(a.get(), b.get(), c.get(), kScalar, lo, hi);
        } else {
          detail::stream_copy(c.get(), a.get(), lo, hi);
        }
      });
    };
    BandwidthRun run;
    run.kernel = triad ? "triad" : "copy";
    run.threads = std::max(1, options.threads);
    run.array_bytes = Bytes{static_cast<double>(n * sizeof(double))};
    run.bytes_per_pass = Bytes{static_cast<double>((triad ? 3 : 2) * n * sizeof(double))};
    for (int i = 0; i < options.warmups; ++i) pass();
    for (int i = 0; i < std::max(1, options.repetitions); ++i) {
      const auto start = std::chrono::steady_clock::now();
      pass();
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      run.samples_seconds.push_back(took.count());
    }
    // The arrays must hold what the kernels wrote, or the compiler could have dropped the loops:
    // copy leaves c = a = 1, so triad writes 2 + 3 x 1.
    const double expect = triad ? 2.0 + kScalar * 1.0 : 1.0;
    const double* written = triad ? a.get() : c.get();
    if (written[0] != expect || written[n - 1] != expect) {
      throw Error(
          fmt::format("stream {}: wrong result {} (expected {})", run.kernel, written[0], expect));
    }
    run.stats = summarize(run.samples_seconds);
    run.median_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.median};
    run.best_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.min};
    runs.push_back(std::move(run));
  }
  return runs;
}

void flush_cache() {
  static std::vector<char> buffer;
  if (buffer.empty()) {
    const std::size_t llc = llc_bytes();
    buffer.resize(2 * (llc > 0 ? llc : 32 * kMiB));
  }
  static char round = 0;
  ++round;
  std::fill(buffer.begin(), buffer.end(), round);
  // Read back so the writes cannot be dropped.
  volatile char sink = buffer[buffer.size() / 2];
  (void)sink;
}

BandwidthRun measure_first_touch(std::size_t array_bytes, int repetitions) {
  const std::size_t n = std::max<std::size_t>(array_bytes / sizeof(double), 1024);
  const std::size_t bytes = n * sizeof(double);
  BandwidthRun run;
  run.kernel = "first touch";
  run.threads = 1;
  run.array_bytes = Bytes{static_cast<double>(bytes)};
  run.bytes_per_pass = run.array_bytes;
  for (int i = 0; i < std::max(1, repetitions) + 1; ++i) {
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      throw Error(fmt::format("first touch: mmap of {} bytes failed", bytes));
    auto* x = static_cast<double*>(mapped);
    const auto start = std::chrono::steady_clock::now();
    detail::stream_init(x, 1.0, 0, n);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    const bool written = x[0] == 1.0 && x[n - 1] == 1.0;
    munmap(mapped, bytes);
    if (!written) throw Error("first touch: the array does not hold what was written");
    if (i > 0) run.samples_seconds.push_back(took.count());  // the first one warms the path
  }
  run.stats = summarize(run.samples_seconds);
  run.median_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.median};
  run.best_rate = BytesPerSecond{run.bytes_per_pass.value() / run.stats.min};
  return run;
}

}  // namespace tb::measure
