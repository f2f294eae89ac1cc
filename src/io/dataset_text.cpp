// Counting a dataset's characters with nlohmann's SAX reader: strings are counted as they pass,
// nothing is kept.
#include "trainbudget/io/dataset_text.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace {

using nlohmann::json;

// Code points of UTF-8 text: every byte that does not continue a sequence.
std::int64_t code_points(const std::string& s) {
  std::int64_t n = 0;
  for (const char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
  }
  return n;
}

// Counts string values (object keys are field names, not text) and the top array's items.
struct Counter : json::json_sax_t {
  DatasetText& out;
  int depth{0};
  bool top_array{false};
  bool per_line{false};  // JSON Lines: a record per line, counted by the caller
  Counter(DatasetText& o, bool lines) : out(o), per_line(lines) {}
  void item() {
    if (!per_line && top_array && depth == 1) ++out.records;
  }
  bool null() override {
    item();
    return true;
  }
  bool boolean(bool) override {
    item();
    return true;
  }
  bool number_integer(number_integer_t) override {
    item();
    return true;
  }
  bool number_unsigned(number_unsigned_t) override {
    item();
    return true;
  }
  bool number_float(number_float_t, const string_t&) override {
    item();
    return true;
  }
  bool string(string_t& s) override {
    item();
    out.characters += code_points(s);
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    item();
    ++depth;
    return true;
  }
  bool key(string_t&) override { return true; }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override {
    item();
    if (depth == 0) top_array = true;
    ++depth;
    return true;
  }
  bool end_array() override {
    --depth;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    throw InvalidRequest("dataset_file",
                         fmt::format("not JSON near byte {}: {}", position, excerpt(e.what())));
  }
};

}  // namespace

DatasetText count_dataset_text(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  const bool lines = ext == ".jsonl" || ext == ".ndjson";
  if (!lines && ext != ".json") {
    throw InvalidRequest("dataset_file",
                         fmt::format("{}: counts JSON (.json) and JSON Lines (.jsonl, .ndjson) "
                                     "files; give {{dataset_tokens}} for another format",
                                     excerpt(file.string())),
                         "a .json or .jsonl file");
  }
  // The kind is checked before the file is opened: opening a FIFO blocks until a writer comes.
  std::uintmax_t size = 0;
  try {
    size = regular_file_size(file);
  } catch (const DataError& e) {
    throw InvalidRequest("dataset_file", e.what(), "a regular .json or .jsonl file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw InvalidRequest("dataset_file",
                         fmt::format("{}: cannot be opened", excerpt(file.string())));
  }
  DatasetText out;
  out.bytes = static_cast<std::int64_t>(size);
  if (!lines) {
    Counter counter(out, false);
    json::sax_parse(in, &counter);
    if (!counter.top_array) out.records = 1;
    return out;
  }
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Counter counter(out, true);
    try {
      json::sax_parse(line, &counter);
    } catch (const InvalidRequest& e) {
      throw InvalidRequest("dataset_file", fmt::format("{} line {}: {}", excerpt(file.string()),
                                                       number, e.problems().front().message));
    }
    ++out.records;
  }
  return out;
}

}  // namespace tb::io
