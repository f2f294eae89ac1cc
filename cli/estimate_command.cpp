// `trainbudget estimate`: parse, validate at the edge, call the library, report.
#include "estimate_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include "measure_command.hpp"
#include "trainbudget/core/error.hpp"
#include "trainbudget/core/estimate.hpp"
#include "trainbudget/core/quantity_parse.hpp"
#include "trainbudget/core/recipe.hpp"
#include "trainbudget/report/reporter.hpp"

namespace tb::cli {

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Memory (GB = 1e9 B), FLOPs, hours per machine and a verdict for a training job "
      "(the default command)");
  o.machine = std::string{kDefaultMachines};
  cmd->add_option("--params", o.params,
                  "Model parameters (count): 7e9, 7B, 70b, 1.5T, 125M")
      ->default_val("7e9");
  cmd->add_option("--tokens", o.tokens, "Training tokens, all epochs (count, same suffixes)")
      ->default_val("1e9");
  cmd->add_option("--method", o.method,
                  "full (every weight trained) | lora (adapters on a frozen base) | freeze "
                  "(only the top fraction trained)")
      ->default_val("full");
  cmd->add_option("--trainable-fraction", o.trainable_fraction,
                  "lora: adapter parameters as a fraction of --params; freeze: fraction "
                  "trained; in (0, 1]")
      ->default_val("0.02");
  cmd->add_option("--recipe", o.recipe,
                  "Bytes-per-parameter convention (docs/recipes.md): " + recipe_choices())
      ->default_val("amp-adam");
  cmd->add_option("--utilization", o.utilization,
                  "Model-FLOPs utilization (MFU) for the realistic column, in (0, 1]; default "
                  "0.4 (published large runs: 38-56 %)")
      ->default_val("0.4");
  cmd->add_option("--machine", o.machine,
                  "Devices to estimate on: ID[:dtype][,ID[:dtype]...] or all; ':dtype' picks "
                  "the rate instead of the recipe's compute dtype; 'local' is this machine, "
                  "measured once with `measure --quick` and saved. Default: the seed's four "
                  "rows")
      ->default_val(std::string{kDefaultMachines});
  cmd->add_option("--devices", o.devices,
                  "Devices per machine, ideal data-parallel scaling (no communication cost)")
      ->default_val("1");
  add_common_options(*cmd, o.common);
  return cmd;
}

namespace {

int parse_devices(const std::string& text) {
  const double v = parse_number_in(text, "--devices", 1.0, 1e6, true);
  if (v != std::floor(v)) {
    throw InvalidArgument(fmt::format("--devices: '{}' must be a whole number >= 1", text));
  }
  return static_cast<int>(v);
}

}  // namespace

void run_estimate(const EstimateOptions& o, std::ostream& out) {
  TrainingJob job;
  job.params = parse_count(o.params, "--params");
  job.tokens = parse_count(o.tokens, "--tokens");
  job.method = parse_method(o.method);
  job.trainable_fraction = parse_number_in(o.trainable_fraction, "--trainable-fraction", 0.0,
                                           1.0, false);
  job.recipe_id = o.recipe;
  job.utilization = parse_number_in(o.utilization, "--utilization", 0.0, 1.0, false);
  job.devices = parse_devices(o.devices);
  validate(job);
  const report::Format format = format_of(o.common);

  ensure_local_profile(o.machine, o.common);  // --machine local: measure once, then reuse
  const HardwareCatalog catalog = load_catalog(o.common);
  const std::vector<MachineChoice> machines = parse_machine_list(o.machine, catalog);
  const Estimate result = estimate(job, machines);
  report::make_reporter(format)->estimate(result, out);
}

}  // namespace tb::cli
