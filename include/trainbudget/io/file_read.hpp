// Opening what a user points at, safely: only regular files are read (a FIFO named config.json
// would block forever, a directory or device named like a file is refused), symlink loops and
// unreadable files are DataErrors naming the path, and every file has a size cap checked before
// a byte is read. Paths in messages are escaped (printable()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tb::io {

// Size caps per kind of file, past the largest real one by orders of magnitude: DeepSeek-V3's
// config.json is 1.7 KB and its index.json 9 MB; a device or preset TOML is under 10 KB.
inline constexpr std::uintmax_t kMaxConfigBytes = 16'000'000;
inline constexpr std::uintmax_t kMaxIndexBytes = 256'000'000;
inline constexpr std::uintmax_t kMaxTomlBytes = 1'000'000;
// A Hugging Face cache ref (refs/main) holds a 40-character commit hash.
inline constexpr std::uintmax_t kMaxRefBytes = 256;
inline constexpr std::uintmax_t kMaxRequestBytes = 1'000'000;

// The path as a message shows it: escaped, one line.
[[nodiscard]] std::string shown(const std::filesystem::path& path);

// The size of `file` after checking it is a regular file (symlinks followed); throws DataError
// naming the path when it is missing, a loop, not a regular file, or unreadable.
[[nodiscard]] std::uintmax_t regular_file_size(const std::filesystem::path& file);

// The whole of a regular file of at most `max_bytes`; DataError otherwise.
[[nodiscard]] std::string read_regular_file(const std::filesystem::path& file,
                                            std::uintmax_t max_bytes);

// What `path` is, without throwing: kind_of() says "a directory", "a FIFO", ... for messages.
[[nodiscard]] std::string_view kind_of(const std::filesystem::file_status& status);

}  // namespace tb::io
