// Error types: a DataError's message lists every problem of its file.
#include "trainbudget/spec/error.hpp"

#include <fmt/format.h>

namespace tb {
namespace {
std::string join_problems(const std::string& file, const std::vector<std::string>& problems) {
  if (problems.size() == 1) return fmt::format("{}: {}", file, problems.front());
  std::string out = fmt::format("{}: {} problems:", file, problems.size());
  for (const std::string& p : problems) out += fmt::format(" [{}]", p);
  return out;
}
}  // namespace

DataError::DataError(std::string file, std::vector<std::string> problems)
    : Error(join_problems(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

}  // namespace tb
