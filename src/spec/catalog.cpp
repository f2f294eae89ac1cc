// Device lookup with suggestions, and the --machine list syntax.
#include "trainbudget/spec/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {

HardwareCatalog::HardwareCatalog(std::vector<Device> devices) {
  for (Device& d : devices) put(std::move(d));
}

void HardwareCatalog::put(Device device) {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device.id,
                             [](const Device& d, const std::string& id) { return d.id < id; });
  if (it != devices_.end() && it->id == device.id) {
    *it = std::move(device);
  } else {
    devices_.insert(it, std::move(device));
  }
}

const Device* HardwareCatalog::find(std::string_view id) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), id,
                             [](const Device& d, std::string_view key) { return d.id < key; });
  return it != devices_.end() && it->id == id ? &*it : nullptr;
}

std::vector<std::string> HardwareCatalog::closest(std::string_view id, std::size_t n) const {
  std::vector<std::string> ids;
  ids.reserve(devices_.size());
  for (const Device& d : devices_) ids.push_back(d.id);
  return closest_names(id, ids, n);
}

const Device& HardwareCatalog::at(std::string_view id, std::string_view field) const {
  if (const Device* d = find(id)) return *d;
  const std::vector<std::string> near = closest(id, 3);
  throw InvalidRequest(std::string{field},
                       fmt::format("unknown machine '{}'; closest known: {} (see 'trainbudget "
                                   "hardware list')",
                                   excerpt(id), fmt::join(near, ", ")));
}

void HardwareCatalog::put(System system) {
  auto it = std::lower_bound(systems_.begin(), systems_.end(), system.id,
                             [](const System& s, const std::string& id) { return s.id < id; });
  if (it != systems_.end() && it->id == system.id) {
    *it = std::move(system);
  } else {
    systems_.insert(it, std::move(system));
  }
}

const System* HardwareCatalog::find_system(std::string_view id) const {
  auto it = std::lower_bound(systems_.begin(), systems_.end(), id,
                             [](const System& s, std::string_view key) { return s.id < key; });
  return it != systems_.end() && it->id == id ? &*it : nullptr;
}

const System& HardwareCatalog::system_at(std::string_view id, std::string_view field) const {
  if (const System* s = find_system(id)) return *s;
  std::vector<std::string> ids;
  for (const System& s : systems_) ids.push_back(s.id);
  const std::vector<std::string> near = closest_names(id, ids, 3);
  throw InvalidRequest(
      std::string{field},
      fmt::format("unknown system '{}'; closest known: {} (data/systems, docs/systems.md)",
                  excerpt(id), fmt::join(near, ", ")));
}

const System* HardwareCatalog::system_for(std::string_view device_id) const {
  for (const System& s : systems_) {
    if (s.device == device_id) return &s;
  }
  return nullptr;
}

std::vector<MachineChoice> parse_machine_list(std::string_view text,
                                              const HardwareCatalog& catalog) {
  std::vector<MachineChoice> out;
  if (text == "all") {
    for (const Device& d : catalog.devices()) out.push_back({&d, std::nullopt});
    return out;
  }
  for (const std::string_view item :
       split_comma_list(text, "machine", "ID[:dtype][,ID[:dtype]...] or all")) {
    const std::size_t colon = item.find(':');
    MachineChoice choice;
    choice.device = &catalog.at(item.substr(0, colon), "machine");
    if (colon != std::string_view::npos) {
      const std::string_view dtype_text = item.substr(colon + 1);
      choice.dtype = enum_from_name<DType>(dtype_text);
      if (!choice.dtype) {
        throw InvalidRequest(
            "machine",
            fmt::format("unknown dtype '{}' in '{}'", excerpt(dtype_text), excerpt(item)),
            std::string{enum_choices<DType>()});
      }
    }
    // A machine named twice is estimated once (a list of 100,000 repeats is one row, not a
    // 100,000-row table).
    const bool repeated = std::any_of(out.begin(), out.end(), [&](const MachineChoice& c) {
      return c.device == choice.device && c.dtype == choice.dtype;
    });
    if (!repeated) out.push_back(choice);
  }
  return out;
}

}  // namespace tb
