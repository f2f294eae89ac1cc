// Splitting and trimming comma lists, with one message for an empty entry.
#include "trainbudget/spec/comma_list.hpp"

#include <fmt/format.h>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {
namespace {

std::string_view trimmed(std::string_view item) {
  constexpr std::string_view kBlank = " \t";
  const std::size_t first = item.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return item.substr(first, item.find_last_not_of(kBlank) - first + 1);
}

}  // namespace

std::vector<std::string_view> split_comma_list(std::string_view text, std::string_view field,
                                               std::string_view expected) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        trimmed(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (item.empty()) {
      throw InvalidRequest(std::string{field}, fmt::format("empty entry in '{}'", excerpt(text)),
                           std::string{expected});
    }
    out.push_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace tb
