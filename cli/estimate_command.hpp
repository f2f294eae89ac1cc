// `trainbudget estimate`: memory, FLOPs, hours and a verdict for a training job. A thin client
// of api::Session: flags come from the api field table, a --request file gives the same keys.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "fields.hpp"

namespace tb::cli {

struct EstimateOptions {
  FieldSlots fields;
  std::string request_file;           // --request job.json
  std::string config_file;            // --config training_args.json (docs/configs.md)
  std::string config_format{"auto"};  // --config-format
};

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& options);
// A JSON request file's fields; "-" reads standard input (capped like a file).
[[nodiscard]] api::FieldMap request_fields(const std::string& path);
// What a command was asked: a --config file's fields (if any), overridden by the --request
// file's keys (if any), overridden by the flags given. A config's mapping and the keys it did not
// understand are one note on stderr.
[[nodiscard]] api::FieldMap request_values(const std::string& request_file,
                                           const FieldSlots& fields,
                                           const std::string& config_file = {},
                                           const std::string& config_format = "auto");
// The --config option of estimate and plan.
void add_config_option(CLI::App& cmd, std::string& config_file, std::string& config_format);
void run_estimate(const EstimateOptions& options, std::ostream& out);

}  // namespace tb::cli
