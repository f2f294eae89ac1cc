// `trainbudget measure --fabric`: collectives timed under MPI, reported as nccl-tests does and
// saved as a system (docs/fabric.md).
#pragma once

#include <ostream>

#include "measure_command.hpp"

namespace tb::cli {

// Checks every option, runs the MPI plugin; rank 0 reports and saves, the other ranks print
// nothing. Returns the exit code.
int run_fabric_measure(const MeasureCommandOptions& options, std::ostream& out);

}  // namespace tb::cli
