// verl's config as a tree read key by key (docs/configs.md, "verl"): what each reader of its
// actor strategies shares. Private to the api library.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api::config_detail {

// A dotted top-level key (an override) placed into the nested tree beside the others.
inline json nested(const json& cfg) {
  json out = json::object();
  for (const auto& item : cfg.items()) {
    json* node = &out;
    const std::string& key = item.key();
    std::size_t at = 0;
    for (std::size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', at)) {
      json& next = (*node)[key.substr(at, dot - at)];
      if (!next.is_object()) next = json::object();
      node = &next;
      at = dot + 1;
    }
    json& leaf = (*node)[key.substr(at)];
    if (leaf.is_object() && item.value().is_object()) {
      leaf.update(item.value(), true);
    } else {
      leaf = item.value();
    }
  }
  return out;
}

// A leaf's path and value, for every leaf of the tree.
inline void leaves(const json& node, const std::string& prefix,
                   std::vector<std::pair<std::string, const json*>>& out) {
  if (node.is_object() && !node.empty()) {
    for (const auto& item : node.items()) {
      leaves(item.value(), prefix.empty() ? item.key() : prefix + "." + item.key(), out);
    }
    return;
  }
  out.emplace_back(prefix, &node);
}

class VerlReader {
 public:
  VerlReader(const json& cfg, TrainingConfig& out) : cfg_(nested(cfg)), out_(out) {}

  // The value at `path`, or nullptr where the file leaves it out (null, or an unresolved
  // ${...} interpolation: verl's default stands).
  const json* at(const std::string& path) {
    used_.insert(path);
    const json* node = &cfg_;
    std::size_t from = 0;
    while (true) {
      const std::size_t dot = path.find('.', from);
      const std::string part = path.substr(from, dot == std::string::npos ? dot : dot - from);
      if (!node->is_object() || !node->contains(part)) return nullptr;
      node = &(*node)[part];
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    if (node->is_null()) return nullptr;
    if (node->is_string() && node->get<std::string>().rfind("${", 0) == 0) {
      unresolved_.insert(path);
      return nullptr;
    }
    return node;
  }

  double number(const std::string& path, double fallback) {
    const json* v = at(path);
    if (v == nullptr) return fallback;
    if (!v->is_number()) throw bad(path, "is not a number", "a number");
    return v->get<double>();
  }

  std::int64_t count(const std::string& path, std::int64_t fallback) {
    const double v = number(path, static_cast<double>(fallback));
    if (v < 1.0 || v != std::floor(v) || v > 1e9) {
      throw bad(path, "is not a whole count up to 1e9", "1..1000000000");
    }
    return static_cast<std::int64_t>(v);
  }

  bool flag(const std::string& path, bool fallback) {
    const json* v = at(path);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) throw bad(path, "is not true or false", "true|false");
    return v->get<bool>();
  }

  std::string text(const std::string& path, const std::string& fallback) {
    const json* v = at(path);
    if (v == nullptr) return fallback;
    return v->is_string() ? v->get<std::string>() : text_of(*v);
  }

  // A field set from a key (or verl's default for it, said so).
  void set(const char* field, const std::string& value, const std::string& from) {
    out_.values[field] = value;
    out_.mapped.push_back(fmt::format("{} -> {}", from, field));
  }

  // A key read but not modelled, said in the note.
  void unmodelled(std::string what) { out_.unknown.push_back(std::move(what)); }

  static InvalidRequest bad(const std::string& path, std::string_view why,
                            std::string_view accepted) {
    return InvalidRequest("config", fmt::format("verl key {} {}", path, why),
                          std::string{accepted});
  }

  // Every leaf not read: grouped by its section (the first two parts of its path), counted.
  void list_the_rest() {
    std::vector<std::pair<std::string, const json*>> all;
    leaves(cfg_, "", all);
    std::map<std::string, std::pair<int, std::string>> sections;  // count, a path of it
    for (const auto& [path, value] : all) {
      if (used_.contains(path)) continue;
      const std::size_t first = path.find('.');
      const std::size_t second =
          first == std::string::npos ? std::string::npos : path.find('.', first + 1);
      auto& [n, one] = sections[path.substr(0, second)];
      n += 1;
      one = path;
    }
    for (const auto& [section, seen] : sections) {
      out_.no_effect.push_back(seen.first == 1 ? seen.second
                                               : fmt::format("{} ({} keys)", section, seen.first));
    }
    for (const std::string& path : unresolved_) {
      out_.unknown.push_back(
          fmt::format("{} (an unresolved ${{...}} value: verl's default used)", path));
    }
  }

 private:
  json cfg_;
  TrainingConfig& out_;
  std::set<std::string> used_;
  std::set<std::string> unresolved_;
};

// Whether the config is ppo_megatron_trainer's (the Megatron actor): an overlay whose Hydra
// defaults name it, or a run script's --config-name.
[[nodiscard]] bool megatron_defaults(const json& cfg);

// Whether `cfg` extends verl's one-step off-policy trainer (one_step_off_ppo_trainer.yaml or its
// Megatron twin: a launch of verl/experimental/one_step_off_policy/main_ppo.py).
[[nodiscard]] bool one_step_off_defaults(const json& cfg);

// The Megatron actor's parallel sizes set as fields; returns tp x pp x cp, the GPUs of one
// data-parallel rank.
std::int64_t read_megatron_layout(VerlReader& r, std::int64_t gpus);

// The Megatron actor's optimizer, recompute, packing, adapters and offload set as fields.
void read_megatron_actor(VerlReader& r);

}  // namespace tb::api::config_detail
