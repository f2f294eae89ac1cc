// `trainbudget plan`: the layouts (and methods, recipes) that fit a machine, ranked by time,
// cost or energy. Flags come from the api's plan field table, a --request file gives the same
// keys; progress goes to stderr for searches that take more than a second.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "fields.hpp"

namespace tb::cli {

struct PlanCommandOptions {
  FieldSlots fields;
  std::string request_file;
  std::vector<std::string> config_files;  // --config, repeatable (docs/configs.md)
  std::string config_format{"auto"};      // --config-format
};

CLI::App* setup_plan(CLI::App& app, PlanCommandOptions& options);
void run_plan(const PlanCommandOptions& options, std::ostream& out);

}  // namespace tb::cli
