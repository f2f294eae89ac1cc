// safetensors header reading and validation; the weights are never read.
#include "trainbudget/io/safetensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "json_text.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace {

using Json = nlohmann::json;

// Past any real tensor (the largest embedding tables have ~1e9 elements); keeps element and
// byte arithmetic far from 64-bit overflow.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 48;

std::uint64_t little_endian_u64(std::string_view bytes) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  }
  return v;
}

std::optional<std::uint64_t> offset(const Json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(j.get<std::int64_t>());
  }
  return std::nullopt;
}

// One tensor entry; appends what is wrong to `problems`.
std::optional<TensorInfo> read_tensor(const std::string& name, const Json& entry,
                                      std::uint64_t data_bytes,
                                      std::vector<std::string>& problems) {
  const auto fail = [&](std::string what) {
    problems.push_back(fmt::format("tensor \"{}\": {}", excerpt(name), what));
    return std::nullopt;
  };
  if (!entry.is_object()) return fail("not an object");
  TensorInfo t;
  t.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) return fail("dtype: missing (a string)");
  t.dtype = dtype->get<std::string>();
  const std::optional<int> bits = safetensors_dtype_bits(t.dtype);
  if (!bits) return fail(fmt::format("dtype: unknown \"{}\"", excerpt(t.dtype)));

  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) return fail("shape: missing (a list)");
  t.elements = 1;
  for (const Json& d : *shape) {
    const std::optional<std::uint64_t> dim = offset(d);
    if (!dim)
      return fail(fmt::format("shape: {} is not a non-negative integer", excerpt(d.dump())));
    if (*dim > static_cast<std::uint64_t>(kMaxElements)) {
      return fail(fmt::format("shape: dimension {} is absurd", *dim));
    }
    const auto di = static_cast<std::int64_t>(*dim);
    if (di != 0 && t.elements > kMaxElements / di) {
      return fail(fmt::format("shape: {} elements is absurd", excerpt(shape->dump())));
    }
    t.elements *= di;
    t.shape.push_back(di);
  }

  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
    return fail("data_offsets: missing (a [begin, end] pair)");
  }
  const std::optional<std::uint64_t> begin = offset((*offsets)[0]);
  const std::optional<std::uint64_t> end = offset((*offsets)[1]);
  if (!begin || !end) return fail("data_offsets: must be non-negative integers");
  if (*end < *begin) return fail(fmt::format("data_offsets: end {} before begin {}", *end, *begin));
  if (*end > data_bytes) {
    return fail(
        fmt::format("data_offsets: end {} is past the {}-byte data buffer", *end, data_bytes));
  }
  const auto expected = static_cast<std::uint64_t>((t.elements * *bits + 7) / 8);
  if (*end - *begin != expected) {
    return fail(fmt::format("data_offsets: {} bytes, but {} x {} needs {}", *end - *begin,
                            excerpt(shape->dump()), t.dtype, expected));
  }
  t.begin = *begin;
  t.end = *end;
  return t;
}

// The tensors must tile the buffer: sorted by offset, each begins where the previous ends.
void check_tiling(const SafetensorsHeader& h, std::vector<std::string>& problems) {
  std::uint64_t cursor = 0;
  const TensorInfo* previous = nullptr;
  for (const TensorInfo& t : h.tensors) {
    if (t.begin < cursor) {
      problems.push_back(fmt::format("tensor \"{}\": data_offsets [{}, {}] overlap tensor \"{}\"",
                                     excerpt(t.name), t.begin, t.end, excerpt(previous->name)));
    } else if (t.begin > cursor) {
      problems.push_back(
          fmt::format("tensor \"{}\": data_offsets begin {} leaves a hole after byte {}",
                      excerpt(t.name), t.begin, cursor));
    }
    cursor = std::max(cursor, t.end);
    previous = &t;
  }
  if (problems.empty() && cursor != h.data_bytes) {
    problems.push_back(
        fmt::format("the tensors cover {} bytes of a {}-byte data buffer", cursor, h.data_bytes));
  }
}

}  // namespace

std::optional<int> safetensors_dtype_bits(std::string_view dtype) {
  // safetensors/src/tensor.rs, enum Dtype and Dtype::bitsize().
  static constexpr std::array<std::pair<std::string_view, int>, 20> kBits{{
      {"BOOL", 8}, {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
      {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
      {"U16", 16}, {"F16", 16},    {"BF16", 16},   {"I32", 32},    {"U32", 32},
      {"F32", 32}, {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
  }};
  for (const auto& [name, bits] : kBits) {
    if (name == dtype) return bits;
  }
  return std::nullopt;
}

SafetensorsHeader parse_safetensors_header(std::string_view header_json, std::uint64_t data_bytes,
                                           const std::string& origin) {
  const Json root = parse_json_text(header_json, origin, "header");
  if (!root.is_object()) throw DataError(origin, {"header is not a JSON object"});

  SafetensorsHeader h;
  h.file = origin;
  h.header_bytes = header_json.size();
  h.data_bytes = data_bytes;
  std::vector<std::string> problems;
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) {
        problems.push_back("__metadata__: must be an object of strings");
        continue;
      }
      for (const auto& [mk, mv] : value.items()) {
        if (mv.is_string()) {
          h.metadata[mk] = mv.get<std::string>();
        } else {
          problems.push_back(fmt::format("__metadata__.{}: must be a string", excerpt(mk)));
        }
      }
      continue;
    }
    if (auto t = read_tensor(key, value, data_bytes, problems)) h.tensors.push_back(*t);
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  if (problems.empty()) check_tiling(h, problems);
  if (!problems.empty()) throw DataError(origin, problems);
  return h;
}

SafetensorsHeader parse_safetensors_prefix(std::string_view prefix, std::uint64_t file_size,
                                           const std::string& origin) {
  if (file_size < 8 || prefix.size() < 8) {
    throw DataError(origin, {fmt::format("truncated: {} bytes, shorter than the 8-byte header "
                                         "length",
                                         file_size)});
  }
  const std::uint64_t n = little_endian_u64(prefix.substr(0, 8));
  if (n > kMaxSafetensorsHeaderBytes) {
    throw DataError(origin, {fmt::format("header length {} is absurd (the format allows at most "
                                         "{} bytes)",
                                         n, kMaxSafetensorsHeaderBytes)});
  }
  if (n > file_size - 8) {
    throw DataError(origin, {fmt::format("header length {} runs past the end of the {}-byte file",
                                         n, file_size)});
  }
  if (prefix.size() < 8 + n) {
    throw DataError(
        origin, {fmt::format("truncated: header of {} bytes, {} present", n, prefix.size() - 8)});
  }
  return parse_safetensors_header(prefix.substr(8, n), file_size - 8 - n, origin);
}

SafetensorsHeader read_safetensors_header(const std::filesystem::path& file) {
  const std::string origin = shown(file);
  const std::uintmax_t size = regular_file_size(file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(origin, {"cannot be opened"});
  std::string prefix(8, '\0');
  in.read(prefix.data(), 8);
  if (in.gcount() == 8) {
    const std::uint64_t n = little_endian_u64(prefix);
    // Read the header only when the length is sane; parse_safetensors_prefix reports the rest.
    if (n <= kMaxSafetensorsHeaderBytes && n <= size - 8) {
      prefix.resize(8 + n);
      in.read(prefix.data() + 8, static_cast<std::streamsize>(n));
      prefix.resize(8 + static_cast<std::size_t>(in.gcount()));
    }
  } else {
    prefix.resize(static_cast<std::size_t>(in.gcount()));
  }
  return parse_safetensors_prefix(prefix, size, origin);
}

}  // namespace tb::io
