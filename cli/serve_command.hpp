// `trainbudget serve`: the web page and its JSON API on a local address (docs/serve.md).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace tb::cli {

struct ServeCommandOptions {
  std::string host{"127.0.0.1"};
  int port{8080};
  std::optional<std::string> hardware_dir;
};

CLI::App* setup_serve(CLI::App& app, ServeCommandOptions& options);
// Serves until stopped; returns the exit code (1 when the address cannot be bound).
int run_serve(const ServeCommandOptions& options);

}  // namespace tb::cli
