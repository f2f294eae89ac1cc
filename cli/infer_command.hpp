// `trainbudget infer`: the serving budget of a model on machines (weights, KV cache, prefill,
// decode, concurrency). Flags come from the api's infer field table; --request gives the same
// keys in a JSON file.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "fields.hpp"

namespace tb::cli {

struct InferCommandOptions {
  FieldSlots fields;
  std::string request_file;
};

CLI::App* setup_infer(CLI::App& app, InferCommandOptions& options);
void run_infer(const InferCommandOptions& options, std::ostream& out);

}  // namespace tb::cli
