// Device lookup with suggestions, and the --machine list syntax.
#include "trainbudget/spec/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "trainbudget/spec/error.hpp"

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

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> HardwareCatalog::closest(std::string_view id, std::size_t n) const {
  struct Scored {
    std::size_t score;
    const std::string* id;
  };
  std::vector<Scored> scored;
  for (const Device& d : devices_) {
    // A known id that starts with what was typed ("h100" -> "h100-sxm") ranks first.
    const bool prefix = d.id.starts_with(id) || id.starts_with(d.id);
    scored.push_back({prefix ? 0 : edit_distance(id, d.id), &d.id});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(*scored[i].id);
  return out;
}

const Device& HardwareCatalog::at(std::string_view id, std::string_view field) const {
  if (const Device* d = find(id)) return *d;
  const std::vector<std::string> near = closest(id, 3);
  throw InvalidArgument(
      fmt::format("{}: unknown machine '{}'; closest known: {} (see 'trainbudget hardware list')",
                  field, id, fmt::join(near, ", ")));
}

std::vector<MachineChoice> parse_machine_list(std::string_view text,
                                              const HardwareCatalog& catalog) {
  std::vector<MachineChoice> out;
  if (text == "all") {
    for (const Device& d : catalog.devices()) out.push_back({&d, std::nullopt});
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (item.empty()) {
      throw InvalidArgument(fmt::format(
          "--machine: empty entry in '{}'; expected ID[:dtype][,ID[:dtype]...] or all", text));
    }
    const std::size_t colon = item.find(':');
    MachineChoice choice;
    choice.device = &catalog.at(item.substr(0, colon), "--machine");
    if (colon != std::string_view::npos) {
      const std::string_view dtype_text = item.substr(colon + 1);
      choice.dtype = parse_dtype(dtype_text);
      if (!choice.dtype) {
        throw InvalidArgument(fmt::format("--machine: unknown dtype '{}' in '{}'; accepted: {}",
                                          dtype_text, item, dtype_choices()));
      }
    }
    out.push_back(choice);
    start = comma + 1;
  }
  return out;
}

}  // namespace tb
