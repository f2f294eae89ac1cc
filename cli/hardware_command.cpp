// `trainbudget hardware`: the device catalog, listed or one device with its sources.
#include "hardware_command.hpp"

#include "common.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::cli {

HardwareCommands setup_hardware(CLI::App& app, HardwareOptions& o) {
  HardwareCommands c;
  c.hardware = app.add_subcommand("hardware", "The device catalog (data/hardware, your own files)");
  // Without list or show, main() prints this command's help.
  c.hardware->require_subcommand(0, 1);
  c.list = c.hardware->add_subcommand("list", "Every known device with memory and dense rates");
  add_common_options(*c.list, o.common);
  c.show = c.hardware->add_subcommand(
      "show", "One device or system: every figure with its source (a measured system's curves)");
  c.show->add_option("id", o.show_id, "Device or system id, e.g. h100-sxm or dgx-h100")->required();
  add_common_options(*c.show, o.common);
  c.systems = c.hardware->add_subcommand(
      "systems",
      "Every system (devices per node and their links: data/systems, and those measured with "
      "measure --fabric --save)");
  add_common_options(*c.systems, o.common);
  return c;
}

void run_hardware_list(const HardwareOptions& o, std::ostream& out) {
  const report::Format format = format_of(o.common);
  const HardwareCatalog catalog = load_catalog(o.common);
  report::write(report::DeviceList{catalog.devices()}, format, out, {}, text_width());
}

void run_hardware_show(const HardwareOptions& o, std::ostream& out) {
  const report::Format format = format_of(o.common);
  const HardwareCatalog catalog = load_catalog(o.common);
  if (catalog.find(o.show_id) == nullptr) {
    if (const System* system = catalog.find_system(o.show_id)) {
      report::write(*system, format, out, {}, text_width());
      return;
    }
  }
  report::write(catalog.at(o.show_id, "hardware show"), format, out, {}, text_width());
}

void run_hardware_systems(const HardwareOptions& o, std::ostream& out) {
  const report::Format format = format_of(o.common);
  const HardwareCatalog catalog = load_catalog(o.common);
  report::write(report::SystemList{catalog.systems()}, format, out, {}, text_width());
}

}  // namespace tb::cli
