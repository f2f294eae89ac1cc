// Reading only regular files, with a cap, and turning every filesystem failure into a DataError.
#include "trainbudget/io/file_read.hpp"

#include <fmt/format.h>

#include <fstream>
#include <system_error>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace fs = std::filesystem;

// Past PATH_MAX (4,096 on Linux) a "path" is not one; a message quotes its start.
std::string shown(const fs::path& path) { return excerpt(path.native(), 4096); }

std::string_view kind_of(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::regular:
      return "a regular file";
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
    case fs::file_type::character:
      return "a device";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::not_found:
      return "missing";
    default:
      return "not a regular file";
  }
}

std::uintmax_t regular_file_size(const fs::path& file) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec && status.type() != fs::file_type::not_found) {
    throw DataError(shown(file), {fmt::format("cannot be read: {}", ec.message())});
  }
  if (status.type() == fs::file_type::not_found) throw DataError(shown(file), {"does not exist"});
  if (status.type() != fs::file_type::regular) {
    throw DataError(shown(file), {fmt::format("is {}, not a regular file", kind_of(status))});
  }
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw DataError(shown(file), {fmt::format("cannot be read: {}", ec.message())});
  return size;
}

std::string read_regular_file(const fs::path& file, std::uintmax_t max_bytes) {
  const std::uintmax_t size = regular_file_size(file);
  if (size > max_bytes) {
    throw DataError(shown(file), {fmt::format("is {} bytes, past the {} accepted for this kind of "
                                              "file",
                                              size, max_bytes)});
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(shown(file), {"cannot be opened"});
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  // A file that grew while read is cut at the size checked; one that shrank is what is left.
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw DataError(shown(file), {"cannot be read"});
  return text;
}

}  // namespace tb::io
