// TOML -> Device, with every problem of a file reported at once.
#include "trainbudget/io/hardware_loader.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "trainbudget/build_info.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

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

// Reads typed values out of one table and records what is wrong, without stopping.
class Reader {
 public:
  Reader(const toml::table& table, std::string prefix, std::vector<std::string>& problems)
      : table_(table), prefix_(std::move(prefix)), problems_(problems) {}

  void allow_only(std::initializer_list<std::string_view> keys) {
    for (auto&& [key, node] : table_) {
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) {
        problems_.push_back(
            fmt::format("{}: unknown key (accepted: {})", name(key.str()), fmt::join(keys, ", ")));
      }
    }
  }

  std::string string(std::string_view key, bool required) {
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      if (required) problems_.push_back(fmt::format("{}: missing (a string)", name(key)));
      return {};
    }
    if (const auto* s = node->as_string()) {
      if (required && s->get().empty()) problems_.push_back(fmt::format("{}: empty", name(key)));
      return s->get();
    }
    problems_.push_back(fmt::format("{}: must be a string", name(key)));
    return {};
  }

  std::optional<double> positive(std::string_view key, bool required) {
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      if (required) problems_.push_back(fmt::format("{}: missing (a number > 0)", name(key)));
      return std::nullopt;
    }
    std::optional<double> value;
    if (const auto* i = node->as_integer()) value = static_cast<double>(i->get());
    if (const auto* f = node->as_floating_point()) value = f->get();
    if (!value) {
      problems_.push_back(fmt::format("{}: must be a number", name(key)));
      return std::nullopt;
    }
    if (!std::isfinite(*value) || *value <= 0.0) {
      problems_.push_back(fmt::format("{}: {} must be a finite number > 0", name(key), *value));
      return std::nullopt;
    }
    return value;
  }

  const toml::table* subtable(std::string_view key, bool required) {
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      if (required) problems_.push_back(fmt::format("{}: missing table", name(key)));
      return nullptr;
    }
    if (const auto* t = node->as_table()) return t;
    problems_.push_back(fmt::format("{}: must be a table", name(key)));
    return nullptr;
  }

  [[nodiscard]] std::string name(std::string_view key) const {
    return prefix_.empty() ? std::string{key} : fmt::format("{}.{}", prefix_, key);
  }

 private:
  const toml::table& table_;
  std::string prefix_;
  std::vector<std::string>& problems_;
};

void read_rate(const toml::table& t, DType dtype, Device& device,
               std::vector<std::string>& problems) {
  const std::string prefix = fmt::format("compute.{}", dtype_name(dtype));
  Reader r(t, prefix, problems);
  r.allow_only(
      {"dense_tflops", "sparse_tflops", "kind", "source", "note", "measured_by", "method", "date"});
  ComputeRate rate;
  rate.dtype = dtype;
  const auto dense = r.positive("dense_tflops", true);
  const auto sparse = r.positive("sparse_tflops", false);
  const std::string kind = r.string("kind", true);
  rate.source = r.string("source", true);
  rate.note = r.string("note", false);
  rate.date = r.string("date", false);
  if (kind == "measured") {
    rate.kind = RateKind::kMeasured;
    rate.measured_by = r.string("measured_by", true);
    rate.method = r.string("method", true);
  } else if (kind == "spec") {
    rate.kind = RateKind::kSpec;
    rate.measured_by = r.string("measured_by", false);
    rate.method = r.string("method", false);
  } else if (!kind.empty()) {
    problems.push_back(fmt::format("{}.kind: '{}' is not one of spec|measured", prefix, kind));
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

Device build_device(const toml::table& root, const std::string& origin) {
  std::vector<std::string> problems;
  Device d;
  d.origin = origin;
  Reader top(root, "", problems);
  top.allow_only({"id", "name", "vendor", "category", "notes", "memory", "compute", "interconnect",
                  "power", "price"});
  d.id = top.string("id", true);
  d.name = top.string("name", true);
  d.vendor = top.string("vendor", true);
  d.category = top.string("category", true);
  d.notes = top.string("notes", false);
  if (!d.vendor.empty() && !one_of(d.vendor, kVendors)) {
    problems.push_back(fmt::format("vendor: '{}' is not one of {}", d.vendor, joined(kVendors)));
  }
  if (!d.category.empty() && !one_of(d.category, kCategories)) {
    problems.push_back(
        fmt::format("category: '{}' is not one of {}", d.category, joined(kCategories)));
  }
  const fs::path stem = fs::path(origin).stem();
  if (!d.id.empty() && fs::path(origin).extension() == ".toml" && stem.string() != d.id) {
    problems.push_back(fmt::format("id: '{}' must equal the file name '{}'", d.id, stem.string()));
  }

  if (const toml::table* mem = top.subtable("memory", true)) {
    Reader r(*mem, "memory", problems);
    r.allow_only({"capacity_gb", "capacity_gib", "bandwidth_gb_per_s", "source"});
    // Exactly one capacity key: the unit is part of the figure (docs/hardware-catalog.md).
    const bool decimal = mem->contains("capacity_gb");
    const bool binary = mem->contains("capacity_gib");
    if (decimal && binary) {
      problems.push_back(
          "memory.capacity_gb, memory.capacity_gib: give exactly one (GiB for HBM/GDDR/LPDDR "
          "figures, GB where the vendor's figure is decimal)");
    } else if (binary) {
      if (auto cap = r.positive("capacity_gib", true)) d.memory_capacity = Bytes{*cap * kGibi};
      d.memory_capacity_unit = CapacityUnit::kGiB;
    } else if (decimal) {
      if (auto cap = r.positive("capacity_gb", true)) d.memory_capacity = Bytes{*cap * kGiga};
    } else {
      problems.push_back(
          "memory.capacity_gib or memory.capacity_gb: missing (a number > 0; GiB for "
          "HBM/GDDR/LPDDR figures)");
    }
    if (auto bw = r.positive("bandwidth_gb_per_s", false)) {
      d.memory_bandwidth = BytesPerSecond{*bw * kGiga};
    }
    d.memory_source = r.string("source", true);
  }

  if (const toml::table* compute = top.subtable("compute", true)) {
    for (auto&& [key, node] : *compute) {
      const auto dtype = parse_dtype(key.str());
      if (!dtype) {
        problems.push_back(
            fmt::format("compute.{}: unknown dtype (accepted: {})", key.str(), dtype_choices()));
        continue;
      }
      if (const auto* t = node.as_table()) {
        read_rate(*t, *dtype, d, problems);
      } else {
        problems.push_back(fmt::format("compute.{}: must be a table", key.str()));
      }
    }
    if (compute->empty()) problems.push_back("compute: needs at least one dtype table");
  }

  if (const toml::table* ic = top.subtable("interconnect", false)) {
    Reader r(*ic, "interconnect", problems);
    r.allow_only({"name", "bandwidth_gb_per_s", "direction", "source"});
    Interconnect link;
    link.name = r.string("name", true);
    if (auto bw = r.positive("bandwidth_gb_per_s", true))
      link.bandwidth = BytesPerSecond{*bw * kGiga};
    const std::string direction = r.string("direction", true);
    if (direction == "per-direction") {
      link.bidirectional = false;
    } else if (direction != "bidirectional" && !direction.empty()) {
      problems.push_back(fmt::format(
          "interconnect.direction: '{}' is not one of bidirectional|per-direction", direction));
    }
    link.source = r.string("source", true);
    d.interconnect = std::move(link);
  }

  if (const toml::table* power = top.subtable("power", false)) {
    Reader r(*power, "power", problems);
    r.allow_only({"tdp_w", "source"});
    d.tdp_watts = r.positive("tdp_w", true);
    d.power_source = r.string("source", true);
  }

  if (const toml::table* price = top.subtable("price", false)) {
    Reader r(*price, "price", problems);
    r.allow_only({"usd_per_hour", "date", "source"});
    Price p;
    if (auto usd = r.positive("usd_per_hour", true)) p.usd_per_hour = *usd;
    p.date = r.string("date", true);
    p.source = r.string("source", true);
    d.price = std::move(p);
  }

  if (!problems.empty()) throw DataError(origin, std::move(problems));
  return d;
}

}  // namespace

Device parse_device_toml(std::string_view text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw DataError(origin, {fmt::format("TOML syntax error at line {}, column {}: {}", where.line,
                                         where.column, e.description())});
  }
  return build_device(root, origin);
}

Device load_device_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string(), {"cannot be opened"});
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_device_toml(buffer.str(), file.string());
}

std::vector<fs::path> toml_files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") {
      files.push_back(entry.path());
    }
  }
  if (ec) throw DataError(dir.string(), {fmt::format("cannot be listed: {}", ec.message())});
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Device> load_device_dir(const fs::path& dir) {
  const std::vector<fs::path> files = toml_files_in(dir);
  std::vector<Device> out;
  out.reserve(files.size());
  for (const fs::path& f : files) out.push_back(load_device_file(f));
  return out;
}

fs::path data_dir() {
  if (const char* env = std::getenv("TRAINBUDGET_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  if (fs::is_directory(build_info::kSourceDataDir, ec)) return build_info::kSourceDataDir;
  return build_info::kInstallDataDir;
}

std::optional<fs::path> user_hardware_dir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "trainbudget" / "hardware";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".config" / "trainbudget" / "hardware";
  }
  return std::nullopt;
}

CatalogSources default_catalog_sources(const std::optional<fs::path>& hardware_dir) {
  CatalogSources s;
  s.builtin_dir = data_dir() / "hardware";
  if (auto user = user_hardware_dir()) s.user_dirs.push_back(*user);
  if (hardware_dir) {
    std::error_code ec;
    if (!fs::is_directory(*hardware_dir, ec)) {
      throw InvalidArgument(
          fmt::format("--hardware-dir: '{}' is not a directory", hardware_dir->string()));
    }
    s.user_dirs.push_back(*hardware_dir);
  }
  return s;
}

HardwareCatalog load_catalog(const CatalogSources& sources) {
  std::error_code ec;
  if (!fs::is_directory(sources.builtin_dir, ec)) {
    throw DataError(sources.builtin_dir.string(),
                    {"the built-in hardware catalog is missing (set TRAINBUDGET_DATA_DIR to the "
                     "folder that holds hardware/)"});
  }
  HardwareCatalog catalog(load_device_dir(sources.builtin_dir));
  for (const fs::path& dir : sources.user_dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    for (Device& d : load_device_dir(dir)) catalog.put(std::move(d));
  }
  return catalog;
}

}  // namespace tb::io
