// Preset suggestions by family and size, then spelling (preset_suggestions.hpp).
#include "trainbudget/io/preset_suggestions.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include "trainbudget/spec/closest.hpp"

namespace tb::io {
namespace {

// The parts of a preset id or a name the user typed: "llama-3-70b" -> llama, 3, 70b.
std::vector<std::string> id_parts(std::string_view text) {
  std::vector<std::string> out;
  std::string part;
  for (const char c : text) {
    if (c == '-' || c == '_' || c == '/' || c == ' ') {
      if (!part.empty()) out.push_back(part);
      part.clear();
    } else {
      part += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!part.empty()) out.push_back(part);
  return out;
}

// A size part: digits, maybe a decimal or an "NxM" count of experts, then b or m ("70b", "8x7b").
bool is_size(const std::string& part) {
  if (part.size() < 2 || (part.back() != 'b' && part.back() != 'm')) return false;
  return std::isdigit(static_cast<unsigned char>(part.front())) != 0 &&
         part.find_first_not_of("0123456789.x", 0) == part.size() - 1;
}

}  // namespace

std::vector<std::string> closest_presets(std::string_view spec,
                                         const std::vector<std::string>& ids) {
  // The user's family and size first: "llama-3-70b" -> the llama presets of 70b, then the rest
  // by spelling.
  const std::vector<std::string> parts = id_parts(spec);
  std::string size;
  for (const std::string& p : parts) {
    if (is_size(p)) size = p;
  }
  std::vector<std::string> same;  // family and size
  if (!parts.empty() && !size.empty()) {
    for (const std::string& id : ids) {
      const std::vector<std::string> theirs = id_parts(id);
      if (!theirs.empty() && theirs.front() == parts.front() &&
          std::find(theirs.begin(), theirs.end(), size) != theirs.end()) {
        same.push_back(id);
      }
    }
  }
  // Among them, those that share more of the user's parts first ("3" matches "3.1" and "3.3").
  const auto shared = [&](const std::string& id) {
    const std::vector<std::string> theirs = id_parts(id);
    return std::count_if(parts.begin(), parts.end(), [&](const std::string& p) {
      return std::any_of(theirs.begin(), theirs.end(),
                         [&](const std::string& t) { return t.starts_with(p); });
    });
  };
  std::vector<std::string> ordered = closest_names(spec, same, same.size());
  std::stable_sort(ordered.begin(), ordered.end(), [&](const std::string& a, const std::string& b) {
    return shared(a) > shared(b);
  });
  std::vector<std::string> out(
      ordered.begin(),
      ordered.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, ordered.size())));
  for (const std::string& id : closest_names(spec, ids, 3)) {
    if (out.size() < 3 && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

}  // namespace tb::io
