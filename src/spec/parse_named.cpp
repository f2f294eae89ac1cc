// The problem an unknown enum name raises, with the nearest accepted name.
#include "trainbudget/spec/parse_named.hpp"

#include <fmt/format.h>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {

void unknown_name(const char* key, std::string_view text, const std::string& accepted,
                  const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = closest_names(text, candidates, 1, 3);
  throw InvalidRequest(key,
                       near.empty() ? fmt::format("unknown value '{}'", excerpt(text))
                                    : fmt::format("unknown value '{}'; did you mean '{}'?",
                                                  excerpt(text), near.front()),
                       accepted);
}

}  // namespace tb
