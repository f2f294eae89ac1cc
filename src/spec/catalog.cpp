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

// Entries kept sorted by id; a new entry with a known id replaces the old one.
template <class T>
void put_sorted(std::vector<T>& list, T entry) {
  auto it = std::lower_bound(list.begin(), list.end(), entry.id,
                             [](const T& e, const std::string& id) { return e.id < id; });
  if (it != list.end() && it->id == entry.id) {
    *it = std::move(entry);
  } else {
    list.insert(it, std::move(entry));
  }
}

template <class T>
const T* find_sorted(const std::vector<T>& list, std::string_view id) {
  auto it = std::lower_bound(list.begin(), list.end(), id,
                             [](const T& e, std::string_view key) { return e.id < key; });
  return it != list.end() && it->id == id ? &*it : nullptr;
}

}  // namespace

HardwareCatalog::HardwareCatalog(std::vector<Device> devices) {
  for (Device& d : devices) put(std::move(d));
}

HardwareCatalog::HardwareCatalog(std::vector<DeviceSource> sources) {
  std::sort(sources.begin(), sources.end(),
            [](const DeviceSource& x, const DeviceSource& y) { return x.id < y.id; });
  devices_.reserve(sources.size());
  for (DeviceSource& s : sources) {
    Device placeholder;
    placeholder.id = s.id;
    ids_.push_back(s.id);
    devices_.push_back(std::move(placeholder));
    auto p = std::make_unique<Pending>();
    p->source = std::move(s);
    pending_.push_back(std::move(p));
  }
}

HardwareCatalog::HardwareCatalog(const HardwareCatalog& other)
    : kernel_classes_(other.kernel_classes_), systems_(other.systems_) {
  devices_ = other.devices();
  ids_ = other.ids_;
  pending_.resize(devices_.size());
}

HardwareCatalog& HardwareCatalog::operator=(const HardwareCatalog& other) {
  if (this != &other) *this = HardwareCatalog(other);
  return *this;
}

const Device& HardwareCatalog::ready(std::size_t i) const {
  if (pending_[i] != nullptr) {
    Pending& p = *pending_[i];
    // Each element is written once, under its own flag; lookups read ids_ only. A reading that
    // throws leaves the flag unset: the next use reads (and throws) again.
    std::call_once(p.once, [&] { devices_[i] = p.source.read(p.source.text, p.source.origin); });
  }
  return devices_[i];
}

void HardwareCatalog::read_all() const {
  for (std::size_t i = 0; i < devices_.size(); ++i) (void)ready(i);
}

const std::vector<Device>& HardwareCatalog::devices() const {
  read_all();
  return devices_;
}

std::size_t HardwareCatalog::slot(std::string_view id) const {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  return it != ids_.end() && *it == id ? static_cast<std::size_t>(it - ids_.begin()) : ids_.size();
}

void HardwareCatalog::put(Device device) {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), device.id);
  const auto i = static_cast<std::size_t>(it - ids_.begin());
  if (it != ids_.end() && *it == device.id) {
    devices_[i] = std::move(device);
    pending_[i].reset();
  } else {
    ids_.insert(it, device.id);
    devices_.insert(devices_.begin() + static_cast<std::ptrdiff_t>(i), std::move(device));
    pending_.insert(pending_.begin() + static_cast<std::ptrdiff_t>(i), nullptr);
  }
}

const Device* HardwareCatalog::find(std::string_view id) const {
  const std::size_t i = slot(id);
  return i < ids_.size() ? &ready(i) : nullptr;
}

bool HardwareCatalog::contains(std::string_view id) const { return slot(id) < ids_.size(); }

std::vector<std::string> HardwareCatalog::closest(std::string_view id, std::size_t n) const {
  return closest_names(id, ids_, n);
}

const Device& HardwareCatalog::at(std::string_view id, std::string_view field) const {
  if (const Device* d = find(id)) return *d;
  const std::vector<std::string> near = closest(id, 3);
  throw InvalidRequest(std::string{field},
                       fmt::format("unknown machine '{}'; closest known: {} (see 'trainbudget "
                                   "hardware list')",
                                   excerpt(id), fmt::join(near, ", ")));
}

void HardwareCatalog::put(System system) { put_sorted(systems_, std::move(system)); }

const System* HardwareCatalog::find_system(std::string_view id) const {
  return find_sorted(systems_, id);
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

void HardwareCatalog::put(KernelClass kernel_class) {
  const auto same = [&](const KernelClass& k) { return k.id == kernel_class.id; };
  const auto it = std::find_if(kernel_classes_.begin(), kernel_classes_.end(), same);
  if (it != kernel_classes_.end()) {
    *it = std::move(kernel_class);
  } else {
    kernel_classes_.push_back(std::move(kernel_class));
  }
}

const KernelClass* HardwareCatalog::kernel_class_of(std::string_view device_id) const {
  for (const KernelClass& k : kernel_classes_) {
    if (std::find(k.devices.begin(), k.devices.end(), device_id) != k.devices.end()) return &k;
  }
  // A device no class lists takes the class of its category (a measured CPU profile).
  if (const Device* d = find(device_id)) {
    for (const KernelClass& k : kernel_classes_) {
      if (std::find(k.categories.begin(), k.categories.end(), d->category) != k.categories.end()) {
        return &k;
      }
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
