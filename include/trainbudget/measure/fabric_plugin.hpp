// The MPI side of `measure --fabric`: a plugin (libtrainbudget_fabric_mpi.so, built where Open MPI
// or another MPI is found) that the executable loads only for this command, so that nothing else
// pays MPI's start-up or needs it installed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "trainbudget/measure/fabric.hpp"

namespace tb::measure {

// The plugin's one entry point, trainbudget_fabric_measure: initialises MPI, times every
// collective of `options` on every tier, finalises MPI. Returns kFabricRoot on rank 0 with `out`
// filled, kFabricOtherRank on the others (they print nothing), kFabricFailed with a one-line
// reason in `error` on rank 0 when the run failed, kFabricFailedQuietly on the other ranks then.
enum FabricStatus : int {
  kFabricRoot = 0,
  kFabricOtherRank = 1,
  kFabricFailed = 2,
  kFabricFailedQuietly = 3
};
using FabricMeasureFn = int (*)(const FabricOptions* options, FabricMeasurement* out, char* error,
                                std::size_t error_size);
inline constexpr const char* kFabricEntryPoint = "trainbudget_fabric_measure";
inline constexpr const char* kFabricPluginFile = "libtrainbudget_fabric_mpi.so";

// Whether this process was started by an MPI launcher (Open MPI's mpirun, PMI or PMIx: Slurm's
// srun, MPICH's mpiexec).
[[nodiscard]] bool launched_by_mpi();

// Where the plugin is: $TRAINBUDGET_FABRIC_PLUGIN, else beside the executable.
[[nodiscard]] std::filesystem::path fabric_plugin_path();

// Loads the plugin and runs the measurement. nullopt on ranks other than 0. Throws Error with
// the reason when the plugin is missing or the run failed (on rank 0; FabricQuietFailure on
// the others, which should exit non-zero without a word).
struct FabricQuietFailure {};
[[nodiscard]] std::optional<FabricMeasurement> run_fabric(const FabricOptions& options);

}  // namespace tb::measure
