// Device lookup with suggestions, and the --machine list syntax.
#include "trainbudget/spec/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb {
namespace {

bool listed(const std::vector<std::string>& list, std::string_view id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

}  // namespace

HardwareCatalog::HardwareCatalog(std::vector<Device> devices) {
  for (Device& d : devices) put(std::move(d));
}

HardwareCatalog::HardwareCatalog(std::vector<DeviceSource> devices,
                                 std::vector<SystemSource> systems,
                                 std::vector<KernelClassSource> kernel_classes)
    : devices_(std::move(devices)),
      kernel_classes_(std::move(kernel_classes)),
      systems_(std::move(systems)) {}

const std::vector<Device>& HardwareCatalog::devices() const { return devices_.all(); }

void HardwareCatalog::put(Device device) { devices_.put(std::move(device)); }

const Device* HardwareCatalog::find(std::string_view id) const { return devices_.find(id); }

bool HardwareCatalog::contains(std::string_view id) const {
  return devices_.slot(id) < devices_.size();
}

std::vector<std::string> HardwareCatalog::closest(std::string_view id, std::size_t n) const {
  return closest_names(id, devices_.ids(), n);
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
  std::vector<std::string> device{system.device};
  systems_.put(std::move(system), std::move(device));
}

const System* HardwareCatalog::find_system(std::string_view id) const { return systems_.find(id); }

const System& HardwareCatalog::system_at(std::string_view id, std::string_view field) const {
  if (const System* s = find_system(id)) return *s;
  const std::vector<std::string> near = closest_names(id, systems_.ids(), 3);
  throw InvalidRequest(
      std::string{field},
      fmt::format("unknown system '{}'; closest known: {} (data/systems, docs/systems.md)",
                  excerpt(id), fmt::join(near, ", ")));
}

const System* HardwareCatalog::system_for(std::string_view device_id) const {
  // By id, the first system whose device it is: read only that one.
  for (std::size_t i = 0; i < systems_.size(); ++i) {
    if (listed(systems_.keys(i), device_id)) return &systems_.at(i);
  }
  return nullptr;
}

void HardwareCatalog::put(KernelClass kernel_class) {
  std::vector<std::string> devices = kernel_class.devices;
  std::vector<std::string> categories = kernel_class.categories;
  kernel_classes_.put(std::move(kernel_class), std::move(devices), std::move(categories));
}

const KernelClass* HardwareCatalog::kernel_class_of(std::string_view device_id) const {
  for (std::size_t i = 0; i < kernel_classes_.size(); ++i) {
    if (listed(kernel_classes_.keys(i), device_id)) return &kernel_classes_.at(i);
  }
  // A device no class lists takes the class of its category (a measured CPU profile).
  if (const Device* d = find(device_id)) {
    for (std::size_t i = 0; i < kernel_classes_.size(); ++i) {
      if (listed(kernel_classes_.also(i), d->category)) return &kernel_classes_.at(i);
    }
  }
  return nullptr;
}

KernelCosts HardwareCatalog::kernel_costs(std::string_view device_id) const {
  const KernelClass* k = kernel_class_of(device_id);
  if (k == nullptr) return {};
  KernelCosts out = k->costs;
  const auto at = std::find(k->devices.begin(), k->devices.end(), device_id);
  if (at != k->devices.end()) {
    out.compute_units = k->compute_units[static_cast<std::size_t>(at - k->devices.begin())];
  }
  return out;
}

std::vector<MachineChoice> parse_machine_list(std::string_view text,
                                              const HardwareCatalog& catalog) {
  std::vector<MachineChoice> out;
  // "all" or "all:DTYPE": every device, at the recipe's dtype or the one named.
  if (text == "all" || text.starts_with("all:")) {
    std::optional<DType> dtype;
    if (text != "all") {
      dtype = enum_from_name<DType>(text.substr(4));
      if (!dtype) {
        throw InvalidRequest(
            "machine",
            fmt::format("unknown dtype '{}' in '{}'", excerpt(text.substr(4)), excerpt(text)),
            std::string{enum_choices<DType>()});
      }
    }
    for (const Device& d : catalog.devices()) {
      MachineChoice choice;
      choice.device = &d;
      choice.dtype = dtype;
      choice.kernels = catalog.kernel_costs(d.id);
      out.push_back(choice);
    }
    return out;
  }
  for (const std::string_view item :
       split_comma_list(text, "machine", "ID[:dtype][,ID[:dtype]...] or all")) {
    const std::size_t colon = item.find(':');
    MachineChoice choice;
    choice.device = &catalog.at(item.substr(0, colon), "machine");
    choice.kernels = catalog.kernel_costs(choice.device->id);
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
