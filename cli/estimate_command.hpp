// `trainbudget estimate`: memory, FLOPs, hours and a verdict for a training job. A thin client
// of api::Session: flags come from the api field table, a --request file gives the same keys.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "fields.hpp"

namespace tb::cli {

struct EstimateOptions {
  FieldSlots fields;
  std::string request_file;               // --request job.json
  std::vector<std::string> config_files;  // --config, repeatable (docs/configs.md)
  std::string config_format{"auto"};      // --config-format
};

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& options);
// A JSON request file's fields; "-" reads standard input (capped like a file).
[[nodiscard]] api::FieldMap request_fields(const std::string& path);
// What a command was asked: the --config files' fields (if any; a later file's value replaces an
// earlier one's, the conflict said), overridden by the --request file's keys (if any),
// overridden by the flags given. Each config's mapping and the keys it did not understand are one
// note on stderr.
[[nodiscard]] api::FieldMap request_values(const std::string& request_file,
                                           const FieldSlots& fields,
                                           const std::vector<std::string>& config_files = {},
                                           const std::string& config_format = "auto");
// The --config option of estimate and plan (repeatable: a training config with its DeepSpeed
// and accelerate files).
void add_config_option(CLI::App& cmd, std::vector<std::string>& config_files,
                       std::string& config_format);
void run_estimate(const EstimateOptions& options, std::ostream& out);

}  // namespace tb::cli
