// Error types: a DataError's message lists every problem of its file.
#include "trainbudget/spec/error.hpp"

#include <fmt/format.h>

#include "trainbudget/spec/excerpt.hpp"

namespace tb {
namespace {
// A file with a thousand problems shows the first few; each line stays short and printable.
constexpr std::size_t kListedProblems = 10;
constexpr std::size_t kProblemBytes = 600;

std::string join_problems(const std::string& file, const std::vector<std::string>& problems) {
  if (problems.size() == 1) {
    return one_line(plain_refs(fmt::format("{}: {}", file, problems.front())));
  }
  std::string out = fmt::format("{}: {} problems:", plain_refs(file), problems.size());
  for (std::size_t i = 0; i < problems.size() && i < kListedProblems; ++i) {
    out += fmt::format(" [{}]", one_line(plain_refs(problems[i]), kProblemBytes));
  }
  if (problems.size() > kListedProblems) {
    out += fmt::format(" (and {} more)", problems.size() - kListedProblems);
  }
  return one_line(out, kListedProblems * (kProblemBytes + 16) + 400);
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

namespace {
// A request with hundreds of problems shows the first ten and how many more.
std::vector<Problem> first_problems(std::vector<Problem> problems) {
  if (problems.size() > kListedProblems) {
    const std::size_t more = problems.size() - kListedProblems;
    problems.resize(kListedProblems);
    problems.push_back({"", fmt::format("and {} more problems", more), ""});
  }
  return problems;
}
}  // namespace

// The list is cut before the base is built, so what() and problems() agree.
InvalidRequest::InvalidRequest(std::vector<Problem> problems)
    : InvalidArgument(join_requests(problems = first_problems(std::move(problems)))),
      problems_(std::move(problems)) {}

InvalidRequest::InvalidRequest(std::string field, std::string message, std::string accepted)
    : InvalidRequest(
          std::vector<Problem>{{std::move(field), std::move(message), std::move(accepted)}}) {}

DataError::DataError(std::string file, std::vector<std::string> problems)
    : Error(join_problems(file, problems)),
      file_(std::move(file)),
      problems_(std::move(problems)) {}

}  // namespace tb
