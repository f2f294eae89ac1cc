// Our own reader of the TOML our files use (device, system, kernel-class and preset files): a
// strict subset of TOML 1.0 (toml.io/en/v1.0.0) read into a small tree, so that no user file
// reaches a third-party parser's assertions (issue 25: toml++ aborted on "8507-02-o2 7") and the
// catalog is read in a fraction of the time. What it reads: comments; `key = value` with bare,
// quoted and dotted keys; [table] and [[array.of.tables]] headers; basic and literal strings,
// single- and multi-line, with every TOML escape; decimal integers and floats (underscores
// between digits, exponents); true and false; arrays over lines (trailing comma allowed);
// inline tables on one line. What it refuses, with the line: dates and times, inf and nan, hex,
// octal and binary integers (no field of ours is one), a key defined twice, a table header
// repeated, non-ASCII outside strings and comments (the pre-scan's rule), control characters in
// strings, nesting past kMaxTomlKeyDepth. Private to the io library.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace tb::io {

struct TomlValue;

// A table: keys in the order written, indexed by name once it holds more than a few (a file of
// 40,000 tables is read in linear time, not quadratic).
struct TomlTable {
  std::vector<std::string> keys;
  std::vector<TomlValue> values;
  std::unordered_map<std::string, std::size_t> index;  // key -> position, from kIndexFrom keys

  static constexpr std::size_t kIndexFrom = 16;
  // The position of `key`, or npos.
  [[nodiscard]] std::size_t position(std::string_view key) const;
  void add(std::string key, TomlValue value);

  [[nodiscard]] const TomlValue* get(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const { return get(key) != nullptr; }
  [[nodiscard]] std::size_t size() const { return keys.size(); }
  [[nodiscard]] bool empty() const { return keys.empty(); }
  // The table, array or string at `key`; nullptr when absent or of another kind.
  [[nodiscard]] const TomlTable* table(std::string_view key) const;
  [[nodiscard]] const std::vector<TomlValue>* array(std::string_view key) const;
};

struct TomlValue {
  enum class Kind { kString, kInteger, kFloat, kBool, kArray, kTable };
  Kind kind{Kind::kString};
  std::string text;  // a string's value; a number or boolean as written (for messages)
  std::int64_t integer{0};
  double number{0.0};
  bool boolean{false};
  std::vector<TomlValue> array;
  TomlTable table;
  // How a table came to be: by a [header] (may not be repeated), implicitly (a parent of a
  // header or dotted key: may be defined later), or inline/by value (closed).
  enum class Origin { kImplicit, kHeader, kDotted, kClosed };
  Origin origin{Origin::kClosed};
  bool table_array{false};  // an array made by [[headers]] (may be appended to)

  [[nodiscard]] const TomlTable* as_table() const {
    return kind == Kind::kTable ? &table : nullptr;
  }
  [[nodiscard]] const std::vector<TomlValue>* as_array() const {
    return kind == Kind::kArray ? &array : nullptr;
  }
  [[nodiscard]] const std::string* as_string() const {
    return kind == Kind::kString ? &text : nullptr;
  }
  // A number (an integer read as a double too) or a string; nullopt for another kind.
  template <class T>
  [[nodiscard]] std::optional<T> value() const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (kind == Kind::kString) return text;
    } else {
      if (kind == Kind::kFloat) return static_cast<T>(number);
      if (kind == Kind::kInteger) return static_cast<T>(integer);
    }
    return std::nullopt;
  }
};

// A table as JSON (a preset's [config] is read as a config.json): integers stay integers.
[[nodiscard]] nlohmann::json toml_as_json(const TomlTable& table);

// The document's root table; throws DataError(origin, "TOML syntax error at line N: ...").
[[nodiscard]] TomlTable read_toml(std::string_view text, const std::string& origin);

}  // namespace tb::io
