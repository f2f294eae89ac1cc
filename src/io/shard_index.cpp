// model.safetensors.index.json -> the shard files and the tensor -> file map.
#include "trainbudget/io/shard_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "json_text.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace {

// A name that stays in the folder: not empty, no separator, not "." or "..".
bool is_plain_file_name(std::string_view f) {
  return !f.empty() && f.find('/') == std::string_view::npos &&
         f.find('\\') == std::string_view::npos && f != "." && f != "..";
}

// Past this many, further problems are counted, not listed.
constexpr std::size_t kListedProblems = 10;

}  // namespace

ShardIndex parse_shard_index(std::string_view json_text, const std::string& origin) {
  const nlohmann::json root = parse_json_text(json_text, origin);
  const auto weight_map = root.is_object() ? root.find("weight_map") : root.end();
  if (!root.is_object() || weight_map == root.end() || !weight_map->is_object()) {
    throw DataError(origin, {"weight_map: missing (an object of tensor -> file)"});
  }
  ShardIndex out;
  std::set<std::string> files;
  std::vector<std::string> problems;
  std::size_t unlisted = 0;
  const auto problem = [&](std::string text) {
    if (problems.size() < kListedProblems) {
      problems.push_back(std::move(text));
    } else {
      ++unlisted;
    }
  };
  for (const auto& [tensor, file] : weight_map->items()) {
    if (!file.is_string()) {
      problem(fmt::format("weight_map.{}: must be a file name", excerpt(tensor)));
      continue;
    }
    const std::string& f = file.get_ref<const std::string&>();
    if (!is_plain_file_name(f)) {
      problem(fmt::format("weight_map.{}: \"{}\" is not a file in this folder", excerpt(tensor),
                          excerpt(f)));
      continue;
    }
    out.weight_map.emplace(tensor, f);
    files.insert(f);
  }
  if (const auto meta = root.find("metadata"); meta != root.end() && meta->is_object()) {
    if (const auto ts = meta->find("total_size"); ts != meta->end() && ts->is_number_unsigned()) {
      out.total_size = ts->get<std::uint64_t>();
    }
  }
  if (unlisted > 0) problems.push_back(fmt::format("and {} more problems", unlisted));
  if (!problems.empty()) throw DataError(origin, problems);
  out.files.assign(files.begin(), files.end());
  return out;
}

}  // namespace tb::io
