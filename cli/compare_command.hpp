// `trainbudget compare`: a model against machines task by task (serve, QLoRA, LoRA, full
// fine-tune, pretraining), the winner of each. Flags come from the compare field table;
// --request gives the same keys in a JSON file.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "fields.hpp"

namespace tb::cli {

struct CompareCommandOptions {
  FieldSlots fields;
  std::string request_file;
};

CLI::App* setup_compare(CLI::App& app, CompareCommandOptions& options);
void run_compare(const CompareCommandOptions& options, std::ostream& out);

}  // namespace tb::cli
