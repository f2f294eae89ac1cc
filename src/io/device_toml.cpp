// The device TOML schema (docs/hardware-catalog.md), read and written here only: one key table
// for the reader and the writer, every problem of a file reported at once, and the atomic write.
#include "trainbudget/io/device_toml.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "field_reader.hpp"
#include "toml_text.hpp"
#include "toml_write.hpp"
#include "trainbudget/io/save_dir.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/limits.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

// The keys of a device file, shared by build_device() and device_toml().
namespace key {
constexpr std::string_view kId = "id";
constexpr std::string_view kName = "name";
constexpr std::string_view kVendor = "vendor";
constexpr std::string_view kCategory = "category";
constexpr std::string_view kNotes = "notes";
constexpr std::string_view kMemory = "memory";
constexpr std::string_view kCompute = "compute";
constexpr std::string_view kInterconnect = "interconnect";
constexpr std::string_view kPower = "power";
constexpr std::string_view kPrice = "price";
constexpr std::string_view kCapacityGb = "capacity_gb";
constexpr std::string_view kCapacityGib = "capacity_gib";
constexpr std::string_view kBandwidthGbPerS = "bandwidth_gb_per_s";
constexpr std::string_view kBandwidthKind = "bandwidth_kind";
constexpr std::string_view kFirstTouchGbPerS = "first_touch_gb_per_s";
constexpr std::string_view kHostGb = "host_gb";
constexpr std::string_view kSource = "source";
constexpr std::string_view kDenseTflops = "dense_tflops";
constexpr std::string_view kSparseTflops = "sparse_tflops";
constexpr std::string_view kMatmulTflops = "matmul_tflops";
constexpr std::string_view kMatmulSource = "matmul_source";
constexpr std::string_view kKind = "kind";
constexpr std::string_view kNote = "note";
constexpr std::string_view kMeasuredBy = "measured_by";
constexpr std::string_view kMethod = "method";
constexpr std::string_view kDate = "date";
constexpr std::string_view kDirection = "direction";
constexpr std::string_view kTdpW = "tdp_w";
constexpr std::string_view kUsdPerHour = "usd_per_hour";
constexpr std::string_view kGemm = "gemm";
}  // namespace key

// The values of kind and direction.
constexpr std::string_view kSpec = "spec";
constexpr std::string_view kMeasured = "measured";
// A measured GEMM's dimensions: measure --sizes's range.
constexpr Range kGemmDimRange{1, 65536};
constexpr std::string_view kBidirectional = "bidirectional";
constexpr std::string_view kPerDirection = "per-direction";

constexpr std::array<std::string_view, 6> kVendors{"nvidia", "amd",   "google",
                                                   "intel",  "apple", "other"};
constexpr std::array<std::string_view, 7> kCategories{
    "datacenter-gpu", "consumer-gpu", "workstation-gpu", "tpu", "accelerator", "soc", "cpu"};

template <std::size_t N>
bool one_of(std::string_view v, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

template <std::size_t N>
std::string joined(const std::array<std::string_view, N>& set) {
  return fmt::format("{}", fmt::join(set, "|"));
}

using Reader = FieldReader<TomlSource>;

void read_rate(const TomlTable& t, DType dtype, Device& device,
               std::vector<std::string>& problems) {
  const std::string prefix = fmt::format("compute.{}", enum_name(dtype));
  Reader r(t, prefix, problems);
  r.allow_only({key::kDenseTflops, key::kSparseTflops, key::kMatmulTflops, key::kMatmulSource,
                key::kKind, key::kSource, key::kNote, key::kMeasuredBy, key::kMethod, key::kDate});
  ComputeRate rate;
  rate.dtype = dtype;
  const auto dense = r.positive(key::kDenseTflops, true, kTflopsRange);
  const auto sparse = r.positive(key::kSparseTflops, false, kTflopsRange);
  const auto matmul = r.positive(key::kMatmulTflops, false, kTflopsRange);
  rate.matmul_source = r.string(key::kMatmulSource, matmul.has_value());
  if (dense && matmul && *matmul > *dense) {
    problems.push_back(fmt::format(
        "{}: matmul_tflops {} is above dense_tflops {} (a measured ceiling cannot beat the peak)",
        prefix, *matmul, *dense));
  }
  if (matmul) rate.matmul = FlopsPerSecond{*matmul * kTera};
  const std::string kind = r.string(key::kKind, true);
  rate.source = r.string(key::kSource, true);
  rate.note = r.string(key::kNote, false);
  rate.date = r.string(key::kDate, false);
  if (kind == kMeasured) {
    rate.kind = RateKind::kMeasured;
    rate.measured_by = r.string(key::kMeasuredBy, true);
    rate.method = r.string(key::kMethod, true);
  } else if (kind == kSpec) {
    rate.kind = RateKind::kSpec;
    rate.measured_by = r.string(key::kMeasuredBy, false);
    rate.method = r.string(key::kMethod, false);
  } else if (!kind.empty()) {
    problems.push_back(
        fmt::format("{}.kind: '{}' is not one of spec|measured", prefix, excerpt(kind)));
  }
  if (dense && sparse && *sparse < *dense) {
    problems.push_back(fmt::format(
        "{}: sparse_tflops {} is below dense_tflops {} (a sparse figure stored as dense?)", prefix,
        *sparse, *dense));
  }
  if (dense) rate.dense = FlopsPerSecond{*dense * kTera};
  if (sparse) rate.sparse = FlopsPerSecond{*sparse * kTera};
  device.rates.push_back(std::move(rate));
}

Device build_device(const TomlTable& root, const std::string& origin) {
  std::vector<std::string> problems;
  Device d;
  d.origin = origin;
  Reader top(root, "", problems);
  top.allow_only({key::kId, key::kName, key::kVendor, key::kCategory, key::kNotes, key::kMemory,
                  key::kCompute, key::kInterconnect, key::kPower, key::kPrice, key::kGemm});
  d.id = top.string(key::kId, true);
  d.name = top.string(key::kName, true);
  d.vendor = top.string(key::kVendor, true);
  d.category = top.string(key::kCategory, true);
  d.notes = top.string(key::kNotes, false);
  if (!d.vendor.empty() && !one_of(d.vendor, kVendors)) {
    problems.push_back(
        fmt::format("vendor: '{}' is not one of {}", excerpt(d.vendor), joined(kVendors)));
  }
  if (!d.category.empty() && !one_of(d.category, kCategories)) {
    problems.push_back(
        fmt::format("category: '{}' is not one of {}", excerpt(d.category), joined(kCategories)));
  }
  for (std::string problem : {d.id.empty() ? std::string{} : id_problem("id", d.id),
                              text_problem("name", d.name), text_problem("notes", d.notes)}) {
    if (!problem.empty()) problems.push_back(std::move(problem));
  }
  const fs::path stem = fs::path(origin).stem();
  if (!d.id.empty() && fs::path(origin).extension() == ".toml" && stem.string() != d.id) {
    problems.push_back(fmt::format("id: '{}' must equal the file name '{}'", excerpt(d.id),
                                   excerpt(stem.string())));
  }

  if (const TomlTable* mem = top.object(key::kMemory, true)) {
    Reader r(*mem, "memory", problems);
    r.allow_only({key::kCapacityGb, key::kCapacityGib, key::kBandwidthGbPerS, key::kBandwidthKind,
                  key::kFirstTouchGbPerS, key::kHostGb, key::kSource});
    // Exactly one capacity key: the unit is part of the figure (docs/hardware-catalog.md).
    const bool decimal = mem->contains("capacity_gb");
    const bool binary = mem->contains("capacity_gib");
    if (decimal && binary) {
      problems.push_back(
          "memory.capacity_gb, memory.capacity_gib: give exactly one (GiB for HBM/GDDR/LPDDR "
          "figures, GB where the vendor's figure is decimal)");
    } else if (binary) {
      if (auto cap = r.positive(key::kCapacityGib, true, kCapacityRange))
        d.memory_capacity = Bytes{*cap * kGibi};
      d.memory_capacity_unit = CapacityUnit::kGiB;
    } else if (decimal) {
      if (auto cap = r.positive(key::kCapacityGb, true, kCapacityRange))
        d.memory_capacity = Bytes{*cap * kGiga};
    } else {
      problems.push_back(
          "memory.capacity_gib or memory.capacity_gb: missing (a number > 0; GiB for "
          "HBM/GDDR/LPDDR figures)");
    }
    if (auto bw = r.positive(key::kBandwidthGbPerS, false, kBandwidthRange)) {
      d.memory_bandwidth = BytesPerSecond{*bw * kGiga};
    }
    if (auto touch = r.positive(key::kFirstTouchGbPerS, false, kBandwidthRange)) {
      d.first_touch_bandwidth = BytesPerSecond{*touch * kGiga};
    }
    if (auto host = r.positive(key::kHostGb, false, kCapacityRange)) {
      d.host_memory = Bytes{*host * kGiga};
    }
    // "measured": a STREAM-style run saved by the measure command; "spec" or absent: the peak.
    const std::string bw_kind = r.string(key::kBandwidthKind, false);
    if (bw_kind == kMeasured) {
      d.memory_bandwidth_kind = RateKind::kMeasured;
    } else if (!bw_kind.empty() && bw_kind != kSpec) {
      problems.push_back(
          fmt::format("memory.bandwidth_kind: '{}' is not spec|measured", excerpt(bw_kind)));
    }
    d.memory_source = r.string(key::kSource, true);
  }

  if (const TomlTable* compute = top.object(key::kCompute, true)) {
    for (std::size_t k = 0; k < compute->size(); ++k) {
      const std::string& key = compute->keys[k];
      const TomlValue& node = compute->values[k];
      const auto dtype = enum_from_name<DType>(key);
      if (!dtype) {
        problems.push_back(fmt::format("compute.{}: unknown dtype (accepted: {})", excerpt(key),
                                       enum_choices<DType>()));
        continue;
      }
      if (const auto* t = node.as_table()) {
        read_rate(*t, *dtype, d, problems);
      } else {
        problems.push_back(fmt::format("compute.{}: must be a table", excerpt(key)));
      }
    }
    if (compute->empty()) problems.push_back("compute: needs at least one dtype table");
  }

  if (const TomlTable* ic = top.object(key::kInterconnect, false)) {
    Reader r(*ic, "interconnect", problems);
    r.allow_only({key::kName, key::kBandwidthGbPerS, key::kDirection, key::kSource});
    Interconnect link;
    link.name = r.string(key::kName, true);
    if (auto bw = r.positive(key::kBandwidthGbPerS, true, kBandwidthRange))
      link.bandwidth = BytesPerSecond{*bw * kGiga};
    const std::string direction = r.string(key::kDirection, true);
    if (direction == kPerDirection) {
      link.bidirectional = false;
    } else if (direction != kBidirectional && !direction.empty()) {
      problems.push_back(
          fmt::format("interconnect.direction: '{}' is not one of bidirectional|per-direction",
                      excerpt(direction)));
    }
    link.source = r.string(key::kSource, true);
    d.interconnect = std::move(link);
  }

  if (const TomlTable* power = top.object(key::kPower, false)) {
    Reader r(*power, "power", problems);
    r.allow_only({key::kTdpW, key::kSource});
    if (auto watts = r.positive(key::kTdpW, true, kTdpRange)) d.tdp_watts = Watts{*watts};
    d.power_source = r.string(key::kSource, true);
  }

  if (const TomlTable* price = top.object(key::kPrice, false)) {
    Reader r(*price, "price", problems);
    r.allow_only({key::kUsdPerHour, key::kDate, key::kSource});
    Price p;
    if (auto usd = r.positive(key::kUsdPerHour, true, kUsdPerHourRange))
      p.usd_per_hour = DollarsPerHour{*usd};
    p.date = r.string(key::kDate, true);
    p.source = r.string(key::kSource, true);
    d.price = std::move(p);
  }

  // The measured GEMM table: [{m, n, k, dtype, tflops}, ...].
  if (const TomlValue* gemm = root.get(key::kGemm)) {
    const std::vector<TomlValue>* list = gemm->as_array();
    if (list == nullptr) problems.push_back("gemm: must be a list of {m, n, k, dtype, tflops}");
    std::size_t i = 0;
    for (const TomlValue& n : list != nullptr ? *list : std::vector<TomlValue>{}) {
      const std::string prefix = fmt::format("gemm[{}]", i++);
      const TomlTable* row = n.as_table();
      if (row == nullptr) {
        problems.push_back(fmt::format("{}: must be a table {{m, n, k, dtype, tflops}}", prefix));
        continue;
      }
      Reader r(*row, prefix, problems);
      r.allow_only({"m", "n", "k", "dtype", "tflops"});
      MeasuredGemm g;
      g.m = static_cast<std::int64_t>(r.positive("m", true, kGemmDimRange).value_or(0.0));
      g.n = static_cast<std::int64_t>(r.positive("n", true, kGemmDimRange).value_or(0.0));
      g.k = static_cast<std::int64_t>(r.positive("k", true, kGemmDimRange).value_or(0.0));
      const std::string dtype = r.string("dtype", true);
      if (const auto dt = enum_from_name<DType>(dtype)) {
        g.dtype = *dt;
      } else if (!dtype.empty()) {
        problems.push_back(fmt::format("{}.dtype: '{}' is not one of {}", prefix, excerpt(dtype),
                                       enum_choices<DType>()));
      }
      g.rate = FlopsPerSecond{r.positive("tflops", true, kTflopsRange).value_or(0.0) * kTera};
      d.gemm_table.push_back(g);
    }
  }

  if (!problems.empty()) throw DataError(origin, std::move(problems));
  return d;
}

void put(std::string& out, std::string_view key, std::string_view value) {
  out += fmt::format("{} = {}\n", key, value);
}
void put_string(std::string& out, std::string_view key, std::string_view value, bool always) {
  if (always || !value.empty()) put(out, key, toml_string(value));
}

std::string system_error(const std::string& what, const fs::path& path) {
  return fmt::format("{} {}: {}", what, path.string(), std::strerror(errno));
}

}  // namespace

Device parse_device_toml(std::string_view text, const std::string& origin, bool builtin) {
  return build_device(builtin ? read_toml(text, origin) : parse_toml_text(text, origin), origin);
}

std::string device_toml(const Device& d) {
  std::string out = fmt::format("# {}, in the schema of docs/hardware-catalog.md.\n",
                                comment_text(d.name.empty() ? d.id : d.name));
  put_string(out, key::kId, d.id, true);
  put_string(out, key::kName, d.name, true);
  put_string(out, key::kVendor, d.vendor, true);
  put_string(out, key::kCategory, d.category, true);
  put_string(out, key::kNotes, d.notes, false);
  if (!d.gemm_table.empty()) {
    out += fmt::format("{} = [\n", key::kGemm);
    for (const MeasuredGemm& g : d.gemm_table) {
      out += fmt::format("  {{ m = {}, n = {}, k = {}, dtype = \"{}\", tflops = {} }},\n", g.m, g.n,
                         g.k, enum_name(g.dtype), number(g.rate.value() / kTera));
    }
    out += "]\n";
  }

  out += fmt::format("\n[{}]\n", key::kMemory);
  if (d.memory_capacity_unit == CapacityUnit::kGiB) {
    put(out, key::kCapacityGib, number(d.memory_capacity.value() / kGibi));
  } else {
    put(out, key::kCapacityGb, number(d.memory_capacity.value() / kGiga));
  }
  if (d.memory_bandwidth) {
    put(out, key::kBandwidthGbPerS, number(d.memory_bandwidth->value() / kGiga));
    if (d.memory_bandwidth_kind == RateKind::kMeasured)
      put_string(out, key::kBandwidthKind, kMeasured, true);
  }
  if (d.first_touch_bandwidth) {
    put(out, key::kFirstTouchGbPerS, number(d.first_touch_bandwidth->value() / kGiga));
  }
  if (d.host_memory) put(out, key::kHostGb, number(d.host_memory->value() / kGiga));
  put_string(out, key::kSource, d.memory_source, true);

  for (const ComputeRate& r : d.rates) {
    out += fmt::format("\n[{}.{}]\n", key::kCompute, enum_name(r.dtype));
    put(out, key::kDenseTflops, number(r.dense.value() / kTera));
    if (r.sparse) put(out, key::kSparseTflops, number(r.sparse->value() / kTera));
    if (r.matmul) {
      put(out, key::kMatmulTflops, number(r.matmul->value() / kTera));
      put_string(out, key::kMatmulSource, r.matmul_source, true);
    }
    put_string(out, key::kKind, r.kind == RateKind::kMeasured ? kMeasured : kSpec, true);
    put_string(out, key::kSource, r.source, true);
    put_string(out, key::kMeasuredBy, r.measured_by, r.kind == RateKind::kMeasured);
    put_string(out, key::kMethod, r.method, r.kind == RateKind::kMeasured);
    put_string(out, key::kDate, r.date, false);
    put_string(out, key::kNote, r.note, false);
  }
  if (const auto& ic = d.interconnect) {
    out += fmt::format("\n[{}]\n", key::kInterconnect);
    put_string(out, key::kName, ic->name, true);
    put(out, key::kBandwidthGbPerS, number(ic->bandwidth.value() / kGiga));
    put_string(out, key::kDirection, ic->bidirectional ? kBidirectional : kPerDirection, true);
    put_string(out, key::kSource, ic->source, true);
  }
  if (d.tdp_watts) {
    out += fmt::format("\n[{}]\n", key::kPower);
    put(out, key::kTdpW, number(d.tdp_watts->value()));
    put_string(out, key::kSource, d.power_source, true);
  }
  if (const auto& p = d.price) {
    out += fmt::format("\n[{}]\n", key::kPrice);
    put(out, key::kUsdPerHour, number(p->usd_per_hour.value()));
    put_string(out, key::kDate, p->date, true);
    put_string(out, key::kSource, p->source, true);
  }
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

fs::path save_toml_file(const fs::path& dir, const std::string& id, std::string_view text) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw InvalidRequest("save", fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  }
  const fs::path file = dir / (id + ".toml");
  (void)remove_stale_temporaries(dir);
  write_file_atomically(file, text);
  return file;
}

fs::path save_device(const Device& device, const fs::path& dir) {
  return save_toml_file(dir, device.id, device_toml(device));
}

}  // namespace tb::io
