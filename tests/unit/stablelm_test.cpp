// StableLM 2 (issue 41), read from config.json as transformers' configuration_stablelm.py and
// modeling_stablelm.py define it (docs/models.md). Counts by hand from the modules.
#include <gtest/gtest.h>

#include <string>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

// StableLM 2 1.6B: hidden 2048, 24 layers, 32 heads of 64 with q/k/v biases, MLP 5632,
// vocabulary 100352, untied, LayerNorms with bias.
// - attention 4 x 2048^2 + 3 x 2048 = 16,783,360; MLP 3 x 2048 x 5632 = 34,603,008; two
//   LayerNorms 8,192: a layer 51,394,560;
// - total 2 x 100352 x 2048 + 24 layers + a final LayerNorm (4,096) = 1,644,515,328 (the Hub's
//   "1.64B").
TEST(StableLm, TwoOnePointSixBCountsByHand) {
  const ModelArchitecture a = testing_models::config("stablelm-2-1_6b.json");
  EXPECT_EQ(attention_params(a), 16'783'360);
  EXPECT_EQ(dense_mlp_params(a), 34'603'008);
  EXPECT_EQ(count_params(a).total, 1'644'515'328);
  // StableLM 2 12B's per-head q/k LayerNorms are refused by name.
  const std::string twelve = R"({"model_type": "stablelm", "hidden_size": 512,
      "num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000,
      "intermediate_size": 1024, "qk_layernorm": true})";
  try {
    (void)io::parse_hf_config(twelve, "12b.json");
    ADD_FAILURE() << "qk_layernorm was accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("qk_layernorm: true"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tb
