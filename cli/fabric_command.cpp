// `trainbudget measure --fabric`.
#include "fabric_command.hpp"

#include <fmt/format.h>

#include <iostream>

#include "common.hpp"
#include "trainbudget/eval/fabric_check.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/system_toml.hpp"
#include "trainbudget/measure/fabric_plugin.hpp"
#include "trainbudget/measure/profile.hpp"
#include "trainbudget/measure/runner.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::cli {
namespace {

constexpr double kCheckAbove = 1024.0 * 1024;  // the check covers sizes past 1 MiB
constexpr std::string_view kLocal = "local";

// The flags that only mean something for GEMMs.
void refuse_gemm_flags(const MeasureCommandOptions& o) {
  for (const auto& [given, flag] :
       {std::pair{!o.backend.empty(), "--backend"}, std::pair{o.dtype != "all", "--dtype"},
        std::pair{!o.step.empty(), "--step"}, std::pair{o.no_bandwidth, "--no-bandwidth"}}) {
    if (given) {
      throw InvalidArgument(
          fmt::format("{}: not with --fabric (it times GEMMs; --fabric times collectives)", flag));
    }
  }
}

// 8 B to 16 MiB (quick) or to 1 GiB, every factor of 8.
std::vector<double> sizes_of(const MeasureCommandOptions& o) {
  if (!o.sizes.empty()) return measure::parse_fabric_sizes(o.sizes, "sizes");
  std::vector<double> sizes = measure::default_fabric_sizes();
  if (o.quick) std::erase_if(sizes, [](double s) { return s > 16.0 * 1024 * 1024; });
  return sizes;
}

}  // namespace

int run_fabric_measure(const MeasureCommandOptions& o, std::ostream& out) {
  // Every option is checked before MPI starts.
  refuse_gemm_flags(o);
  const report::Format format = report::parse_format(o.format);
  measure::FabricOptions options;
  options.sizes = sizes_of(o);
  options.ops = measure::parse_collectives(o.collectives, "collectives");
  options.repetitions =
      o.repetitions.empty() ? (o.quick ? 3 : 5) : measure::parse_repetitions(o.repetitions);
  options.warmups = o.quick ? 1 : 2;
  if (!o.timeout.empty()) {
    options.timeout_seconds = parse_number_in(o.timeout, "timeout", 1.0, 86400.0, true);
  }
  const std::string device = o.device.empty() ? std::string{kLocal} : o.device;
  std::filesystem::path dir;
  if (o.save) {
    measure::validate_profile_id(*o.save);
    const HardwareCatalog catalog = load_catalog(CommonOptions{});
    if (const System* s = catalog.find_system(*o.save); s != nullptr && s->measured == nullptr) {
      throw InvalidArgument(
          fmt::format("--save: '{}' is a built-in system (data/systems/{}.toml); choose another id",
                      *o.save, *o.save));
    }
    if (device != kLocal && catalog.find(device) == nullptr) {
      throw InvalidRequest(
          "device", fmt::format("'{}' is not in the hardware catalog", device),
          fmt::format("a device id; closest: {}", fmt::join(catalog.closest(device, 3), ", ")));
    }
    dir = profile_dir("save") / "systems";
  }
  if (!measure::launched_by_mpi()) {
    throw InvalidArgument(
        "--fabric: times collectives between MPI ranks, so it runs under an MPI launcher: "
        "`mpirun -n 2 trainbudget measure --fabric --save NAME` on one machine, or with a "
        "hostfile across machines (docs/fabric.md)");
  }
  options.progress = [](std::string_view line) { std::cerr << line << '\n' << std::flush; };

  std::optional<measure::FabricMeasurement> m;
  try {
    m = measure::run_fabric(options);
  } catch (const measure::FabricQuietFailure&) {
    return 1;  // rank 0 says why
  }
  if (!m) return 0;  // not rank 0: rank 0 reports
  report::FabricReport r{*m, {}, {}};
  if (o.save) {
    if (device == kLocal) ensure_local_profile(kLocal, CommonOptions{});
    const System system = measure::fabric_system(*m, *o.save, device);
    const std::filesystem::path file = io::save_system(system, dir);
    const System saved = io::load_system_file(file);  // what estimates will read
    r.saved_id = *o.save;
    r.check = fabric_check(saved, kCheckAbove);
    std::cerr << fmt::format(
        "trainbudget: saved system '{}' to {}; use it with `trainbudget estimate --machine {} "
        "--system {}`\n",
        *o.save, file.string(), device, *o.save);
  }
  report::write(r, format, out, {}, text_width());
  return 0;
}

}  // namespace tb::cli
