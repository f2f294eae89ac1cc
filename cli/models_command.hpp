// `trainbudget models`: the model presets --model takes by id (data/models), with their family,
// published parameter count and Hugging Face repo.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "common.hpp"

namespace tb::cli {

struct ModelsOptions {
  CommonOptions common;
  std::string family;  // only the presets of this family ("llama", "qwen3_moe", ...) when set
};

CLI::App* setup_models(CLI::App& app, ModelsOptions& options);
void run_models(const ModelsOptions& options, std::ostream& out);

}  // namespace tb::cli
