// `trainbudget estimate`: parse, validate at the edge, call the library, report.
#include "estimate_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include "measure_command.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/plan/fit_search.hpp"
#include "trainbudget/report/reporter.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/quantity_parse.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::cli {

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Memory (GB = 1e9 B), FLOPs, hours per machine and a verdict for a training job "
      "(the default command)");
  o.machine = std::string{kDefaultMachines};
  CLI::Option* params =
      cmd->add_option("--params", o.params, "Model parameters (count): 7e9, 7B, 70b, 1.5T, 125M")
          ->type_name("COUNT")
          ->default_val("7e9");
  cmd->add_option("--model", o.model,
                  "The model, counted exactly from its architecture (docs/models.md): a "
                  "config.json, a model folder (config.json + safetensors headers) or a preset "
                  "id from data/models (e.g. llama-3.1-8b); replaces --params")
      ->type_name("MODEL")
      ->excludes(params);
  cmd->add_option("--tokens", o.tokens, "Training tokens, all epochs (count, same suffixes)")
      ->type_name("COUNT")
      ->default_val("1e9");
  cmd->add_option("--method", o.method,
                  "full (every weight trained) | lora (adapters on a frozen 16-bit base) | qlora "
                  "(adapters on an NF4 base) | freeze (only the top fraction trained)")
      ->type_name("METHOD")
      ->default_val("full");
  cmd->add_option("--trainable-fraction", o.trainable_fraction,
                  "lora: adapter parameters as a fraction of --params; freeze: fraction "
                  "trained; in (0, 1]")
      ->type_name("FRACTION")
      ->default_val("0.02");
  cmd->add_option("--recipe", o.recipe,
                  "Bytes-per-parameter convention (docs/recipes.md): " + recipe_choices())
      ->type_name("ID")
      ->default_val("amp-adam");
  cmd->add_option("--utilization", o.utilization,
                  "Model-FLOPs utilization (MFU) for the realistic column, in (0, 1]; default "
                  "0.4 (published large runs: 38-56 %)")
      ->type_name("FRACTION")
      ->default_val("0.4");
  cmd->add_option("--machine", o.machine,
                  "Devices to estimate on: ID[:dtype][,ID[:dtype]...] or all; ':dtype' picks "
                  "the rate instead of the recipe's compute dtype; 'local' is this machine, "
                  "measured once with `measure --quick` and saved. Default: the seed's four "
                  "rows")
      ->type_name("LIST")
      ->default_val(std::string{kDefaultMachines});
  cmd->add_option("--devices", o.devices,
                  "Devices per machine, ideal data-parallel scaling (no communication cost)")
      ->type_name("N")
      ->default_val("1");
  cmd->add_option("--zero", o.zero,
                  "ZeRO stage over --devices: 0 (a full replica each), 1 (optimizer states "
                  "partitioned), 2 (+ gradients), 3 (+ weights; FSDP FULL_SHARD)")
      ->type_name("STAGE")
      ->default_val("0");
  cmd->add_option("--lora-rank", o.lora_rank,
                  "LoRA/QLoRA rank r (needs --model): r x (in + out) parameters per adapted "
                  "matrix; default 16")
      ->type_name("R");
  cmd->add_option("--lora-targets", o.lora_targets,
                  "Adapted layers (needs --model): q,k,v,o,gate,up,down, all-linear, or module "
                  "names such as q_proj; default q,v (PEFT's default)")
      ->type_name("LIST");
  cmd->add_flag("--no-double-quant", o.no_double_quant,
                "QLoRA: fp32 absmax per 64 weights instead of double-quantized constants");
  add_step_options(*cmd, o.step);
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
  if (o.model.empty()) {
    job.params = parse_count(o.params, "--params");
  } else {
    job.model = io::load_model(o.model, io::data_dir() / "models");
    job.params = static_cast<double>(job.model.counts->total);
  }
  job.tokens = parse_count(o.tokens, "--tokens");
  job.method = parse_method(o.method);
  job.trainable_fraction =
      parse_number_in(o.trainable_fraction, "--trainable-fraction", 0.0, 1.0, false);
  job.recipe_id = o.recipe;
  job.utilization = parse_number_in(o.utilization, "--utilization", 0.0, 1.0, false);
  job.devices = parse_devices(o.devices);
  if (o.zero != "0" && o.zero != "1" && o.zero != "2" && o.zero != "3") {
    throw InvalidArgument(
        fmt::format("--zero: '{}' is not a ZeRO stage; accepted: 0|1|2|3", o.zero));
  }
  job.zero_stage = o.zero[0] - '0';
  if (!o.lora_rank.empty()) {
    const double rank = parse_number_in(o.lora_rank, "--lora-rank", 1.0, 65536.0, true);
    if (rank != std::floor(rank)) {
      throw InvalidArgument(
          fmt::format("--lora-rank: '{}' must be a whole number >= 1", o.lora_rank));
    }
    job.lora.rank = static_cast<std::int64_t>(rank);
    job.lora_given = true;
  }
  if (!o.lora_targets.empty()) {
    job.lora.targets = parse_lora_targets(o.lora_targets);
    job.lora_given = true;
  }
  job.qlora.double_quant = !o.no_double_quant;
  job.setup = parse_step_options(o.step);
  validate(job);
  const report::Format format = format_of(o.common);

  ensure_local_profile(o.machine, o.common);  // --machine local: measure once, then reuse
  const HardwareCatalog catalog = load_catalog(o.common);
  const std::vector<MachineChoice> machines = parse_machine_list(o.machine, catalog);
  Estimate result = estimate(job, machines);
  if (job.setup.search_fit) add_fits(result);
  report::make_reporter(format)->estimate(result, out);
}

}  // namespace tb::cli
