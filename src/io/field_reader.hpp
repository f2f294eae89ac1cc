// One problem-collecting reader of an object's fields for every file trainbudget reads: device
// TOML and config.json go through the same checks with the same messages, and a problem is
// named by its dotted key ("compute.bf16.dense_tflops", "text_config.vocab_size"). A source
// adapter (TomlSource, JsonSource) says what a value is; the reader decides what is wrong.
// Private to the io library: third-party types stay out of public headers.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "toml_reader.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/limits.hpp"

namespace tb::io {

// An integer as written: whole numbers, or floats with an integral value (4096.0), within int64.
enum class IntegerRead { kOk, kNotInteger, kOutOfRange };

struct TomlSource {
  using Object = TomlTable;
  using Node = TomlValue;
  static const Node* find(const Object& o, std::string_view key) { return o.get(key); }
  static bool contains(const Object& o, std::string_view key) { return o.contains(key); }
  static const Object* as_object(const Node& n) { return n.as_table(); }
  static const std::string* as_string(const Node& n) { return n.as_string(); }
  static std::optional<bool> as_bool(const Node& n) {
    if (n.kind == TomlValue::Kind::kBool) return n.boolean;
    return std::nullopt;
  }
  static std::optional<double> as_number(const Node& n) {
    if (n.kind == TomlValue::Kind::kInteger) return static_cast<double>(n.integer);
    if (n.kind == TomlValue::Kind::kFloat) return n.number;
    return std::nullopt;
  }
  static IntegerRead as_integer(const Node& n, std::int64_t& out) {
    if (n.kind == TomlValue::Kind::kInteger) {
      out = n.integer;
      return IntegerRead::kOk;
    }
    return IntegerRead::kNotInteger;
  }
  template <class F>
  static bool for_each_item(const Node& n, F&& f) {
    const auto* a = n.as_array();
    if (a == nullptr) return false;
    for (const Node& item : *a) f(item);
    return true;
  }
  template <class F>
  static void for_each_key(const Object& o, F&& f) {
    for (const std::string& key : o.keys) f(key);
  }
  // A value as a message quotes it: scalars as written (excerpted), containers by their size.
  static std::string dump(const Node& n) {
    if (const auto* a = n.as_array()) return fmt::format("a list of {} values", a->size());
    if (const auto* t = n.as_table()) return fmt::format("a table of {} keys", t->size());
    if (n.kind == TomlValue::Kind::kString) return fmt::format("'{}'", excerpt(n.text));
    return excerpt(n.text);
  }
};

struct JsonSource {
  using Object = nlohmann::json;
  using Node = nlohmann::json;
  // Present and not null.
  static const Node* find(const Object& o, std::string_view key) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return nullptr;
    return &*it;
  }
  static bool contains(const Object& o, std::string_view key) { return o.contains(key); }
  static const Object* as_object(const Node& n) { return n.is_object() ? &n : nullptr; }
  static const std::string* as_string(const Node& n) {
    return n.is_string() ? n.get_ptr<const std::string*>() : nullptr;
  }
  static std::optional<bool> as_bool(const Node& n) {
    if (n.is_boolean()) return n.get<bool>();
    return std::nullopt;
  }
  static std::optional<double> as_number(const Node& n) {
    if (n.is_number()) return n.get<double>();
    return std::nullopt;
  }
  static IntegerRead as_integer(const Node& n, std::int64_t& out) {
    if (n.is_number_integer()) {
      if (n.is_number_unsigned() &&
          n.get<std::uint64_t>() >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return IntegerRead::kOutOfRange;
      }
      out = n.get<std::int64_t>();
      return IntegerRead::kOk;
    }
    if (n.is_number_float()) {
      const double d = n.get<double>();
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9e15) {
        out = static_cast<std::int64_t>(d);
        return IntegerRead::kOk;
      }
    }
    return IntegerRead::kNotInteger;
  }
  template <class F>
  static bool for_each_item(const Node& n, F&& f) {
    if (!n.is_array()) return false;
    for (const Node& item : n) f(item);
    return true;
  }
  template <class F>
  static void for_each_key(const Object& o, F&& f) {
    for (const auto& [key, value] : o.items()) f(std::string_view{key});
  }
  // A value as a message quotes it: scalars as written (excerpted), containers by their size,
  // so that no message walks (or copies) user data of any depth or length.
  static std::string dump(const Node& n) {
    if (n.is_array()) return fmt::format("a list of {} values", n.size());
    if (n.is_object()) return fmt::format("an object of {} keys", n.size());
    if (n.is_string()) return fmt::format("\"{}\"", excerpt(n.get_ref<const std::string&>()));
    return excerpt(n.dump());
  }
};

// Reads typed values out of one object and records what is wrong, without stopping.
template <class Source>
class FieldReader {
 public:
  using Object = typename Source::Object;
  using Node = typename Source::Node;

  FieldReader(const Object& object, std::string prefix, std::vector<std::string>& problems)
      : object_(object), prefix_(std::move(prefix)), problems_(problems) {}

  [[nodiscard]] std::string name(std::string_view key) const {
    return prefix_.empty() ? std::string{key} : fmt::format("{}.{}", prefix_, key);
  }

  // The value, when present (and, in JSON, not null).
  [[nodiscard]] const Node* find(std::string_view key) const { return Source::find(object_, key); }
  // The key is written, even as JSON null (null can mean something: DeepSeek's q_lora_rank).
  [[nodiscard]] bool present(std::string_view key) const { return Source::contains(object_, key); }

  void fail(std::string message) { problems_.push_back(std::move(message)); }

  // Every key not in `keys` is a problem.
  void allow_only(std::initializer_list<std::string_view> keys) {
    Source::for_each_key(object_, [&](std::string_view key) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        fail(fmt::format("{}: unknown key (accepted: {})", name(excerpt(key)),
                         fmt::join(keys, ", ")));
      }
    });
  }

  // A string; `required`: missing or empty is a problem.
  std::string string(std::string_view key, bool required) {
    const Node* node = find(key);
    if (node == nullptr) {
      if (required) fail(fmt::format("{}: missing (a string)", name(key)));
      return {};
    }
    if (const std::string* s = Source::as_string(*node)) {
      if (required && s->empty()) fail(fmt::format("{}: empty", name(key)));
      return *s;
    }
    fail(fmt::format("{}: {} must be a string", name(key), Source::dump(*node)));
    return {};
  }

  // An optional string with a fallback.
  std::string text(std::string_view key, std::string fallback) {
    const Node* node = find(key);
    if (node == nullptr) return fallback;
    if (const std::string* s = Source::as_string(*node)) return *s;
    fail(fmt::format("{}: {} must be a string", name(key), Source::dump(*node)));
    return fallback;
  }

  // A finite number.
  std::optional<double> number(std::string_view key, bool required) {
    const Node* node = find(key);
    if (node == nullptr) {
      if (required) fail(fmt::format("{}: missing (a number)", name(key)));
      return std::nullopt;
    }
    const std::optional<double> value = Source::as_number(*node);
    if (!value || !std::isfinite(*value)) {
      fail(fmt::format("{}: {} must be a finite number", name(key), Source::dump(*node)));
      return std::nullopt;
    }
    return value;
  }

  // A finite number > 0, within `range` when one is given (spec/limits.hpp).
  std::optional<double> positive(std::string_view key, bool required,
                                 std::optional<Range> range = std::nullopt) {
    const Node* node = find(key);
    if (node == nullptr) {
      if (required) fail(fmt::format("{}: missing (a number > 0)", name(key)));
      return std::nullopt;
    }
    const std::optional<double> value = Source::as_number(*node);
    if (!value) {
      fail(fmt::format("{}: {} must be a number", name(key), Source::dump(*node)));
      return std::nullopt;
    }
    if (!std::isfinite(*value) || *value <= 0.0) {
      fail(fmt::format("{}: {} must be a finite number > 0", name(key), *value));
      return std::nullopt;
    }
    if (range && !range->contains(*value)) {
      fail(fmt::format("{}: {} is outside the accepted {:g} to {:g}", name(key), *value, range->lo,
                       range->hi));
      return std::nullopt;
    }
    return value;
  }

  std::optional<std::int64_t> integer(std::string_view key, bool required) {
    const Node* node = find(key);
    if (node == nullptr) {
      if (required) fail(fmt::format("{}: missing (an integer)", name(key)));
      return std::nullopt;
    }
    std::int64_t out = 0;
    switch (Source::as_integer(*node, out)) {
      case IntegerRead::kOk:
        return out;
      case IntegerRead::kOutOfRange:
        fail(fmt::format("{}: {} is out of range", name(key), Source::dump(*node)));
        return std::nullopt;
      case IntegerRead::kNotInteger:
        break;
    }
    fail(fmt::format("{}: {} must be an integer", name(key), Source::dump(*node)));
    return std::nullopt;
  }
  std::int64_t required(std::string_view key) { return integer(key, true).value_or(0); }
  std::int64_t optional(std::string_view key, std::int64_t fallback) {
    return integer(key, false).value_or(fallback);
  }

  bool flag(std::string_view key, bool fallback) {
    const Node* node = find(key);
    if (node == nullptr) return fallback;
    if (const auto b = Source::as_bool(*node)) return *b;
    fail(fmt::format("{}: {} must be true or false", name(key), Source::dump(*node)));
    return fallback;
  }

  std::vector<std::int64_t> integer_list(std::string_view key) {
    std::vector<std::int64_t> out;
    const Node* node = find(key);
    if (node == nullptr) return out;
    const bool is_list = Source::for_each_item(*node, [&](const Node& item) {
      std::int64_t v = 0;
      if (Source::as_integer(item, v) == IntegerRead::kOk) {
        out.push_back(v);
      } else {
        fail(fmt::format("{}: {} is not an integer", name(key), Source::dump(item)));
      }
    });
    if (!is_list) fail(fmt::format("{}: must be a list of integers", name(key)));
    return out;
  }

  // A nested object (a TOML table, a JSON object).
  const Object* object(std::string_view key, bool required) {
    const Node* node = find(key);
    if (node == nullptr) {
      if (required) fail(fmt::format("{}: missing table", name(key)));
      return nullptr;
    }
    if (const Object* o = Source::as_object(*node)) return o;
    fail(fmt::format("{}: must be a table", name(key)));
    return nullptr;
  }

 private:
  const Object& object_;
  std::string prefix_;
  std::vector<std::string>& problems_;
};

// A catalog id as files, flags and URLs use it: lower-case letters, digits, '.', '_' and '-',
// starting with a letter or digit, at most 64 bytes ("h100-sxm", "pcie-4x-rtx-4090"); the
// problem or "".
inline std::string id_problem(std::string_view key, std::string_view id) {
  const bool ok = !id.empty() && id.size() <= 64 &&
                  std::all_of(id.begin(), id.end(),
                              [](char c) {
                                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                       c == '.' || c == '_' || c == '-';
                              }) &&
                  id.front() != '.' && id.front() != '_' && id.front() != '-';
  if (ok) return {};
  return fmt::format(
      "{}: '{}' is not an id (lower-case letters, digits, '.', '_' and '-', at most "
      "64)",
      key, excerpt(id));
}

// A name or note shown in tables and pages holds no control character; the problem or "".
inline std::string text_problem(std::string_view key, std::string_view text) {
  const bool control = std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  return control ? fmt::format("{}: '{}' holds a control character", key, excerpt(text)) : "";
}

}  // namespace tb::io
