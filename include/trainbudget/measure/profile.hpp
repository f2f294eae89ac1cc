// Machine profiles: a measurement as a Device in the catalog's own terms, which io::save_device()
// writes (docs/hardware-catalog.md), so that `estimate --machine NAME` uses it like any device.
#pragma once

#include <string>
#include <string_view>

#include "trainbudget/measure/records.hpp"
#include "trainbudget/spec/hardware.hpp"

namespace tb::measure {

// Throws InvalidArgument naming --save unless `id` is lowercase kebab-case (a catalog id).
void validate_profile_id(std::string_view id);

// The measurement as a catalog device (kind = "measured" rates, with method, host and date):
// the best ok rate per dtype, memory capacity from MemTotal and bandwidth from the STREAM triad;
// vendor "other", category "cpu". When a GPU backend measured something, the profile describes
// that GPU instead (its memory and device-copy bandwidth). Figures are rounded to six
// significant digits, well inside run-to-run noise. io::save_device() writes it as TOML. Throws
// Error when nothing was measured successfully.
[[nodiscard]] Device profile_device(const Measurement& measurement, std::string_view id);

}  // namespace tb::measure
