// YAML text as JSON (config_formats.hpp): Debian's yaml-cpp parses, the YAML 1.2 core schema
// reads the plain scalars, and nesting and alias expansion are bounded before anything is copied.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <regex>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// A plain scalar longer than this is text: no number or boolean is written that long, and
// libstdc++'s std::regex matches by recursion, a frame per character (a 300,000-digit scalar
// overflowed the stack under the training-config fuzz target).
constexpr std::size_t kMaxTypedScalar = 400;

// A YAML plain scalar as the 1.2 core schema reads it, with YAML 1.1's separated integers.
json plain_scalar(const std::string& s) {
  if (s.size() > kMaxTypedScalar) return s;
  static const std::regex kInt{"[-+]?[0-9]+"};
  static const std::regex kFloat{R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)"};
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (std::regex_match(s, kInt)) {
    long long v = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc{} && end == s.data() + s.size()) return v;
  }
  // YAML 1.1's digit separators (4_096, 500_000): PyYAML, which axolotl, LLaMA-Factory and
  // torchtune (through OmegaConf) load their configs with, reads them as integers.
  static const std::regex kSeparatedInt{"[-+]?[0-9][0-9_]*"};
  if (s.find('_') != std::string::npos && std::regex_match(s, kSeparatedInt)) {
    std::string digits;
    for (const char c : s) {
      if (c != '_' && c != '+') digits += c;
    }
    long long v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc{} && end == digits.data() + digits.size()) return v;
  }
  if (std::regex_match(s, kFloat)) {
    double v = 0.0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc{} && end == s.data() + s.size()) return v;
  }
  return s;
}

json convert(const YAML::Node& node, std::size_t depth, std::size_t& nodes) {
  if (++nodes > kMaxConfigValues) {
    throw InvalidRequest("config", fmt::format("holds more than {} values", kMaxConfigValues));
  }
  if (depth > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("nests more than {} levels", kMaxJsonDepth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      // A quoted scalar ("!" tag) stays a string.
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(convert(item, depth + 1, nodes));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        // A key that is not a scalar (`? [a, b]`, a flow mapping as a key) names no field any
        // format reads; an empty plain key likewise. A quoted empty key is a string, as PyYAML
        // reads it (transformers' device_map {"": 0}).
        const bool quoted = kv.first.Tag() == "!";
        if (!kv.first.IsScalar() || (kv.first.Scalar().empty() && !quoted)) {
          throw InvalidRequest(
              "config",
              fmt::format(
                  "line {}: a mapping key must be a plain name, not {}", kv.first.Mark().line + 1,
                  kv.first.IsScalar() || kv.first.IsNull() ? "empty" : "a list or a mapping"));
        }
        out[kv.first.Scalar()] = convert(kv.second, depth + 1, nodes);
      }
      return out;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
  }
  return nullptr;
}

std::size_t values_in(const json& v, std::size_t so_far) {
  if (so_far > kMaxConfigValues || !v.is_structured()) return so_far + 1;
  std::size_t n = so_far + 1;
  for (const json& item : v) {
    n = values_in(item, n);
    if (n > kMaxConfigValues) break;
  }
  return n;
}

}  // namespace

void check_value_count(const json& cfg, std::string_view what) {
  // Depth is bounded before parsing (kMaxJsonDepth), so the walk's recursion is too.
  if (values_in(cfg, 0) > kMaxConfigValues) {
    throw InvalidRequest("config",
                         fmt::format("{}holds more than {} values", what, kMaxConfigValues));
  }
}

json yaml_as_json(std::string_view text) {
  // yaml-cpp walks nesting recursively: flow brackets and indentation are bounded first.
  if (json_nesting_depth(text) > kMaxJsonDepth) {
    throw InvalidRequest("config", fmt::format("nests more than {} levels", kMaxJsonDepth));
  }
  std::size_t indent = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t first = text.find_first_not_of(' ', at);
    if (first != std::string_view::npos && first < end) indent = std::max(indent, first - at);
    at = end + 1;
  }
  if (indent > 2 * kMaxJsonDepth * 4) {
    throw InvalidRequest("config", fmt::format("is indented {} columns deep", indent));
  }
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string{text});
  } catch (const YAML::Exception& e) {
    throw InvalidRequest("config",
                         fmt::format("is neither JSON nor YAML: {}", excerpt(e.what(), 200)));
  }
  std::size_t nodes = 0;
  return convert(doc, 0, nodes);
}

}  // namespace tb::api::config_detail
