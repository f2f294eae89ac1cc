// Saving a measurement as a hardware TOML file, atomically.
#include "trainbudget/measure/profile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include "trainbudget/measure/cpu_info.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace fs = std::filesystem;
namespace {

// Six significant digits: well inside run-to-run noise, and short in the file.
double significant(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * scale) / scale;
}

std::string system_error(const std::string& what, const fs::path& path) {
  return fmt::format("{} {}: {}", what, path.string(), std::strerror(errno));
}

// A TOML basic string: quotes, backslashes and control characters escaped (TOML 1.0, "String").
std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(ch)));
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// Text for a TOML comment, which allows no control characters but tab.
std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& ch : out) {
    if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7F) ch = ' ';
  }
  return out;
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
    throw InvalidArgument(fmt::format(
        "--save: '{}' is not a machine id; use lowercase letters, digits and '-' (it names "
        "<id>.toml and is what --machine takes)",
        id));
  }
}

std::string profile_toml(const Measurement& m, std::string_view id) {
  validate_profile_id(id);
  const BackendInfo* gpu = first_gpu(m);
  const MeasurementContext& c = m.context;
  const std::string day = c.date.substr(0, 10);
  const std::string by = fmt::format("trainbudget measure on {}", c.host);
  const std::string source = fmt::format("trainbudget {} ({}) measure{}, {}", c.tool_version,
                                         c.commit, c.quick ? " --quick" : "", c.date);

  std::string name;
  std::string vendor = "other";
  std::string category = "cpu";
  double capacity = 0.0;
  std::string memory_source;
  const BandwidthRun* bw = nullptr;
  if (gpu != nullptr) {
    name = fmt::format("{} ({}, measured)", gpu->device_name, c.host);
    vendor = "nvidia";
    category =
        gpu->device_name.find("GeForce") != std::string::npos ? "consumer-gpu" : "datacenter-gpu";
    capacity = gpu->device_memory.value();
    memory_source = "cudaGetDeviceProperties totalGlobalMem";
    for (const BandwidthRun& r : m.bandwidth) {
      if (r.backend == gpu->name) bw = &r;
    }
  } else {
    name =
        fmt::format("{} x {} cores ({}, measured)", c.cpu.model_name, c.cpu.physical_cores, c.host);
    capacity = c.memory_capacity.value();
    memory_source = "/proc/meminfo MemTotal";
    bw = m.memory_bandwidth();
  }
  if (capacity <= 0.0) throw Error("--save: the memory capacity is unknown (MemTotal unreadable)");

  std::string out = fmt::format(
      "# {} on {}, measured by trainbudget measure (docs/measure.md).\n"
      "id = {}\nname = {}\nvendor = {}\ncategory = {}\nnotes = {}\n\n[memory]\n"
      "capacity_gb = {}\n",
      comment_text(gpu != nullptr ? gpu->device_name : c.cpu.model_name), comment_text(c.host),
      toml_string(id), toml_string(name), toml_string(vendor), toml_string(category),
      toml_string(fmt::format("Written by {} from {}. CPU: {}, microarchitecture {}, ISA {}.", by,
                              source, c.cpu.model_name, m.peak.microarchitecture,
                              fmt::join(isa_flags(c.cpu), " "))),
      significant(capacity / 1e9));
  if (bw != nullptr) {
    out += fmt::format("bandwidth_gb_per_s = {}\n", significant(bw->median_rate.value() / 1e9));
    memory_source += fmt::format("; bandwidth: {}, {} median of {}, {}", by, bw->kernel,
                                 bw->samples_seconds.size(), day);
  }
  out += fmt::format("source = {}\n", toml_string(memory_source));

  bool any = false;
  for (const DType dtype : all_dtypes()) {
    const GemmRun* run = best_on(m, dtype, gpu != nullptr);
    if (run == nullptr) continue;
    any = true;
    out += fmt::format(
        "\n[compute.{}]\ndense_tflops = {}\nkind = \"measured\"\nsource = {}\nmeasured_by = {}\n"
        "method = {}\ndate = {}\nnote = {}\n",
        dtype_name(dtype), significant(run->median_rate.value() / 1e12), toml_string(source),
        toml_string(by),
        toml_string(fmt::format("{} {} GEMM {}x{}x{}", run->backend, dtype_name(dtype),
                                run->shape.m, run->shape.n, run->shape.k)),
        toml_string(day), toml_string(peak_note(m, *run, gpu != nullptr)));
  }
  if (!any) throw Error("--save: no GEMM was measured successfully, so there is no rate to save");
  return out;
}

void write_file_atomically(const fs::path& file, std::string_view contents) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::string temp = (dir / fmt::format(".{}.tmp-XXXXXX", file.filename().string())).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw Error(system_error("cannot create a temporary file in", dir));
  const auto fail = [&](const std::string& what) {
    const std::string message = system_error(what, temp);
    close(fd);
    unlink(temp.c_str());
    throw Error(message);
  };
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write");
    written += static_cast<std::size_t>(n);
  }
  if (fchmod(fd, 0644) != 0) fail("cannot chmod");
  if (fsync(fd) != 0) fail("cannot fsync");
  if (close(fd) != 0) {
    const std::string message = system_error("cannot close", temp);
    unlink(temp.c_str());
    throw Error(message);
  }
  if (std::rename(temp.c_str(), file.c_str()) != 0) {
    const std::string message = system_error("cannot rename onto", file);
    unlink(temp.c_str());
    throw Error(message);
  }
  // The rename is durable only once the directory entry is on disk.
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
}

fs::path save_profile(const Measurement& m, std::string_view id, const fs::path& dir) {
  const std::string text = profile_toml(m, id);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw Error(fmt::format("--save: cannot create {}: {}", dir.string(), ec.message()));
  }
  const fs::path file = dir / (std::string(id) + ".toml");
  write_file_atomically(file, text);
  return file;
}

}  // namespace tb::measure
