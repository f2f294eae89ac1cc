// Reading a kernel-class file (data/kernels/*.toml, docs/time.md "Kernel classes").
#pragma once

#include <filesystem>

#include "trainbudget/spec/kernel_costs.hpp"

namespace tb::io {

// One kernel-class file. Throws DataError naming the file and listing every problem found.
[[nodiscard]] KernelClass load_kernel_class_file(const std::filesystem::path& file);
// The same from text; `origin` names it in messages.
[[nodiscard]] KernelClass parse_kernel_class_toml(std::string_view text, const std::string& origin,
                                                  bool builtin = false);

}  // namespace tb::io
