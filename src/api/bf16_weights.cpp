// A full fine-tune whose framework loads the model in bf16 and keeps no fp32 copy: AdamW's
// moments follow the parameters' dtype (torch.optim.AdamW: zeros_like(param)), so the recipe is
// the pure-bf16 one of the optimizer the config names (docs/configs.md). The callers decide
// when a framework does so; reconcile_training_configs undoes it beside a launch that keeps an
// fp32 master.
#include <algorithm>
#include <string_view>
#include <vector>

#include "config_formats.hpp"

namespace tb::api::config_detail {
namespace {
constexpr std::string_view kRule = " (the model loaded in bf16, no fp32 copy) -> recipe";
}  // namespace

void keep_bf16_weights(TrainingConfig& out, const std::string& key) {
  const auto it = out.values.find("recipe");
  const std::string recipe = it == out.values.end() ? "amp-adam" : it->second;
  const std::string bf16 = recipe == "amp-adam"                                   ? "pure-bf16-adam"
                           : recipe == "adam-8bit" || recipe == "paged-adam-8bit" ? "bf16-adam-8bit"
                           : recipe == "adam-4bit"                                ? "bf16-adam-4bit"
                                                                                  : "";
  if (bf16.empty()) return;
  out.recipe_before_bf16 = recipe;
  out.values["recipe"] = bf16;
  std::erase(out.no_effect, key);
  out.mapped.push_back(key + std::string{kRule});
}

}  // namespace tb::api::config_detail

namespace tb::api {

using config_detail::kRule;

void reconcile_training_configs(std::vector<TrainingConfig>& configs) {
  const bool fp32_master = std::any_of(configs.begin(), configs.end(),
                                       [](const TrainingConfig& c) { return c.keeps_fp32_master; });
  if (!fp32_master) return;
  for (TrainingConfig& c : configs) {
    if (c.recipe_before_bf16.empty()) continue;
    c.values["recipe"] = c.recipe_before_bf16;
    for (const std::string& m : c.mapped) {
      if (m.ends_with(kRule)) c.no_effect.push_back(m.substr(0, m.size() - kRule.size()));
    }
    std::erase_if(c.mapped, [&](const std::string& m) { return m.ends_with(kRule); });
    c.mapped.push_back("optimizer (an fp32 master kept by another config file's launch) -> recipe");
    c.recipe_before_bf16.clear();
  }
}

}  // namespace tb::api
