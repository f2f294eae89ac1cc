// `trainbudget estimate`: memory, FLOPs, hours and a verdict for a training job.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "common.hpp"
#include "step_options.hpp"

namespace tb::cli {

struct EstimateOptions {
  CommonOptions common;
  std::string params{"7e9"};
  std::string model;  // --model: config.json, model folder or preset id
  std::string tokens{"1e9"};
  std::string method{"full"};
  std::string trainable_fraction{"0.02"};
  std::string recipe{"amp-adam"};
  std::string utilization{"0.4"};
  std::string machine;
  std::string devices{"1"};
  std::string zero{"0"};
  std::string lora_rank;
  std::string lora_targets;
  bool no_double_quant{false};
  StepOptions step;
};

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& options);
void run_estimate(const EstimateOptions& options, std::ostream& out);

}  // namespace tb::cli
