// axolotl's unfrozen_parameters (docs/configs.md, "axolotl YAML"): the parameters a full
// fine-tune trains, every other one frozen. axolotl at 067b021c8, src/axolotl/utils/freeze.py
// (freeze_layers_except): each pattern is a regular expression whose dots are literal unless a
// '+' follows, matched from the start of a parameter's name (re.match), with an optional
// [start:end] row range after it; src/axolotl/train.py applies it to the loaded model, after an
// adapter has wrapped it.
#include <fmt/format.h>

#include <array>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// A pattern as LayerNamePattern compiles it: the row range cut off, every '.' not followed by
// '+' escaped. nullopt when it is not a regular expression std::regex reads.
std::optional<std::regex> compiled(std::string pattern) {
  static const std::regex kRange(R"(^(.+)\[([0-9]*)(?::([0-9]*))?\]$)");
  std::smatch m;
  if (std::regex_match(pattern, m, kRange)) pattern = m[1].str();
  std::string escaped;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const bool wildcard = i + 1 < pattern.size() && pattern[i + 1] == '+';
    escaped += pattern[i] == '.' && !wildcard ? std::string("\\.") : std::string(1, pattern[i]);
  }
  try {
    return std::regex(escaped);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

bool any_matches(const std::vector<std::regex>& patterns, const std::string& name) {
  for (const std::regex& p : patterns) {
    if (std::regex_search(name, p, std::regex_constants::match_continuous)) return true;
  }
  return false;
}

// Parameter names a transformers checkpoint holds, in its two layouts of a vision-language model
// (transformers 5: model.language_model..., before: language_model.model...) and a text-only
// one, at several layer indices: a pattern set trains the whole language model when it matches
// all of one layout's.
struct Layout {
  std::string_view body;  // prefix of the language model's modules
  std::string_view head;
};
constexpr std::array<Layout, 3> kLayouts{
    {{"model.language_model.", "lm_head.weight"},
     {"language_model.model.", "language_model.lm_head.weight"},
     {"model.", "lm_head.weight"}}};
constexpr std::array<std::string_view, 6> kLayers{"0", "1", "7", "10", "31", "95"};
constexpr std::array<std::string_view, 4> kVision{
    "model.vision_tower.transformer.layers.0.attention.q_proj.weight",
    "model.multi_modal_projector.linear_1.weight", "vision_tower.vision_model.embeddings.weight",
    "multi_modal_projector.linear_1.weight"};

bool trains_whole_language_model(const std::vector<std::regex>& patterns) {
  for (const Layout& l : kLayouts) {
    const std::string body(l.body);
    bool all = any_matches(patterns, body + "embed_tokens.weight") &&
               any_matches(patterns, body + "norm.weight") &&
               any_matches(patterns, std::string(l.head));
    for (const std::string_view i : kLayers) {
      const std::string layer = fmt::format("{}layers.{}.", body, i);
      all = all && any_matches(patterns, layer + "self_attn.q_proj.weight") &&
            any_matches(patterns, layer + "mlp.down_proj.weight") &&
            any_matches(patterns, layer + "input_layernorm.weight");
    }
    if (all) return true;
  }
  return false;
}

}  // namespace

bool read_axolotl_unfrozen(const json& cfg, const std::string& key, const json& v, Reader& r) {
  if (key != "unfrozen_parameters") return false;
  if (v.is_null() || (v.is_array() && v.empty())) {
    r.none(key);
    return true;
  }
  const json list = v.is_string() ? json::array({v}) : v;
  std::vector<std::regex> patterns;
  bool readable = list.is_array();
  for (const json& p : list) {
    const auto re = p.is_string() ? compiled(p.get<std::string>()) : std::nullopt;
    readable = readable && re.has_value();
    if (re) patterns.push_back(*re);
  }
  const bool adapter = cfg.contains("adapter") && cfg["adapter"].is_string() &&
                       !cfg["adapter"].get<std::string>().empty();
  if (!readable || adapter) {
    r.unknown(fmt::format(
        "unfrozen_parameters={} ({}: not modelled; the answer trains every "
        "language-model weight{})",
        excerpt(text_of(v)),
        adapter ? "applied after the adapter wraps the model" : "patterns std::regex cannot read",
        adapter ? " the adapter would" : ""));
    return true;
  }
  if (!trains_whole_language_model(patterns)) {
    r.unknown(
        fmt::format("unfrozen_parameters={} (trains only the parameters it matches: not "
                    "modelled; the answer trains every language-model weight, an upper "
                    "bound)",
                    excerpt(text_of(v))));
    return true;
  }
  r.out.mapped.push_back(
      "unfrozen_parameters -> every language-model weight trained (the default for a full "
      "fine-tune)");
  // The same patterns may reach a vision encoder's names (model.* does), which a text-only
  // model lacks: said, not set.
  bool vision = false;
  for (const std::string_view name : kVision) {
    vision = vision || any_matches(patterns, std::string(name));
  }
  if (vision) {
    r.unknown(
        "unfrozen_parameters also matches a vision encoder's parameters (give "
        "train_vision_tower if the model has one)");
  }
  return true;
}

}  // namespace tb::api::config_detail
