// The device TOML schema (docs/hardware-catalog.md) in one place: parse a file's text into a
// Device, write a Device back as such text, and save it atomically. Catalog files and
// `measure --save` profiles both go through here.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "trainbudget/spec/hardware.hpp"

namespace tb::io {

// A device from TOML text; `origin` names it in messages. Throws DataError naming the origin and
// listing every problem found.
// `builtin`: the compiled-in catalog's text (checked by the build's tests), read without the
// pre-scan that guards user files (toml_text.hpp).
[[nodiscard]] Device parse_device_toml(std::string_view text, const std::string& origin,
                                       bool builtin = false);

// The TOML text of `device`, which parse_device_toml() reads back to the same figures: capacity
// under capacity_gib or capacity_gb as its unit says, rates in TFLOP/s, bandwidths in GB/s.
[[nodiscard]] std::string device_toml(const Device& device);

// Replaces `file` so that a reader (or a crash at any instant) sees either the old contents or
// the new, never a mix: write a temporary file in the same directory, fsync it, rename it over
// `file`, fsync the directory. Throws Error with the system's message on failure.
void write_file_atomically(const std::filesystem::path& file, std::string_view contents);

// Creates `dir` if needed and writes <dir>/<device.id>.toml atomically; returns its path.
std::filesystem::path save_device(const Device& device, const std::filesystem::path& dir);

// dir/<id>.toml written atomically (dir created, stale temporaries cleaned); the path. Throws
// InvalidRequest naming save when the folder cannot be created, Error when the write fails.
std::filesystem::path save_toml_file(const std::filesystem::path& dir, const std::string& id,
                                     std::string_view text);

}  // namespace tb::io
