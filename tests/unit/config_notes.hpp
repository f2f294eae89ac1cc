// The config readers' tests: whether a note list holds a part of a line.
#pragma once

#include <string>
#include <vector>

namespace tb::api::testing_notes {

inline bool listed(const std::vector<std::string>& notes, const std::string& part) {
  for (const std::string& n : notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace tb::api::testing_notes
