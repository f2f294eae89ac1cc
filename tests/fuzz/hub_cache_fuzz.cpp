// libFuzzer target: the bytes of a Hugging Face cache ref (refs/main) -> hf_cached_snapshot
// (io/model_loader.hpp). A DataError names a broken entry; a snapshot found is always inside the
// repo's snapshots/ folder, whatever the ref says.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/spec/error.hpp"

namespace fs = std::filesystem;

// Files go to /dev/shm where there is one: the target writes a file every execution.
inline std::filesystem::path scratch_root() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path hub = [] {
    const fs::path h = scratch_root() / ("tb-hub-fuzz-" + std::to_string(getpid()));
    const fs::path repo = h / "models--acme--tiny";
    fs::create_directories(repo / "refs");
    fs::create_directories(repo / "snapshots" / "c0ffee");
    std::ofstream{repo / "snapshots" / "c0ffee" / "config.json"} << "{}";
    setenv("HF_HUB_CACHE", h.c_str(), 1);
    return h;
  }();
  const fs::path snapshots = hub / "models--acme--tiny" / "snapshots";
  {
    std::ofstream out(hub / "models--acme--tiny" / "refs" / "main",
                      std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const auto found = tb::io::hf_cached_snapshot("acme/tiny");
    if (found && found->parent_path() != snapshots) __builtin_trap();
  } catch (const tb::DataError&) {
  }
  return 0;
}
