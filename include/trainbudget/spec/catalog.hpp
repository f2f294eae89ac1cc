// A set of devices by id, and the machine list a user asks for ("h100-sxm:fp8,m3-ultra", "all").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/spec/kernel_costs.hpp"
#include "trainbudget/spec/lazy_list.hpp"
#include "trainbudget/spec/machine_choice.hpp"
#include "trainbudget/spec/system.hpp"

namespace tb {

// Devices, systems and kernel classes known by their ids and read on first use (lazy_list.hpp).
using DeviceSource = LazySource<Device>;
using SystemSource = LazySource<System>;            // keys: {its device}
using KernelClassSource = LazySource<KernelClass>;  // keys: its devices; also: its categories

class HardwareCatalog {
 public:
  HardwareCatalog() = default;
  explicit HardwareCatalog(std::vector<Device> devices);
  explicit HardwareCatalog(std::vector<DeviceSource> devices,
                           std::vector<SystemSource> systems = {},
                           std::vector<KernelClassSource> kernel_classes = {});

  // Adds or replaces (same id) a device; a replacement is how a user file overrides ours.
  void put(Device device);

  // Every device, each read once (safe from several threads, as every const member).
  [[nodiscard]] const std::vector<Device>& devices() const;
  [[nodiscard]] const Device* find(std::string_view id) const;
  // Whether a device of this id is known, without reading it.
  [[nodiscard]] bool contains(std::string_view id) const;
  // The known ids closest to `id` (closest_names: prefix, then edit distance), at most `n`.
  [[nodiscard]] std::vector<std::string> closest(std::string_view id, std::size_t n) const;
  // Like find(), but throws InvalidArgument naming `field` and the closest ids.
  [[nodiscard]] const Device& at(std::string_view id, std::string_view field) const;

  // Systems (node shapes), by id; a replacement (same id) overrides ours.
  void put(System system);
  [[nodiscard]] const std::vector<System>& systems() const { return systems_.all(); }
  [[nodiscard]] const System* find_system(std::string_view id) const;
  // Throws InvalidRequest naming `field` with the closest system ids.
  [[nodiscard]] const System& system_at(std::string_view id, std::string_view field) const;
  // The first system (by id) built from this device, or nullptr.
  [[nodiscard]] const System* system_for(std::string_view device_id) const;

  // Kernel classes (data/kernels): the class that lists a device, or nullptr.
  void put(KernelClass kernel_class);
  [[nodiscard]] const std::vector<KernelClass>& kernel_classes() const {
    return kernel_classes_.all();
  }
  [[nodiscard]] const KernelClass* kernel_class_of(std::string_view device_id) const;
  // The class's figures with the device's compute units; all zero (a datasheet model: every
  // GEMM at the measured ceiling) for a device no class lists.
  [[nodiscard]] KernelCosts kernel_costs(std::string_view device_id) const;

 private:
  LazyList<Device> devices_;
  LazyList<KernelClass> kernel_classes_;
  LazyList<System> systems_;
};

// "ID[:dtype][,ID[:dtype]...]" or "all", spaces around entries allowed (split_comma_list).
// Throws InvalidArgument naming --machine.
[[nodiscard]] std::vector<MachineChoice> parse_machine_list(std::string_view text,
                                                            const HardwareCatalog& catalog);

// The seed document's four reference rows, the default for --machine.
inline constexpr std::string_view kDefaultMachines =
    "m3-ultra:fp32,m3-ultra:bf16,h100-sxm:bf16,h100-sxm:fp8";

}  // namespace tb
