// `trainbudget hardware list`, `hardware systems` and `hardware show ID`.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "common.hpp"

namespace tb::cli {

struct HardwareOptions {
  CommonOptions common;
  std::string show_id;
};

struct HardwareCommands {
  CLI::App* hardware{nullptr};
  CLI::App* list{nullptr};
  CLI::App* show{nullptr};
  CLI::App* systems{nullptr};
};

HardwareCommands setup_hardware(CLI::App& app, HardwareOptions& options);
void run_hardware_list(const HardwareOptions& options, std::ostream& out);
// A device id shows the device; a system id (data/systems or measured) the system.
void run_hardware_show(const HardwareOptions& options, std::ostream& out);
void run_hardware_systems(const HardwareOptions& options, std::ostream& out);

}  // namespace tb::cli
