// `trainbudget measure`: validate every option first, run the measurement (progress on stderr
// when it is a terminal), report, and save a profile on request.
#include "measure_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "common.hpp"
#include "estimate_command.hpp"
#include "fabric_command.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/save_dir.hpp"
#include "trainbudget/measure/gemm_backend.hpp"
#include "trainbudget/measure/profile.hpp"
#include "trainbudget/measure/runner.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::cli {
namespace {

std::function<void(std::string_view)> stderr_progress() {
  if (isatty(STDERR_FILENO) == 0) return {};
  return [](std::string_view line) { std::cerr << line << '\n' << std::flush; };
}

// A profile must not shadow a built-in device by accident: the loader lets a user file with the
// same id replace ours.
void check_not_builtin(const std::string& id) {
  const std::filesystem::path file = io::data_dir() / "hardware" / (id + ".toml");
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    throw InvalidArgument(fmt::format(
        "--save: '{}' is a built-in device (data/hardware/{}.toml); choose another id", id, id));
  }
}

}  // namespace

// The user hardware directory, created and checked writable before anything is measured;
// `field` names the option that needs it in the error.
std::filesystem::path profile_dir(std::string_view field) {
  const auto dir = io::user_hardware_dir();
  if (!dir) {
    throw InvalidRequest(std::string{field},
                         "no user hardware directory to save to (neither XDG_CONFIG_HOME (an "
                         "absolute path) nor HOME is set)");
  }
  io::prepare_save_dir(*dir, field);
  return *dir;
}

CLI::App* setup_measure(CLI::App& app, MeasureCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "Measure this machine: GEMM throughput per library and dtype (GFLOP/s), memory "
      "bandwidth (STREAM triad, GB/s) and % of the CPU's theoretical peak (docs/measure.md)");
  cmd->add_flag("--quick", o.quick,
                "A short run (under 15 s on 2 cores): 512^3 and 1024^3, and 2048^3 for all "
                "dtypes but fp64, 3 repetitions; a GPU at 8192^3");
  cmd->add_flag("--no-bandwidth", o.no_bandwidth,
                "Skip the STREAM memory-bandwidth runs (a saved profile then has no bandwidth)");
  cmd->add_option("--backend", o.backend,
                  fmt::format("Comma list of {} or all (default: {})",
                              fmt::join(measure::backend_names(), ", "),
                              fmt::join(measure::default_backend_names(), ",")));
  cmd->add_option("--dtype", o.dtype,
                  "Comma list of fp64, fp32, tf32, bf16, fp16, or all: every dtype each "
                  "backend supports")
      ->default_val("all");
  cmd->add_option("--sizes", o.sizes,
                  "GEMM sizes instead of the default sweep: N (N x N x N) or MxNxK, "
                  "comma-separated, e.g. 1024,2048x4096x1024; with --fabric, message sizes in "
                  "bytes with K, M or G (default 8,64,...,1G; --quick to 16M)");
  cmd->add_option("--step", o.step,
                  "A JSON request file (the keys of `estimate --request`): time the GEMM shapes "
                  "of one micro-batch of that job, each call alone with the caches flushed, so "
                  "that a saved profile prices its steps by their own shapes (docs/time.md)")
      ->type_name("FILE");
  cmd->add_option("--repetitions", o.repetitions,
                  "Timed calls per GEMM or collective size (default 3 with --quick, else 5); all "
                  "samples are kept");
  cmd->add_flag("--fabric", o.fabric,
                "Time collectives between ranks instead (run under MPI: mpirun -n N trainbudget "
                "measure --fabric --save NAME): all-reduce, reduce-scatter, all-gather, "
                "all-to-all, broadcast and send/recv, inside each host and between hosts; --save "
                "writes a system for --system NAME (docs/fabric.md)");
  cmd->add_option("--collectives", o.collectives,
                  "With --fabric: comma list of all_reduce, reduce_scatter, all_gather, "
                  "all_to_all, broadcast, send_recv, or all")
      ->default_val("all");
  cmd->add_option("--timeout", o.timeout,
                  "With --fabric: seconds one size of one collective may take before the run "
                  "ends with an error and saves nothing (default 60)");
  cmd->add_option("--device", o.device,
                  "With --fabric --save: the device each rank is, for the saved system "
                  "(default local: this machine's measured profile, measured first if missing)");
  cmd->add_option("--save", o.save,
                  "Save the best rate per dtype and the bandwidth as machine NAME in the user "
                  "hardware directory ($XDG_CONFIG_HOME/trainbudget/hardware); then use "
                  "`estimate --machine NAME`");
  cmd->add_option("--format", o.format,
                  "Output: table (for people), json (docs/json.md), csv, markdown")
      ->default_val("table");
  cmd->footer(
      fmt::format("Exit status {} when a backend failed verification or a run failed; "
                  "the report is printed all the same.",
                  kMeasureFailedExitCode));
  return cmd;
}

int run_measure(const MeasureCommandOptions& o, std::ostream& out) {
  if (o.fabric) return run_fabric_measure(o, out);
  for (const auto& [given, flag] :
       {std::pair{o.collectives != "all", "--collectives"},
        std::pair{!o.timeout.empty(), "--timeout"}, std::pair{!o.device.empty(), "--device"}}) {
    if (given) throw InvalidArgument(fmt::format("{}: only with --fabric", flag));
  }
  // Every option is checked before anything is measured.
  const report::Format format = report::parse_format(o.format);
  measure::MeasureOptions options;
  options.quick = o.quick;
  options.bandwidth = !o.no_bandwidth;
  if (!o.backend.empty()) options.backends = measure::parse_backend_list(o.backend);
  if (o.dtype != "all") options.dtypes = measure::parse_dtype_list(o.dtype);
  if (!o.sizes.empty()) options.shapes = measure::parse_sizes(o.sizes);
  if (!o.step.empty()) {
    if (!o.sizes.empty()) {
      throw InvalidArgument("--step: give either --step or --sizes, not both");
    }
    const api::EstimateRequest request =
        api::parse_estimate_request(request_values(o.step, FieldSlots{}));
    const api::Session session{cli_sources(request.hardware_dir)};
    for (const GemmDims& g : session.step_gemm_shapes(request)) {
      measure::ShapeSpec spec;
      spec.shape = {static_cast<std::int64_t>(g.m), static_cast<std::int64_t>(g.n),
                    static_cast<std::int64_t>(g.k)};
      spec.label = "step";
      spec.cold = true;
      options.shapes.push_back(spec);
    }
  }
  if (!o.repetitions.empty()) options.repetitions = measure::parse_repetitions(o.repetitions);
  std::filesystem::path dir;
  if (o.save) {
    measure::validate_profile_id(*o.save);
    check_not_builtin(*o.save);
    dir = profile_dir("save");
  }
  options.progress = stderr_progress();

  const measure::Measurement m = measure::run_measurement(options);
  report::write(m, format, out, {}, text_width());
  if (o.save) {
    const std::filesystem::path file = io::save_device(measure::profile_device(m, *o.save), dir);
    std::cerr << fmt::format(
        "trainbudget: saved machine '{}' to {}; use it with `trainbudget estimate --machine {}`\n",
        *o.save, file.string(), *o.save);
  }
  return m.any_failed() ? kMeasureFailedExitCode : 0;
}

bool machine_list_names(std::string_view list, std::string_view id) {
  if (list == "all") return false;
  for (const std::string_view entry :
       split_comma_list(list, "machine", "ID[:dtype][,ID[:dtype]...] or all")) {
    if (entry.substr(0, entry.find(':')) == id) return true;
  }
  return false;
}

void ensure_local_profile(std::string_view machine_list, const CommonOptions& common) {
  constexpr std::string_view kLocal = "local";
  if (!machine_list_names(machine_list, kLocal)) return;
  if (load_catalog(common).find(kLocal) != nullptr) return;
  const std::filesystem::path dir = profile_dir("machine");
  std::cerr << "trainbudget: no machine 'local' yet; measuring this machine (measure --quick, "
               "about 15 s)\n"
            << std::flush;
  measure::MeasureOptions options;
  options.quick = true;
  options.progress = stderr_progress();
  const measure::Measurement m = measure::run_measurement(options);
  const std::filesystem::path file = io::save_device(measure::profile_device(m, kLocal), dir);
  std::cerr << fmt::format("trainbudget: saved machine 'local' to {}\n", file.string());
}

}  // namespace tb::cli
