// axolotl's unfrozen_parameters (src/api/axolotl_unfrozen.cpp), read as freeze_layers_except
// reads it (axolotl's src/axolotl/utils/freeze.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "trainbudget/api/training_config.hpp"

namespace tb {
namespace {

api::TrainingConfig read(const std::string& unfrozen, const std::string& extra = "") {
  return api::parse_training_config("base_model: llama-3.1-8b\nsequence_len: 2048\n" + extra +
                                        "unfrozen_parameters:\n" + unfrozen,
                                    "/none");
}

bool listed(const api::TrainingConfig& c, const std::string& start) {
  return std::any_of(c.unknown.begin(), c.unknown.end(),
                     [&](const std::string& u) { return u.starts_with(start); });
}

bool mapped(const api::TrainingConfig& c) {
  return std::any_of(c.mapped.begin(), c.mapped.end(), [](const std::string& m) {
    return m.starts_with("unfrozen_parameters -> every language-model weight");
  });
}

// The whole language model, in either vision-language layout or a text-only one: the default.
TEST(AxolotlUnfrozen, TheWholeLanguageModelIsTheDefault) {
  EXPECT_TRUE(mapped(read("  - model.language_model.*\n  - lm_head\n  - embed_tokens\n")));
  EXPECT_TRUE(mapped(read("  - ^model.language_model.*\n  - ^lm_head.*\n")));
  EXPECT_TRUE(mapped(read("  - language_model.model.*\n  - language_model.lm_head\n")));
  const api::TrainingConfig text = read("  - model.*\n  - lm_head.weight\n");
  EXPECT_TRUE(mapped(text));
  // model.* reaches model.vision_tower too: said, not set.
  EXPECT_TRUE(listed(text, "unfrozen_parameters also matches a vision encoder"));
  EXPECT_FALSE(text.values.contains("train_vision_tower"));
}

// Dots are literal (model.layers.2 does not match model_layers_2), so a pattern naming some
// layers, or the embeddings and the head alone, trains a subset: listed, not modelled.
TEST(AxolotlUnfrozen, ASubsetIsListed) {
  EXPECT_TRUE(listed(read("  - ^lm_head.weight$\n  - model.layers.4[4-9]+.block_sparse_moe.gate\n"),
                     "unfrozen_parameters=^lm_head.weight$"));
  EXPECT_TRUE(listed(read("  - transformer.blocks.[0-7].\n"), "unfrozen_parameters="));
  EXPECT_TRUE(listed(read("  - model.layers.[0-9]+.self_attn\n"), "unfrozen_parameters="));
  // "model.layers.+" keeps its dot a wildcard (a '+' follows), still only the layers.
  EXPECT_TRUE(listed(read("  - model.layers.+\n"), "unfrozen_parameters="));
  // An adapter wraps the model first (its names then start base_model.model.).
  EXPECT_TRUE(listed(read("  - model.*\n", "adapter: lora\n"), "unfrozen_parameters="));
  EXPECT_TRUE(listed(read("  - model.[\n"), "unfrozen_parameters="));  // not a regex
  // Empty: nothing said.
  const api::TrainingConfig none = read("\n");
  EXPECT_FALSE(listed(none, "unfrozen_parameters"));
  EXPECT_FALSE(mapped(none));
}

}  // namespace
}  // namespace tb
