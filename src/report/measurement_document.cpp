// A measurement as sections (table and Markdown) and as CSV rows: the parts of its document
// view. Rates in decimal units: GFLOP/s = 1e9 FLOP/s, GB/s = 1e9 bytes/s.
#include <fmt/format.h>

#include "trainbudget/report/measurement_report.hpp"

namespace tb::report {
namespace {

using measure::BackendInfo;
using measure::BandwidthRun;
using measure::GemmRun;
using measure::Measurement;
using measure::Status;

std::string gflops(FlopsPerSecond r) { return fmt::format("{:.1f}", r.value() / kGiga); }
std::string gbps(BytesPerSecond r) { return fmt::format("{:.1f}", r.value() / kGiga); }
std::string shape_cell(const measure::GemmShape& s) {
  return s.m == 0 ? "-" : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

bool is_gpu(const Measurement& m, const std::string& backend) {
  for (const BackendInfo& b : m.context.backends) {
    if (b.name == backend) return b.gpu;
  }
  return false;
}

std::string percent_cell(const Measurement& m, const GemmRun& r) {
  const auto f = fraction_of_peak(m, r);
  return f ? fmt::format("{:.1f} %", 100.0 * *f) : "-";
}

Section context_section(const Measurement& m) {
  const measure::MeasurementContext& c = m.context;
  Section s;
  s.title = "Context";
  s.text(fmt::format("host {}, {} UTC; trainbudget {} ({}), {} build, {}; {} mode", c.host, c.date,
                     c.tool_version, c.commit, c.build_type.empty() ? "unknown" : c.build_type,
                     c.compiler, c.quick ? "quick" : "full"));
  s.text(
      fmt::format("CPU: {} ({} family {} model {}, {}), {} physical cores / {} logical CPUs "
                  "available",
                  c.cpu.model_name, c.cpu.vendor, c.cpu.family, c.cpu.model,
                  m.peak.microarchitecture, c.cpu.physical_cores, c.cpu.logical_cpus));
  s.text(fmt::format("ISA: {}", c.isa.empty() ? std::string("(no AVX, AVX-512 or AMX)")
                                              : fmt::format("{}", fmt::join(c.isa, " "))));
  s.text(fmt::format("clock: {:.3f} GHz{} from {}", c.cpu.clock_hz / kGiga,
                     c.cpu.clock_is_guess ? " (a guess)" : "", c.cpu.clock_source));
  s.text(fmt::format("memory: {} (MemTotal)", gb(c.memory_capacity)));
  if (!c.environment.empty()) {
    std::string env;
    for (const auto& [k, v] : c.environment)
      env += fmt::format("{}{}={}", env.empty() ? "" : " ", k, v);
    s.text(fmt::format("environment: {}", env));
  }
  TextTable t({{"backend"},
               {"status"},
               {"version"},
               {"kernel / ISA"},
               {"threads", Align::kRight},
               {"library or reason"}});
  for (const BackendInfo& b : c.backends) {
    t.add_row({b.name, status_name(b.status), b.version.empty() ? "-" : b.version,
               b.kernel.empty() ? "-" : b.kernel,
               b.threads > 0 ? fmt::format("{}", b.threads) : "-",
               b.status == Status::kOk ? b.library : b.reason});
  }
  s.table(std::move(t));
  return s;
}

Section peak_section(const Measurement& m) {
  Section s;
  s.title = "Theoretical peak (cores x clock x FLOPs/cycle/core)";
  TextTable t({{"dtype"},
               {"GFLOP/s", Align::kRight},
               {"cores", Align::kRight},
               {"GHz", Align::kRight},
               {"FLOPs/cycle", Align::kRight},
               {"basis"}});
  for (const measure::PeakRate& p : m.peak.rates) {
    t.add_row({std::string(enum_name(p.dtype)), gflops(p.rate), fmt::format("{}", p.cores),
               fmt::format("{:.3f}", p.clock_hz / kGiga), fmt::format("{:g}", p.per_cycle.flops),
               p.per_cycle.basis});
  }
  s.table(std::move(t));
  return s;
}

Section gemm_section(const Measurement& m) {
  Section s;
  s.title = "GEMM (C = A x B, row-major; GFLOP/s = 1e9 FLOP/s, 2mnk FLOPs per call)";
  TextTable t({{"backend"},
               {"dtype"},
               {"M x N x K"},
               {"median", Align::kRight},
               {"min-max", Align::kRight},
               {"% peak", Align::kRight},
               {"samples", Align::kRight},
               {"shape / status"}});
  for (const GemmRun& r : m.gemm) {
    if (r.status != Status::kOk) {
      t.add_row({r.backend, std::string(enum_name(r.dtype)), shape_cell(r.shape), "-", "-", "-",
                 "-", fmt::format("{}: {}", status_name(r.status), r.reason)});
      continue;
    }
    const double flop = r.shape.flops().value();
    t.add_row({r.backend, std::string(enum_name(r.dtype)), shape_cell(r.shape),
               gflops(r.median_rate),
               fmt::format("{:.1f}-{:.1f}", flop / r.stats.max / kGiga, flop / r.stats.min / kGiga),
               percent_cell(m, r), fmt::format("{}", r.samples_seconds.size()),
               r.kernel.empty() ? r.shape_label : fmt::format("{} [{}]", r.shape_label, r.kernel)});
  }
  s.table(std::move(t));
  return s;
}

Section best_section(const Measurement& m) {
  Section s;
  s.title = "Best per dtype";
  TextTable t({{"dtype"},
               {"GFLOP/s", Align::kRight},
               {"% peak", Align::kRight},
               {"backend"},
               {"M x N x K"}});
  for (const DType d : all_dtypes()) {
    const GemmRun* r = m.best(d);
    if (r == nullptr) continue;
    t.add_row({std::string(enum_name(d)), gflops(r->median_rate), percent_cell(m, *r), r->backend,
               shape_cell(r->shape)});
  }
  s.table(std::move(t));
  return s;
}

Section bandwidth_section(const Measurement& m) {
  Section s;
  s.title = "Memory bandwidth (STREAM counting; GB/s = 1e9 bytes/s)";
  TextTable t({{"kernel"},
               {"median GB/s", Align::kRight},
               {"min-max", Align::kRight},
               {"array MiB", Align::kRight},
               {"threads", Align::kRight},
               {"samples", Align::kRight}});
  for (const BandwidthRun& r : m.bandwidth) {
    const double bytes = r.bytes_per_pass.value();
    t.add_row(
        {r.backend.empty() ? r.kernel : fmt::format("{} {}", r.backend, r.kernel),
         gbps(r.median_rate),
         fmt::format("{:.1f}-{:.1f}", bytes / r.stats.max / kGiga, bytes / r.stats.min / kGiga),
         fmt::format("{:.0f}", r.array_bytes.value() / 1048576.0), fmt::format("{}", r.threads),
         fmt::format("{}", r.samples_seconds.size())});
  }
  s.table(std::move(t));
  return s;
}

}  // namespace

std::optional<double> fraction_of_peak(const Measurement& m, const GemmRun& run) {
  if (run.status != Status::kOk || is_gpu(m, run.backend)) return std::nullopt;
  const measure::PeakRate* p = m.peak.find(run.dtype);
  if (p == nullptr || p->rate.value() <= 0.0) return std::nullopt;
  return run.median_rate / p->rate;
}

Document measurement_document(const Measurement& m) {
  Document doc;
  doc.title = fmt::format("trainbudget measure -- {}", m.context.host);
  doc.sections.push_back(context_section(m));
  doc.sections.push_back(peak_section(m));
  doc.sections.push_back(gemm_section(m));
  doc.sections.push_back(best_section(m));
  if (!m.bandwidth.empty()) doc.sections.push_back(bandwidth_section(m));
  if (!m.context.warnings.empty()) {
    Section w;
    w.title = "Warnings";
    for (const std::string& text : m.context.warnings) w.text(fmt::format("warning: {}", text));
    doc.sections.push_back(std::move(w));
  }
  return doc;
}

TextTable measurement_rows(const Measurement& m) {
  TextTable t({{"kind"},
               {"backend"},
               {"dtype"},
               {"m"},
               {"n"},
               {"k"},
               {"shape"},
               {"status"},
               {"reason"},
               {"samples"},
               {"median_seconds"},
               {"min_seconds"},
               {"max_seconds"},
               {"stddev_seconds"},
               {"median_flops_per_s"},
               {"percent_of_peak"},
               {"median_bytes_per_s"},
               {"kernel"}});
  for (const GemmRun& r : m.gemm) {
    const bool ok = r.status == Status::kOk;
    const auto f = fraction_of_peak(m, r);
    t.add_row({"gemm", r.backend, std::string(enum_name(r.dtype)), fmt::format("{}", r.shape.m),
               fmt::format("{}", r.shape.n), fmt::format("{}", r.shape.k), r.shape_label,
               status_name(r.status), r.reason, fmt::format("{}", r.samples_seconds.size()),
               ok ? fmt::format("{:.6g}", r.stats.median) : "",
               ok ? fmt::format("{:.6g}", r.stats.min) : "",
               ok ? fmt::format("{:.6g}", r.stats.max) : "",
               ok ? fmt::format("{:.6g}", r.stats.stddev) : "",
               ok ? fmt::format("{:.6g}", r.median_rate.value()) : "",
               f ? fmt::format("{:.2f}", 100.0 * *f) : "", "", r.kernel});
  }
  for (const BandwidthRun& r : m.bandwidth) {
    t.add_row({"bandwidth", r.backend, "", "", "", "", r.kernel, "ok", "",
               fmt::format("{}", r.samples_seconds.size()), fmt::format("{:.6g}", r.stats.median),
               fmt::format("{:.6g}", r.stats.min), fmt::format("{:.6g}", r.stats.max),
               fmt::format("{:.6g}", r.stats.stddev), "", "",
               fmt::format("{:.6g}", r.median_rate.value()), ""});
  }
  return t;
}

}  // namespace tb::report
