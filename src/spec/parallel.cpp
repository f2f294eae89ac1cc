// Parsing the parallel layout's words.
#include "trainbudget/spec/parallel.hpp"

#include <fmt/format.h>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parse_named.hpp"

namespace tb {

Offload parse_offload(std::string_view text) {
  if (const auto o = enum_from_name<Offload>(text)) return *o;
  throw InvalidRequest(
      "offload",
      fmt::format("unknown value '{}'{}", excerpt(text), did_you_mean(text, names_of<Offload>())),
      enum_choices<Offload>());
}

}  // namespace tb
