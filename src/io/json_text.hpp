// Every JSON file trainbudget reads (config.json, safetensors headers, index.json) is parsed
// here: nesting is checked by a linear scan before nlohmann builds a DOM (whose copy and dump
// recurse), and a parse error quotes only an excerpt of the offending token.
// Private to the io library.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {

// `what` names the text in messages ("header", or empty for a whole file).
inline nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                                      std::string_view what = {}) {
  const std::string subject =
      what.empty() ? std::string{"not valid JSON"} : fmt::format("{} is not valid JSON", what);
  if (const std::size_t depth = json_nesting_depth(text); depth > kMaxJsonDepth) {
    throw DataError(origin, {fmt::format("{}: nested {} levels deep, past the {} accepted", subject,
                                         depth, kMaxJsonDepth)});
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(origin, {fmt::format("{}: {}", subject, excerpt(e.what(), 300))});
  }
}

}  // namespace tb::io
