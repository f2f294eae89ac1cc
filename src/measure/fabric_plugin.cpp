// Loading the MPI plugin of the fabric measurement.
#include "trainbudget/measure/fabric_plugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "trainbudget/spec/error.hpp"

namespace tb::measure {

bool launched_by_mpi() {
  // Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), PMIx launchers (PMIX_RANK: Open MPI 5, Slurm),
  // PMI-1/2 launchers (PMI_SIZE: MPICH's Hydra, Slurm's srun --mpi=pmi2).
  constexpr std::array<const char*, 3> kVariables{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"};
  for (const char* name : kVariables) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return true;
  }
  return false;
}

std::filesystem::path fabric_plugin_path() {
  if (const char* env = std::getenv("TRAINBUDGET_FABRIC_PLUGIN"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : exe.parent_path()) / kFabricPluginFile;
}

std::optional<FabricMeasurement> run_fabric(const FabricOptions& options) {
  const std::filesystem::path path = fabric_plugin_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(fmt::format(
        "measure: the fabric measurement needs MPI, and this build has no MPI plugin ({} is "
        "missing): install Open MPI (Debian: libopenmpi-dev openmpi-bin) and rebuild",
        path.string()));
  }
  // RTLD_GLOBAL: Open MPI's components, loaded by libmpi with dlopen, resolve libmpi's own
  // symbols globally. The handle is never closed; MPI's threads may outlive the call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw Error(fmt::format("measure: cannot load the MPI plugin {}: {}", path.string(),
                            why != nullptr ? why : "dlopen failed"));
  }
  // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
  const auto measure = reinterpret_cast<FabricMeasureFn>(  // NOLINT
      dlsym(handle, kFabricEntryPoint));
  if (measure == nullptr) {
    throw Error(fmt::format("measure: {} has no {}", path.string(), kFabricEntryPoint));
  }
  FabricMeasurement out;
  std::array<char, 1024> error{};
  const int status = measure(&options, &out, error.data(), error.size());
  if (status == kFabricOtherRank) return std::nullopt;
  if (status == kFabricFailedQuietly) throw FabricQuietFailure{};
  if (status != kFabricRoot) throw Error(fmt::format("measure: {}", error.data()));
  return out;
}

}  // namespace tb::measure
