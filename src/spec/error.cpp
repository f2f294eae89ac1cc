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
std::string join_requests(const std::vector<Problem>& problems) {
  std::string out;
  for (const Problem& p : problems) {
    if (!out.empty()) out += "\n";
    out += render_problem(p, [](const std::string& key) { return key; });
  }
  return out;
}

}  // namespace

InvalidRequest::InvalidRequest(std::vector<Problem> problems)
    : InvalidArgument(join_requests(problems)), problems_(std::move(problems)) {}

InvalidRequest::InvalidRequest(std::string field, std::string message, std::string accepted)
    : InvalidRequest(
          std::vector<Problem>{{std::move(field), std::move(message), std::move(accepted)}}) {}

DataError::DataError(std::string file, std::vector<std::string> problems)
    : Error(join_problems(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

}  // namespace tb
