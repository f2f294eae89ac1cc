// A measurement as JSON (docs/json.md, "measure"): base units, the unit in the key name, except
// the three summary objects the issue names (best, theoretical_peak: FLOP/s; memory_bandwidth:
// bytes/s).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "json_dump.hpp"
#include "trainbudget/report/measurement_report.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {

using measure::BackendInfo;
using measure::BandwidthRun;
using measure::GemmRun;
using measure::Measurement;
using measure::SampleStats;
using measure::Status;
using nlohmann::json;
using nlohmann::ordered_json;

json optional_string(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

ordered_json stats_json(const SampleStats& s) {
  return {{"median_seconds", s.median}, {"mean_seconds", s.mean},     {"min_seconds", s.min},
          {"max_seconds", s.max},       {"stddev_seconds", s.stddev}, {"count", s.count}};
}

ordered_json context_json(const Measurement& m) {
  const measure::MeasurementContext& c = m.context;
  ordered_json backends = ordered_json::array();
  for (const BackendInfo& b : c.backends) {
    ordered_json j{{"name", b.name},
                   {"status", measure::status_name(b.status)},
                   {"reason", optional_string(b.reason)},
                   {"library", optional_string(b.library)},
                   {"version", optional_string(b.version)},
                   {"kernel", optional_string(b.kernel)},
                   {"threads", b.threads},
                   {"gpu", b.gpu},
                   {"warnings", b.warnings}};
    if (b.gpu) {
      j["device_name"] = b.device_name;
      j["device_memory_bytes"] = b.device_memory.value();
    }
    backends.push_back(std::move(j));
  }
  return {{"compiler", c.compiler},
          {"host", c.host},
          {"date", c.date},
          {"mode", c.quick ? "quick" : "full"},
          {"cpu",
           {{"model_name", c.cpu.model_name},
            {"vendor", c.cpu.vendor},
            {"family", c.cpu.family},
            {"model", c.cpu.model},
            {"microarchitecture", m.peak.microarchitecture},
            {"physical_cores", c.cpu.physical_cores},
            {"logical_cpus", c.cpu.logical_cpus},
            {"isa", c.isa},
            {"clock_hz", c.cpu.clock_hz},
            {"clock_source", c.cpu.clock_source},
            {"clock_is_guess", c.cpu.clock_is_guess}}},
          {"memory_capacity_bytes", c.memory_capacity.value()},
          {"memory_available_bytes", c.memory_available.value()},
          {"environment", c.environment},
          {"backends", backends},
          {"warnings", c.warnings}};
}

ordered_json gemm_json(const Measurement& m, const GemmRun& r) {
  ordered_json j{{"backend", r.backend},
                 {"dtype", enum_name(r.dtype)},
                 {"m", r.shape.m},
                 {"n", r.shape.n},
                 {"k", r.shape.k},
                 {"shape", r.shape_label},
                 {"status", measure::status_name(r.status)},
                 {"reason", optional_string(r.reason)},
                 {"kernel", optional_string(r.kernel)},
                 {"flops_per_call", r.shape.flops().value()}};
  if (r.verification) {
    j["verification"] = {
        {"m", r.verification->shape.m},   {"n", r.verification->shape.n},
        {"k", r.verification->shape.k},   {"max_relative_error", r.verification->max_error},
        {"bound", r.verification->bound}, {"passed", r.verification->passed}};
  } else {
    j["verification"] = nullptr;
  }
  j["warmups"] = r.warmups;
  j["calls_per_sample"] = r.calls_per_sample;
  j["samples_seconds"] = r.samples_seconds;
  if (r.status == Status::kOk) {
    j["stats"] = stats_json(r.stats);
    j["median_flops_per_s"] = r.median_rate.value();
    j["best_flops_per_s"] = r.best_rate.value();
    const auto f = fraction_of_peak(m, r);
    j["fraction_of_peak"] = f ? json(*f) : json(nullptr);
  } else {
    j["stats"] = nullptr;
    j["median_flops_per_s"] = nullptr;
    j["best_flops_per_s"] = nullptr;
    j["fraction_of_peak"] = nullptr;
  }
  return j;
}

ordered_json bandwidth_json(const BandwidthRun& r) {
  return {{"kernel", r.kernel},
          {"backend", optional_string(r.backend)},
          {"array_bytes", r.array_bytes.value()},
          {"bytes_per_pass", r.bytes_per_pass.value()},
          {"threads", r.threads},
          {"samples_seconds", r.samples_seconds},
          {"stats", stats_json(r.stats)},
          {"median_bytes_per_s", r.median_rate.value()},
          {"best_bytes_per_s", r.best_rate.value()}};
}

}  // namespace

std::string measurement_json(const Measurement& m) {
  ordered_json gemm = ordered_json::array();
  for (const GemmRun& r : m.gemm) gemm.push_back(gemm_json(m, r));
  ordered_json bandwidth = ordered_json::array();
  for (const BandwidthRun& r : m.bandwidth) bandwidth.push_back(bandwidth_json(r));

  ordered_json best = ordered_json::object();
  ordered_json best_runs = ordered_json::object();
  for (const DType d : all_dtypes()) {
    const GemmRun* r = m.best(d);
    if (r == nullptr) continue;
    best[std::string(enum_name(d))] = r->median_rate.value();
    best_runs[std::string(enum_name(d))] = {
        {"backend", r->backend}, {"m", r->shape.m}, {"n", r->shape.n}, {"k", r->shape.k}};
  }
  ordered_json peak = ordered_json::object();
  ordered_json peak_basis = ordered_json::object();
  for (const measure::PeakRate& p : m.peak.rates) {
    peak[std::string(enum_name(p.dtype))] = p.rate.value();
    peak_basis[std::string(enum_name(p.dtype))] = {{"cores", p.cores},
                                                   {"clock_hz", p.clock_hz},
                                                   {"flops_per_cycle_per_core", p.per_cycle.flops},
                                                   {"derived", p.per_cycle.derived},
                                                   {"basis", p.per_cycle.basis}};
  }
  const BandwidthRun* triad = m.memory_bandwidth();

  const measure::MeasurementContext& c = m.context;
  ordered_json doc{
      {"schema_version", kJsonSchemaVersion},
      {"tool",
       {{"name", "trainbudget"},
        {"version", c.tool_version},
        {"commit", c.commit},
        {"build_type", c.build_type}}},
      {"kind", "measurement"},
      {"units",
       {{"rate", "FLOP/s"}, {"bandwidth", "bytes/s"}, {"time", "seconds"}, {"memory", "bytes"}}},
      {"context", context_json(m)},
      {"gemm", gemm},
      {"bandwidth", bandwidth},
      {"best", best},
      {"best_runs", best_runs},
      {"theoretical_peak", peak},
      {"theoretical_peak_basis", peak_basis},
      {"memory_bandwidth", triad != nullptr ? json(triad->median_rate.value()) : json(nullptr)}};
  return dump_json(std::move(doc));
}

}  // namespace tb::report
