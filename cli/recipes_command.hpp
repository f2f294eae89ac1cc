// `trainbudget recipes`: every bytes-per-parameter convention side by side.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "common.hpp"

namespace tb::cli {

struct RecipesOptions {
  CommonOptions common;
  std::string params{"7e9"};
};

CLI::App* setup_recipes(CLI::App& app, RecipesOptions& options);
void run_recipes(const RecipesOptions& options, std::ostream& out);

}  // namespace tb::cli
