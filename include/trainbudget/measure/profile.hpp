// Machine profiles: a measurement saved as a hardware TOML file in the catalog's own schema
// (docs/hardware-catalog.md), so that `estimate --machine NAME` uses it like any device.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

// Throws InvalidArgument naming --save unless `id` is lowercase kebab-case (a catalog id).
void validate_profile_id(std::string_view id);

// The TOML text: the best ok rate per dtype (kind = "measured", with method, host and date),
// memory capacity from MemTotal and bandwidth from the STREAM triad; vendor "other", category
// "cpu". When a GPU backend measured something, the profile describes that GPU instead (its
// memory and device-copy bandwidth). Throws Error when nothing was measured successfully.
[[nodiscard]] std::string profile_toml(const Measurement& measurement, std::string_view id);

// Replaces `file` so that a reader (or a crash at any instant) sees either the old contents or
// the new, never a mix: write a temporary file in the same directory, fsync it, rename it over
// `file`, fsync the directory. Throws Error with the system's message on failure.
void write_file_atomically(const std::filesystem::path& file, std::string_view contents);

// Creates `dir` if needed and writes <dir>/<id>.toml atomically; returns its path.
std::filesystem::path save_profile(const Measurement& measurement, std::string_view id,
                                   const std::filesystem::path& dir);

}  // namespace tb::measure
