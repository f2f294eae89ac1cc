// `trainbudget measure`: GEMM throughput per backend and dtype, memory bandwidth, the CPU's
// theoretical peak; optionally saved as a machine profile for `estimate --machine NAME`.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "common.hpp"

namespace tb::cli {

struct MeasureCommandOptions {
  bool quick{false};
  bool no_bandwidth{false};
  std::string backend;  // empty: the default backends
  std::string dtype{"all"};
  std::string format{"table"};
  std::optional<std::string> save;
  std::string repetitions;  // empty: 3 quick, 5 full
  std::string sizes;        // empty: the default sweep
  std::string step;         // a request file: time that step's own GEMM shapes
  // --fabric (cli/fabric_command.cpp): collectives under MPI instead of this machine's GEMMs.
  bool fabric{false};
  std::string collectives{"all"};
  std::string timeout;  // seconds per size; empty: 60
  std::string device;   // the saved system's device; empty: local
};

// Exit code when the measurement ran but a backend or a run failed (verification, an error).
inline constexpr int kMeasureFailedExitCode = 3;

CLI::App* setup_measure(CLI::App& app, MeasureCommandOptions& options);
// Returns the exit code: 0, or kMeasureFailedExitCode when some run failed (the report is still
// written).
int run_measure(const MeasureCommandOptions& options, std::ostream& out);

// `estimate --machine local`: when the list names "local" and no device "local" is known, runs
// a quick measurement (progress on stderr) and saves it as "local" in the user's hardware
// directory.
void ensure_local_profile(std::string_view machine_list, const CommonOptions& common);

// The user hardware directory, created and checked writable before anything is measured;
// `field` names the option that needs it in the error.
[[nodiscard]] std::filesystem::path profile_dir(std::string_view field);

// Whether a --machine list ("a:fp32,local,b") names `id`.
[[nodiscard]] bool machine_list_names(std::string_view machine_list, std::string_view id);

}  // namespace tb::cli
