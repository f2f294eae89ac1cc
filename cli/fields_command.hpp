// `trainbudget fields`: a request's field table (estimate by default; --command plan, infer,
// compare), as the CLI flags and the JSON keys
// of a request file (docs/fields.md is this command's Markdown output).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

#include "common.hpp"

namespace tb::cli {

struct FieldsOptions {
  CommonOptions common;
  std::string command{"estimate"};  // whose table: estimate | plan | infer | compare
};

CLI::App* setup_fields(CLI::App& app, FieldsOptions& options);
void run_fields(const FieldsOptions& options, std::ostream& out);

}  // namespace tb::cli
