// The kernel-class TOML schema (docs/time.md, "Kernel classes"): the figures the analytic cost
// backend prices kernels with, each with its source; every problem of a file reported at once.
#include "trainbudget/io/kernel_class_toml.hpp"

#include <fmt/format.h>

#include "field_reader.hpp"
#include "toml_text.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/limits.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

using Reader = FieldReader<TomlSource>;

constexpr Range kShareRange{1e-3, 1.0};
constexpr Range kMicrosecondsRange{1e-3, 1e4};
constexpr Range kTileRange{8, 1024};
constexpr Range kUnitsRange{1, 1e5};
constexpr Range kFreshMibRange{1e-3, 1e6};

// A list of kAttentionSeqPoints.size() achieved TFLOP/s, one per sequence point, as shares of
// `peak`.
void read_curve(const TomlTable& t, std::string_view key, const std::string& prefix, double peak,
                std::array<double, kAttentionSeqPoints.size()>& out,
                std::vector<std::string>& problems) {
  const std::vector<TomlValue>* list = t.array(key);
  const std::string name = fmt::format("{}.{}", prefix, key);
  if (list == nullptr || list->size() != out.size()) {
    problems.push_back(fmt::format("{}: must be a list of {} TFLOP/s figures (sequence {})", name,
                                   out.size(), fmt::join(kAttentionSeqPoints, ", ")));
    return;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::optional<double> v = (*list)[i].value<double>();
    if (!v || !std::isfinite(*v) || *v <= 0.0 || *v > peak) {
      problems.push_back(
          fmt::format("{}[{}]: must be a number > 0 and at most measured_on_tflops "
                      "{:g}",
                      name, i, peak));
      return;
    }
    out[i] = *v / peak;
  }
}

void read_attention(const TomlTable& t, const std::string& prefix, AttentionTable& out,
                    std::vector<std::string>& problems) {
  Reader r(t, prefix, problems);
  r.allow_only({"measured_on_tflops", "source", "forward_64", "forward_128", "forward_256",
                "backward_64", "backward_128", "backward_256"});
  r.string("source", true);
  const double peak = r.positive("measured_on_tflops", true, kTflopsRange).value_or(1.0);
  constexpr std::array<std::string_view, 3> kForward{"forward_64", "forward_128", "forward_256"};
  constexpr std::array<std::string_view, 3> kBackward{"backward_64", "backward_128",
                                                      "backward_256"};
  for (std::size_t i = 0; i < kAttentionHeadDims.size(); ++i) {
    read_curve(t, kForward[i], prefix, peak, out.forward[i], problems);
    read_curve(t, kBackward[i], prefix, peak, out.backward[i], problems);
  }
  out.present = true;
}

KernelClass build_class(const TomlTable& root, const std::string& origin) {
  std::vector<std::string> problems;
  KernelClass k;
  k.origin = origin;
  Reader top(root, "", problems);
  top.allow_only({"id", "name", "tile_m", "tile_n", "tile_source", "elementwise_efficiency",
                  "elementwise_source", "launch_gap_us", "dispatch_eager_us",
                  "dispatch_compiled_us", "dispatch_fused_us", "launch_source", "devices",
                  "categories", "collective_channels", "collective_source", "attention",
                  "fresh_tensor_mib", "fresh_tensor_source"});
  k.id = top.string("id", true);
  k.name = top.string("name", true);
  const fs::path stem = fs::path(origin).stem();
  if (!k.id.empty() && stem.string() != k.id) {
    problems.push_back(fmt::format("id: '{}' must equal the file name '{}'", excerpt(k.id),
                                   excerpt(stem.string())));
  }
  KernelCosts& c = k.costs;
  c.tile_m = top.positive("tile_m", true, kTileRange).value_or(128);
  c.tile_n = top.positive("tile_n", true, kTileRange).value_or(128);
  c.elementwise_efficiency =
      top.positive("elementwise_efficiency", true, kShareRange).value_or(0.8);
  c.launch_gap_s = top.positive("launch_gap_us", true, kMicrosecondsRange).value_or(0.0) * 1e-6;
  c.dispatch_s[static_cast<std::size_t>(Dispatch::kEager)] =
      top.positive("dispatch_eager_us", true, kMicrosecondsRange).value_or(0.0) * 1e-6;
  c.dispatch_s[static_cast<std::size_t>(Dispatch::kCompiled)] =
      top.positive("dispatch_compiled_us", true, kMicrosecondsRange).value_or(0.0) * 1e-6;
  c.dispatch_s[static_cast<std::size_t>(Dispatch::kFused)] =
      top.positive("dispatch_fused_us", true, kMicrosecondsRange).value_or(0.0) * 1e-6;
  c.collective_units =
      static_cast<int>(top.positive("collective_channels", false, kUnitsRange).value_or(0.0));
  if (c.collective_units > 0) top.string("collective_source", true);
  c.fresh_tensor_bytes =
      top.positive("fresh_tensor_mib", false, kFreshMibRange).value_or(0.0) * 1024.0 * 1024.0;
  std::string fresh_source;
  if (c.fresh_tensor_bytes > 0.0) fresh_source = top.string("fresh_tensor_source", true);
  const std::string sources[] = {top.string("tile_source", true),
                                 top.string("elementwise_source", true),
                                 top.string("launch_source", true)};
  k.source =
      fmt::format("tile: {}\nelement-wise: {}\nlaunch: {}", sources[0], sources[1], sources[2]);
  if (!fresh_source.empty()) k.source += fmt::format("\nfresh tensors: {}", fresh_source);
  if (const std::vector<TomlValue>* categories = root.array("categories")) {
    for (const TomlValue& n : *categories) {
      if (const auto v = n.value<std::string>()) {
        k.categories.push_back(*v);
      } else {
        problems.push_back("categories: must be a list of device categories");
      }
    }
  }
  if (const std::vector<TomlValue>* devices = root.array("devices")) {
    std::size_t i = 0;
    for (const TomlValue& n : *devices) {
      const std::string prefix = fmt::format("devices[{}]", i++);
      const TomlTable* d = n.as_table();
      if (d == nullptr) {
        problems.push_back(
            fmt::format("{}: must be a table {{id, compute_units, source}}", prefix));
        continue;
      }
      Reader r(*d, prefix, problems);
      r.allow_only({"id", "compute_units", "source"});
      k.devices.push_back(r.string("id", true));
      k.compute_units.push_back(
          static_cast<int>(r.positive("compute_units", false, kUnitsRange).value_or(0)));
      if (r.present("compute_units")) r.string("source", true);
    }
  } else {
    problems.push_back("devices: missing (a list of {id, compute_units, source} tables)");
  }
  if (const TomlTable* attention = top.object("attention", false)) {
    Reader r(*attention, "attention", problems);
    r.allow_only({"flash2", "vendor", "flash1"});
    if (const TomlTable* t = r.object("flash2", true)) {
      read_attention(*t, "attention.flash2", c.flash2, problems);
    }
    if (const TomlTable* t = r.object("vendor", false)) {
      read_attention(*t, "attention.vendor", c.vendor, problems);
    }
    if (const TomlTable* t = r.object("flash1", false)) {
      read_attention(*t, "attention.flash1", c.flash1, problems);
    }
  }
  if (!problems.empty()) throw DataError(origin, std::move(problems));
  return k;
}

}  // namespace

KernelClass parse_kernel_class_toml(std::string_view text, const std::string& origin,
                                    bool builtin) {
  return build_class(builtin ? read_toml(text, origin) : parse_toml_text(text, origin), origin);
}

KernelClass load_kernel_class_file(const fs::path& file) {
  const std::string text = read_regular_file(file, kMaxTomlBytes);
  return build_class(parse_toml_text(text, shown(file)), shown(file));
}

}  // namespace tb::io
