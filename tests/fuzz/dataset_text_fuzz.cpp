// libFuzzer target: a dataset file's bytes -> count_dataset_text (io/dataset_text.hpp), as JSON
// Lines and as one JSON document. An InvalidRequest naming dataset_file is the answer to bad
// input; counts are never negative.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "trainbudget/io/dataset_text.hpp"
#include "trainbudget/spec/error.hpp"

// Files go to /dev/shm where there is one: the target writes a file every execution.
inline std::filesystem::path scratch_root() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir = [] {
    auto d = scratch_root() / ("tb-dataset-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  for (const char* name : {"d.jsonl", "d.json"}) {
    const std::filesystem::path file = dir / name;
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
      const tb::io::DatasetText t = tb::io::count_dataset_text(file);
      if (t.bytes < 0 || t.records < 0 || t.characters < 0) __builtin_trap();
    } catch (const tb::InvalidRequest& e) {
      if (e.problems().empty() || e.problems().front().field != "dataset_file") __builtin_trap();
    }
  }
  return 0;
}
