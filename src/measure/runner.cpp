// The measurement loop: plan the steps, verify each backend against the naive reference, time
// every (backend, dtype, shape) with warm-ups and repetitions, then memory bandwidth.
#include "trainbudget/measure/runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <thread>

#include "trainbudget/build_info.hpp"
#include "trainbudget/measure/bandwidth.hpp"
#include "trainbudget/measure/cpu_info.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/measure/statistics.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::measure {
namespace {

using Clock = std::chrono::steady_clock;

// Odd sizes, so that edge handling (partial tiles) is exercised too.
constexpr GemmShape kVerifyShape{67, 45, 129};
constexpr std::uint64_t kSeed = 0x7261696e627564ULL;  // "trainbud"
// A sample shorter than this is a batch of calls (timer resolution and call overhead).
constexpr double kMinSampleSeconds = 0.02;
// --quick must finish in about 15 s on a 2-core machine: each run's timed calls get this long.
constexpr double kQuickRunBudgetSeconds = 0.75;
// Full mode: a slow library (BLIS's generic kernels) at 4096^3 takes seconds per call.
constexpr double kFullRunBudgetSeconds = 10.0;
constexpr double kLongCallSeconds = 1.0;

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const auto end = text.find(sep, pos);
    out.emplace_back(text.substr(pos, end == std::string_view::npos ? end : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return out;
}

std::string shape_text(const GemmShape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown-host";
  return buffer.data();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer.data();
}

// The environment variables that change what a backend does; only those that are set.
std::map<std::string, std::string> steering_environment() {
  constexpr std::array<const char*, 9> kNames{
      "OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
      "BLIS_NUM_THREADS",  "BLIS_ARCH_TYPE",       "ONEDNN_MAX_CPU_ISA",
      "DNNL_MAX_CPU_ISA",  "CUDA_VISIBLE_DEVICES", "GOMP_CPU_AFFINITY"};
  std::map<std::string, std::string> env;
  for (const char* name : kNames) {
    if (const char* v = std::getenv(name); v != nullptr) env[name] = v;
  }
  return env;
}

// One timed run: prepare outside the clock, warm up, then repetitions. A problem too short to
// time alone is batched so each sample lasts at least kMinSampleSeconds; a sample is then the
// batch time divided by its calls.
GemmRun time_gemm(GemmBackend& backend, DType dtype, const ShapeSpec& spec, int warmups,
                  int repetitions, double budget_seconds) {
  GemmRun run;
  run.backend = backend.name();
  run.dtype = dtype;
  run.shape = spec.shape;
  run.shape_label = spec.label;
  GemmOperands operands(dtype, spec.shape, kSeed);
  std::unique_ptr<GemmKernel> kernel = backend.prepare(operands);
  run.kernel = kernel->implementation();
  double single = 0.0;
  run.warmups = 0;
  for (int i = 0; i < std::max(1, warmups); ++i) {
    const auto start = Clock::now();
    kernel->run();
    single = std::chrono::duration<double>(Clock::now() - start).count();
    ++run.warmups;
    if (single > kLongCallSeconds) break;  // a call this long is warm after one
  }
  if (spec.cold && !backend.on_gpu()) {
    // Each call alone after the caches are flushed (a step's shapes: ShapeSpec::cold).
    run.calls_per_sample = 1;
    for (int r = 0; r < std::max(repetitions, kColdSamples); ++r) {
      flush_cache();
      const auto start = Clock::now();
      kernel->run();
      run.samples_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
  } else {
    const int calls = single >= kMinSampleSeconds
                          ? 1
                          : static_cast<int>(std::min(
                                1000.0, std::ceil(kMinSampleSeconds / std::max(single, 1e-7))));
    run.calls_per_sample = calls;
    // A budget (unless --repetitions was given) trims the repetitions of slow runs, keeping two
    // for a spread.
    if (budget_seconds > 0.0 && calls == 1 && repetitions > 2) {
      repetitions = std::clamp(static_cast<int>(budget_seconds / single), 2, repetitions);
    }
    for (int r = 0; r < repetitions; ++r) {
      const auto start = Clock::now();
      kernel->run_many(calls);
      const double took = std::chrono::duration<double>(Clock::now() - start).count();
      run.samples_seconds.push_back(took / calls);
    }
  }
  run.stats = summarize(run.samples_seconds);
  run.median_rate = FlopsPerSecond{spec.shape.flops().value() / run.stats.median};
  run.best_rate = FlopsPerSecond{spec.shape.flops().value() / run.stats.min};
  run.status = Status::kOk;
  return run;
}

GemmRun not_run(const std::string& backend, DType dtype, const ShapeSpec& spec, Status status,
                std::string reason) {
  GemmRun run;
  run.backend = backend;
  run.dtype = dtype;
  run.shape = spec.shape;
  run.shape_label = spec.label;
  run.status = status;
  run.reason = std::move(reason);
  return run;
}

std::string rate_text(FlopsPerSecond r) { return fmt::format("{:.1f} GFLOP/s", r.value() / 1e9); }

MeasurementContext make_context(const MeasureOptions& options) {
  MeasurementContext c;
  c.host = host_name();
  c.date = utc_now();
  c.tool_version = build_info::kVersion;
  c.commit = build_info::kGitCommit;
  c.build_type = build_info::kBuildType;
  c.compiler = build_info::kCompiler;
  c.quick = options.quick;
  c.cpu = read_cpu_info();
  if (c.cpu.clock_is_guess) {
    if (const auto hz = measure_clock_hz()) use_measured_clock(c.cpu, *hz);
  }
  c.isa = isa_flags(c.cpu);
  c.memory_capacity = read_memory_total().value_or(Bytes{0.0});
  c.memory_available = read_memory_available().value_or(Bytes{0.0});
  c.environment = steering_environment();
  if (c.build_type == "Debug" || c.build_type.empty()) {
    c.warnings.push_back(
        "this is a Debug build: the libraries run at full speed, but rebuild with the release "
        "preset (README) before publishing figures");
  }
  if (c.cpu.clock_is_guess) {
    c.warnings.push_back(fmt::format(
        "the clock ({:.2f} GHz) is a guess from {}; the theoretical peak scales with it",
        c.cpu.clock_hz / 1e9, c.cpu.clock_source));
  }
  return c;
}

}  // namespace

const std::vector<DType>& measurable_dtypes() {
  static const std::vector<DType> kDtypes{DType::kFp64, DType::kFp32, DType::kTf32, DType::kBf16,
                                          DType::kFp16};
  return kDtypes;
}

std::vector<ShapeSpec> default_shapes(bool quick) {
  // An MLP block with hidden size h and T tokens runs three GEMMs per weight matrix: forward
  // (T x 4h x h), input gradient (T x h x 4h) and weight gradient (h x 4h x T).
  if (quick) {
    // Small squares are cheap (batched) and are where some libraries peak (oneDNN runs 512^3 in
    // cache ~10 % faster than 4096^3 here); 2048^3 gives the large-size rate. fp64 stops at
    // 1024^3, so --quick stays under 15 s on 2 cores even with BLIS's generic kernels on a loaded
    // machine (docs/measure.md, "Figures").
    const std::vector<DType> training{DType::kFp32, DType::kTf32, DType::kBf16, DType::kFp16};
    return {{{512, 512, 512}, "square", {}},
            {{1024, 1024, 1024}, "square", {}},
            {{2048, 2048, 2048}, "square", training}};
  }
  return {{{512, 512, 512}, "square", {}},
          {{1024, 1024, 1024}, "square", {}},
          {{2048, 2048, 2048}, "square", {}},
          {{4096, 4096, 4096}, "square", {}},
          {{4096, 8192, 2048}, "FFN up: tokens x 4h x h (h 2048)", {}},
          {{4096, 2048, 8192}, "FFN down: tokens x h x 4h (h 2048)", {}},
          {{2048, 8192, 4096}, "weight grad: h x 4h x tokens (h 2048)", {}}};
}

std::vector<ShapeSpec> default_gpu_shapes(bool quick) {
  // A data-centre GPU needs large problems to reach its peak; 8192^3 is where published
  // achievable-matmul figures are taken (HARDWARE.md §1, MAMF [S4]).
  if (quick) return {{{8192, 8192, 8192}, "square", {}}};
  return {{{4096, 4096, 4096}, "square", {}},
          {{8192, 8192, 8192}, "square", {}},
          {{16384, 16384, 16384}, "square", {}},
          {{16384, 16384, 4096}, "FFN up: tokens x 4h x h (h 4096)", {}}};
}

std::vector<std::string> parse_backend_list(std::string_view text) {
  const std::vector<std::string> known = backend_names();
  if (text == "all") return known;
  std::vector<std::string> out;
  for (const std::string_view name :
       split_comma_list(text, "backend", fmt::format("{}|all", fmt::join(known, "|")))) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw InvalidRequest("backend", fmt::format("unknown backend '{}'", name),
                           fmt::format("{}|all", fmt::join(known, "|")));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  }
  return out;
}

std::vector<DType> parse_dtype_list(std::string_view text) {
  const std::vector<DType>& known = measurable_dtypes();
  if (text == "all") return known;
  std::vector<std::string_view> names;
  for (const DType d : known) names.push_back(enum_name(d));
  std::vector<DType> out;
  for (const std::string_view name :
       split_comma_list(text, "dtype", fmt::format("{}|all", fmt::join(names, "|")))) {
    const auto dtype = enum_from_name<DType>(name);
    if (!dtype || std::find(known.begin(), known.end(), *dtype) == known.end()) {
      throw InvalidRequest("dtype", fmt::format("unknown dtype '{}'", excerpt(name)),
                           fmt::format("{}|all", fmt::join(names, "|")));
    }
    if (std::find(out.begin(), out.end(), *dtype) == out.end()) out.push_back(*dtype);
  }
  return out;
}

std::vector<ShapeSpec> parse_sizes(std::string_view text) {
  constexpr std::int64_t kMax = 65536;
  std::vector<ShapeSpec> out;
  for (const std::string_view entry :
       split_comma_list(text, "sizes", "N or MxNxK, comma-separated")) {
    const std::vector<std::string> parts = split(entry, 'x');
    std::vector<std::int64_t> dims;
    for (const std::string& p : parts) {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
      if (p.empty() || ec != std::errc{} || ptr != p.data() + p.size() || v < 1 || v > kMax) {
        throw InvalidRequest(
            "sizes", fmt::format("'{}' is not a size", excerpt(entry)),
            fmt::format("N or MxNxK, whole numbers in [1, {}], comma-separated", kMax));
      }
      dims.push_back(v);
    }
    if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
    // A, B and C at the widest dtype (fp64): past 8 GB a size is a typo or a swap storm, not a
    // measurement (8192^3 needs 1.6 GB).
    constexpr double kMaxMatrixBytes = 8e9;
    if (dims.size() == 3) {
      const double m = static_cast<double>(dims[0]);
      const double n = static_cast<double>(dims[1]);
      const double k = static_cast<double>(dims[2]);
      const double bytes = (m * k + k * n + m * n) * 8.0;
      if (bytes > kMaxMatrixBytes) {
        throw InvalidRequest(
            "sizes",
            fmt::format("'{}' needs {:.1f} GB of fp64 matrices, past the {:.0f} GB "
                        "accepted",
                        excerpt(entry), bytes / 1e9, kMaxMatrixBytes / 1e9),
            "sizes whose A, B and C fit in 8 GB at fp64 (square: up to 18,257)");
      }
    }
    if (dims.size() == 3 && parts.size() == 1) {
      out.push_back({{dims[0], dims[0], dims[0]}, "square", {}});
    } else if (dims.size() == 3) {
      out.push_back({{dims[0], dims[1], dims[2]},
                     dims[0] == dims[1] && dims[1] == dims[2] ? "square" : "M x N x K",
                     {}});
    } else {
      throw InvalidRequest("sizes", fmt::format("'{}' is not a size", excerpt(entry)),
                           "N or MxNxK, comma-separated");
    }
  }
  return out;
}

int parse_repetitions(std::string_view text) {
  const double v = parse_number_in(text, "repetitions", 1.0, 1000.0, true);
  if (v != std::floor(v)) {
    throw InvalidRequest("repetitions", fmt::format("'{}' must be a whole number", excerpt(text)),
                         "[1, 1000]");
  }
  return static_cast<int>(v);
}

Measurement run_measurement(const MeasureOptions& options) {
  Measurement m;
  m.context = make_context(options);
  m.peak = theoretical_peak(m.context.cpu);
  const std::vector<std::string> names =
      options.backends.empty() ? default_backend_names() : options.backends;
  const std::vector<ShapeSpec> cpu_shapes =
      options.shapes.empty() ? default_shapes(options.quick) : options.shapes;
  const std::vector<ShapeSpec> gpu_shapes =
      options.shapes.empty() ? default_gpu_shapes(options.quick) : options.shapes;
  const int repetitions = options.repetitions > 0 ? options.repetitions : (options.quick ? 3 : 5);
  const int warmups = options.warmups >= 0 ? options.warmups : (options.quick ? 1 : 2);
  const bool explicit_dtypes = !options.dtypes.empty();
  const std::vector<DType>& dtypes = explicit_dtypes ? options.dtypes : measurable_dtypes();

  // Refuse shapes whose operands would not fit comfortably before loading anything.
  for (const ShapeSpec& s : options.shapes) {
    const double bytes = static_cast<double>(s.shape.m * s.shape.k + s.shape.k * s.shape.n) * 8.0 +
                         static_cast<double>(s.shape.m * s.shape.n) * 8.0;
    const double limit = m.context.memory_capacity.value() / 2.0;
    if (limit > 0.0 && bytes > limit) {
      throw InvalidRequest(
          "sizes",
          fmt::format(
              "{} needs up to {:.1f} GB of operands, more than half of this machine's {:.1f} "
              "GB",
              shape_text(s.shape), bytes / 1e9, m.context.memory_capacity.value() / 1e9));
    }
  }

  std::vector<std::unique_ptr<GemmBackend>> backends;
  for (const std::string& name : names) {
    const auto lib = options.libraries.find(name);
    backends.push_back(make_backend(name, m.context.cpu,
                                    lib != options.libraries.end() ? lib->second : std::string{}));
    const BackendInfo& info = backends.back()->info();
    m.context.backends.push_back(info);
    for (const std::string& w : info.warnings) m.context.warnings.push_back(w);
  }

  // The plan, so that progress can say "[i/n]".
  struct Step {
    GemmBackend* backend;
    DType dtype;
    const std::vector<ShapeSpec>* shapes;
    std::optional<std::string> unsupported;  // a dtype asked for by name that it lacks
  };
  std::vector<Step> plan;
  for (const auto& b : backends) {
    if (b->info().status != Status::kOk) continue;
    for (const DType d : dtypes) {
      auto why = b->unsupported(d);
      if (!why || explicit_dtypes) {
        plan.push_back({b.get(), d, b->on_gpu() ? &gpu_shapes : &cpu_shapes, std::move(why)});
      }
    }
  }
  std::size_t total = options.bandwidth ? 3 : 0;  // copy, triad, first touch
  for (const Step& step : plan) {
    if (step.unsupported) continue;
    for (const ShapeSpec& spec : *step.shapes) {
      if (spec.dtypes.empty() ||
          std::find(spec.dtypes.begin(), spec.dtypes.end(), step.dtype) != spec.dtypes.end()) {
        ++total;
      }
    }
  }
  std::size_t done = 0;
  const auto report = [&](const std::string& line) {
    ++done;
    if (options.progress) options.progress(fmt::format("[{}/{}] {}", done, total, line));
  };

  const GemmBackend* previous = nullptr;
  for (const Step& step : plan) {
    GemmBackend& backend = *step.backend;
    if (step.unsupported) {
      m.gemm.push_back(
          not_run(backend.name(), step.dtype, {}, Status::kSkipped, *step.unsupported));
      continue;
    }
    // Let the previous library's worker threads stop spinning before the next one starts.
    if (previous != nullptr && previous != &backend) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.quick ? 100 : 300));
    }
    previous = &backend;
    std::optional<Verification> verification;
    std::string failure;
    try {
      verification = verify(backend, step.dtype, kVerifyShape);
      if (!verification->passed) {
        failure =
            fmt::format("verification failed: error {:.3g} > bound {:.3g} on {}",
                        verification->max_error, verification->bound, shape_text(kVerifyShape));
      }
    } catch (const Error& e) {
      failure = e.what();
    }
    for (const ShapeSpec& spec : *step.shapes) {
      if (!spec.dtypes.empty() &&
          std::find(spec.dtypes.begin(), spec.dtypes.end(), step.dtype) == spec.dtypes.end()) {
        continue;
      }
      const std::string what =
          fmt::format("{} {} {}", backend.name(), enum_name(step.dtype), shape_text(spec.shape));
      GemmRun run;
      if (!failure.empty()) {
        run = not_run(backend.name(), step.dtype, spec, Status::kFailed, failure);
      } else if (auto big = backend.too_large(spec.shape)) {
        run = not_run(backend.name(), step.dtype, spec, Status::kSkipped, *big);
      } else {
        try {
          const double budget = options.repetitions != 0 ? 0.0
                                : options.quick          ? kQuickRunBudgetSeconds
                                                         : kFullRunBudgetSeconds;
          run = time_gemm(backend, step.dtype, spec, warmups, repetitions, budget);
        } catch (const Error& e) {
          run = not_run(backend.name(), step.dtype, spec, Status::kFailed, e.what());
        }
      }
      run.verification = verification;
      report(run.status == Status::kOk
                 ? fmt::format("{}: {} (median of {})", what, rate_text(run.median_rate),
                               run.samples_seconds.size())
                 : fmt::format("{}: {}: {}", what, status_name(run.status), run.reason));
      m.gemm.push_back(std::move(run));
    }
  }

  // A CPU rate above the theoretical peak means the clock or the per-cycle figure is wrong.
  for (const GemmRun& run : m.gemm) {
    const PeakRate* peak = m.peak.find(run.dtype);
    const bool gpu = std::any_of(backends.begin(), backends.end(), [&](const auto& b) {
      return b->name() == run.backend && b->on_gpu();
    });
    if (run.status == Status::kOk && !gpu && peak != nullptr && peak->rate.value() > 0.0 &&
        run.median_rate > peak->rate) {
      m.context.warnings.push_back(fmt::format(
          "{} {} ran at {:.1f} GFLOP/s, above the theoretical peak {:.1f}: the clock ({:.2f} "
          "GHz) or the FLOPs/cycle figure ({}) is too low for this CPU",
          run.backend, enum_name(run.dtype), run.median_rate.value() / 1e9,
          peak->rate.value() / 1e9, peak->clock_hz / 1e9, peak->per_cycle.flops));
      break;
    }
  }

  if (options.bandwidth) {
    for (const auto& b : backends) {
      if (!b->on_gpu() || b->info().status != Status::kOk) continue;
      try {
        if (auto run = b->device_bandwidth(options.quick ? 3 : 10)) {
          m.bandwidth.push_back(std::move(*run));
        }
      } catch (const Error& e) {
        m.context.warnings.push_back(fmt::format("{} device bandwidth: {}", b->name(), e.what()));
      }
    }
    BandwidthOptions bw;
    bw.array_bytes = default_stream_array_bytes(m.context.memory_capacity.value());
    // As many threads as the job's framework will run: OMP_NUM_THREADS where set (PyTorch's
    // intra-op threads follow it), else one per physical core.
    bw.threads = std::max(1, m.context.cpu.physical_cores);
    if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp != nullptr) {
      const int wanted = std::atoi(omp);
      if (wanted > 0) bw.threads = wanted;
    }
    bw.warmups = 1;
    bw.repetitions = options.quick ? 3 : 10;
    for (BandwidthRun& run : measure_stream(bw)) {
      report(fmt::format("stream {} ({:.0f} MiB arrays, {} threads): {:.1f} GB/s", run.kernel,
                         run.array_bytes.value() / 1048576.0, run.threads,
                         run.median_rate.value() / 1e9));
      m.bandwidth.push_back(std::move(run));
    }
    BandwidthRun touch = measure_first_touch(bw.array_bytes, options.quick ? 3 : 5);
    report(fmt::format("first touch ({:.0f} MiB fresh mapping, 1 thread): {:.2f} GB/s",
                       touch.array_bytes.value() / 1048576.0, touch.median_rate.value() / 1e9));
    m.bandwidth.push_back(std::move(touch));
  }
  return m;
}

}  // namespace tb::measure
