// Systems (node shapes, data/systems and measured ones) as documents and JSON: the list, and one
// system with its links, their sources and any measured collective curves.
#pragma once

#include <string>
#include <vector>

#include "trainbudget/report/document.hpp"
#include "trainbudget/spec/system.hpp"

namespace tb::report {

struct SystemList {
  std::vector<System> systems;
};

[[nodiscard]] Document systems_document(const std::vector<System>& systems);
[[nodiscard]] Document system_document(const System& system);
// docs/json.md, "hardware systems" and "hardware show" of a system.
[[nodiscard]] std::string systems_json(const std::vector<System>& systems);
[[nodiscard]] std::string system_json(const System& system);

}  // namespace tb::report
