// Where `measure --save` (and `--machine local`) write a profile, made ready before anything is
// measured: a folder that cannot be created or written is a problem up front, not after minutes
// of measuring; and temporary files a killed save left behind are cleaned.
#pragma once

#include <chrono>
#include <filesystem>
#include <string_view>

namespace tb::io {

// Creates `dir` (the user hardware folder) if needed and checks it can be written. Throws
// InvalidRequest naming `field` (the flag that asked to save) and, when XDG_CONFIG_HOME is set,
// saying the variable is where the path comes from.
void prepare_save_dir(const std::filesystem::path& dir, std::string_view field);

// Deletes write_file_atomically()'s temporaries in `dir` (".<name>.toml.tmp-XXXXXX") older than
// `age`: a save takes milliseconds, so one that old was left by a killed process, not one in
// flight. Returns how many were deleted; errors are ignored (the next save tries again).
std::size_t remove_stale_temporaries(const std::filesystem::path& dir,
                                     std::chrono::seconds age = std::chrono::seconds{60});

}  // namespace tb::io
