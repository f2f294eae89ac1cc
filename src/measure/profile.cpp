// A measurement as a Device: the best ok rate per dtype, the memory and its bandwidth.
#include "trainbudget/measure/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/measure/cpu_info.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

// Six significant digits: well inside run-to-run noise, and short in the file.
double significant(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * scale) / scale;
}

bool gpu_backend(const Measurement& m, const std::string& name) {
  for (const BackendInfo& b : m.context.backends) {
    if (b.name == name) return b.gpu;
  }
  return false;
}

// The fastest ok run of `dtype` on the CPU (gpu = false) or on a GPU backend.
const GemmRun* best_on(const Measurement& m, DType dtype, bool gpu) {
  const GemmRun* best = nullptr;
  for (const GemmRun& r : m.gemm) {
    if (r.dtype != dtype || r.status != Status::kOk || gpu_backend(m, r.backend) != gpu) continue;
    if (best == nullptr || r.median_rate > best->median_rate) best = &r;
  }
  return best;
}

const BackendInfo* first_gpu(const Measurement& m) {
  for (const BackendInfo& b : m.context.backends) {
    if (!b.gpu || b.status != Status::kOk) continue;
    for (const GemmRun& r : m.gemm) {
      if (r.backend == b.name && r.status == Status::kOk) return &b;
    }
  }
  return nullptr;
}

std::string peak_note(const Measurement& m, const GemmRun& run, bool gpu) {
  const PeakRate* peak = gpu ? nullptr : m.peak.find(run.dtype);
  std::string note = fmt::format("{} of {} samples; spread {:.3g}-{:.3g} s",
                                 run.calls_per_sample > 1 ? "batched median" : "median",
                                 run.samples_seconds.size(), run.stats.min, run.stats.max);
  if (peak != nullptr && peak->rate.value() > 0.0) {
    note += fmt::format("; {:.1f} % of the theoretical peak {:.1f} GFLOP/s ({})",
                        100.0 * run.median_rate.value() / peak->rate.value(),
                        peak->rate.value() / 1e9, peak->per_cycle.basis);
  }
  for (const BackendInfo& b : m.context.backends) {
    if (b.name == run.backend) {
      const std::string& kernel = run.kernel.empty() ? b.kernel : run.kernel;
      note += fmt::format("; {} {}{}", b.name, b.version,
                          kernel.empty() ? std::string{} : fmt::format(" kernel {}", kernel));
    }
  }
  if (const auto env = m.context.environment.find("OPENBLAS_CORETYPE");
      run.backend == "openblas" && env != m.context.environment.end()) {
    note += fmt::format("; OPENBLAS_CORETYPE={} was set", env->second);
  }
  return note;
}

}  // namespace

void validate_profile_id(std::string_view id) {
  const bool ok = !id.empty() && id.size() <= 64 && id.front() != '-' && id.back() != '-' &&
                  std::all_of(id.begin(), id.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                  });
  if (!ok) {
    throw InvalidRequest("save",
                         fmt::format("'{}' is not a machine id; use lowercase letters, digits and "
                                     "'-' (it names <id>.toml and is what {{machine}} takes)",
                                     id));
  }
}

Device profile_device(const Measurement& m, std::string_view id) {
  validate_profile_id(id);
  const BackendInfo* gpu = first_gpu(m);
  const MeasurementContext& c = m.context;
  const std::string day = c.date.substr(0, 10);
  const std::string by = fmt::format("trainbudget measure on {}", c.host);
  const std::string source = fmt::format("trainbudget {} ({}) measure{}, {}", c.tool_version,
                                         c.commit, c.quick ? " (quick mode)" : "", c.date);

  Device d;
  d.id = std::string(id);
  d.vendor = "other";
  d.category = "cpu";
  // Exact byte counts from the OS or the driver: stored as decimal GB (docs/hardware-catalog.md).
  d.memory_capacity_unit = CapacityUnit::kGB;
  double capacity = 0.0;
  const BandwidthRun* bw = nullptr;
  if (gpu != nullptr) {
    d.name = fmt::format("{} ({}, measured)", gpu->device_name, c.host);
    d.vendor = "nvidia";
    d.category =
        gpu->device_name.find("GeForce") != std::string::npos ? "consumer-gpu" : "datacenter-gpu";
    capacity = gpu->device_memory.value();
    d.memory_source = "cudaGetDeviceProperties totalGlobalMem";
    // The host's RAM beside the GPU: what offloaded states and activations may fill
    // (MemAvailable when measured, else MemTotal).
    const double host =
        c.memory_available.value() > 0.0 ? c.memory_available.value() : c.memory_capacity.value();
    if (host > 0.0) {
      d.host_memory = Bytes{significant(host / kGiga) * kGiga};
      d.memory_source +=
          fmt::format("; host RAM /proc/meminfo {} when measured",
                      c.memory_available.value() > 0.0 ? "MemAvailable" : "MemTotal");
    }
    for (const BandwidthRun& r : m.bandwidth) {
      if (r.backend == gpu->name) bw = &r;
    }
  } else {
    d.name =
        fmt::format("{} x {} cores ({}, measured)", c.cpu.model_name, c.cpu.physical_cores, c.host);
    // What a training process can take without swapping: MemAvailable when the profile was
    // measured, not MemTotal (the OS, the page cache others need and running programs hold the
    // rest). Measure again when the machine's load changes.
    if (c.memory_available.value() > 0.0) {
      capacity = c.memory_available.value();
      d.memory_source = fmt::format(
          "/proc/meminfo MemAvailable when measured ({:.1f} GB of MemTotal {:.1f} GB): what a "
          "process can take without swapping",
          capacity / kGiga, c.memory_capacity.value() / kGiga);
    } else {
      capacity = c.memory_capacity.value();
      d.memory_source = "/proc/meminfo MemTotal (MemAvailable unreadable)";
    }
    bw = m.memory_bandwidth();
  }
  if (capacity <= 0.0)
    throw InvalidRequest("save", "the memory capacity is unknown (MemTotal unreadable)");
  d.memory_capacity = Bytes{significant(capacity / kGiga) * kGiga};
  d.notes =
      fmt::format("Written by {} from {}. CPU: {}, microarchitecture {}, ISA {}.", by, source,
                  c.cpu.model_name, m.peak.microarchitecture, fmt::join(isa_flags(c.cpu), " "));
  // A CPU or host name with control characters (a tab in /proc/cpuinfo) would make a name the
  // catalog refuses: they become spaces.
  for (std::string* text : {&d.name, &d.notes}) {
    for (char& ch : *text) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
    }
  }
  if (bw != nullptr) {
    d.memory_bandwidth = BytesPerSecond{significant(bw->median_rate.value() / kGiga) * kGiga};
    d.memory_bandwidth_kind = RateKind::kMeasured;
    d.memory_source += fmt::format("; bandwidth: {}, {} median of {}, {}", by, bw->kernel,
                                   bw->samples_seconds.size(), day);
  }
  if (const BandwidthRun* touch = m.first_touch(); touch != nullptr && gpu == nullptr) {
    d.first_touch_bandwidth =
        BytesPerSecond{significant(touch->median_rate.value() / kGiga) * kGiga};
    d.memory_source += fmt::format(
        "; first touch: one thread writing a fresh {:.0f} MiB mapping, "
        "median of {}",
        touch->array_bytes.value() / 1048576.0, touch->samples_seconds.size());
  }

  for (const DType dtype : all_dtypes()) {
    const GemmRun* run = best_on(m, dtype, gpu != nullptr);
    if (run == nullptr) continue;
    ComputeRate rate;
    rate.dtype = dtype;
    rate.dense = FlopsPerSecond{significant(run->median_rate.value() / kTera) * kTera};
    rate.kind = RateKind::kMeasured;
    rate.source = source;
    rate.measured_by = by;
    rate.method = fmt::format("{} {} GEMM {}x{}x{}", run->backend, enum_name(dtype), run->shape.m,
                              run->shape.n, run->shape.k);
    rate.date = day;
    rate.note = peak_note(m, *run, gpu != nullptr);
    d.rates.push_back(std::move(rate));
    // Every shape the best run's backend timed at this dtype: the measured cost backend prices
    // a step's GEMMs by them (docs/time.md, "Measured").
    for (const GemmRun& r : m.gemm) {
      if (r.dtype != dtype || r.backend != run->backend || r.status != Status::kOk) continue;
      d.gemm_table.push_back({r.shape.m, r.shape.n, r.shape.k, dtype,
                              FlopsPerSecond{significant(r.median_rate.value())}});
    }
  }
  if (d.rates.empty()) {
    throw InvalidRequest("save", "no GEMM was measured successfully, so there is no rate to save");
  }
  return d;
}

}  // namespace tb::measure
