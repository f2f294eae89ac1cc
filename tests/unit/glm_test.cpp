// The GLM-4 families (issue 41): GLM-4-0414 ("glm4"), GLM-4.5 to 4.7 ("glm4_moe") and
// GLM-4.7-Flash's latent-attention mixture ("glm4_moe_lite"), read from config.json as
// transformers' classes read them (docs/models.md, "GLM-4"). Counts by hand from the modules.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::config;
using testing_models::preset_arch;

// GLM-4-9B-0414 (Glm4Config's own defaults): hidden 4096, 40 layers, heads 32 / 2 of 128, MLP
// 13696, vocabulary 151552, untied.
// - attention: q_proj 4096 x 4096 + 4096 bias, k_proj and v_proj 4096 x 256 + 256, o_proj
//   4096 x 4096 unbiased: 35,656,192;
// - MLP: gate_up_proj 4096 x 27392, down_proj 13696 x 4096: 168,296,448; four norms 16,384;
// - total 2 x 151552 x 4096 + 40 x 203,969,024 + 4096 = 9,400,279,040 (the Hub's "9.4B").
TEST(Glm, Glm4DenseCountsByHand) {
  const ModelArchitecture a = config("glm-4-9b-0414.json");
  EXPECT_EQ(a.norms_per_layer, 4);
  EXPECT_TRUE(a.mlp.fused_gate_up);
  EXPECT_EQ(attention_params(a), 35'656'192);
  EXPECT_EQ(dense_mlp_params(a), 168'296'448);
  EXPECT_EQ(count_params(a).total, 9'400'279'040);
  const std::vector<LinearLayer> linears = model_linears(a);
  const auto named = [&](std::string_view path) {
    return std::any_of(linears.begin(), linears.end(),
                       [&](const LinearLayer& l) { return l.path == path; });
  };
  EXPECT_TRUE(named("mlp.gate_up_proj"));
  EXPECT_FALSE(named("mlp.gate_proj"));
  EXPECT_TRUE(named("self_attn.q_proj"));
}

// GLM-4.5-Air: hidden 4096, 46 layers (the first dense), heads 96 / 8 of 128 with q/k/v biases,
// 128 experts of 1408 (top 8) and one shared, dense MLP 10944, one MTP layer.
// - attention: 4096 x 12288 + 12288, 2 x (4096 x 1024 + 1024), 12288 x 4096: 109,066,240;
// - total without the MTP layer 106,852,251,264 (the card's "106 billion"); with it and its
//   embedding and head copies 110,468,824,832 (the Hub's "110B").
// GLM-4.5: hidden 5120, 92 layers (3 dense), 160 experts of 1536, q/k norms: attention
// 136,329,472; with the MTP layer 358,337,791,296 (the Hub's "358B").
TEST(Glm, Glm45TotalsMatchTheHub) {
  const ModelArchitecture air = preset_arch("glm-4.5-air");
  EXPECT_EQ(attention_params(air), 109'066'240);
  const ParamCounts c = count_params(air);
  EXPECT_EQ(c.total, 106'852'251'264);
  EXPECT_EQ(c.total_with_mtp, 110'468'824'832);
  const ModelArchitecture big = preset_arch("glm-4.5");
  EXPECT_TRUE(big.attention.qk_norm);
  EXPECT_EQ(attention_params(big), 136'329'472);
  EXPECT_EQ(count_params(big).total_with_mtp, 358'337'791'296);
  ASSERT_TRUE(big.moe.has_value());
  EXPECT_TRUE(big.moe->router_score_bias);
  EXPECT_EQ(big.moe->first_dense_layers, 3);
}

// Glm4MoeLiteConfig's defaults (GLM-4.7-Flash's layers): latent attention of 20 heads
// (q_lora 768, kv_lora 512, nope 192, rope 64, v 256), 64 experts of 1536 (top 4) and one
// shared, one dense layer first.
// - attention: q_a 2048 x 768 + 768, q_b 768 x 20 x 256, kv_a 2048 x 576 + 512, kv_b
//   512 x 20 x 448, o 5120 x 2048: 21,759,232;
// - MoE layer: 64 x 3 x 2048 x 1536 + 3 x 2048 x 1536 + router 64 x 2048 + 64 bias + attention
//   + two norms: 635,311,424; dense layer 84,677,888;
// - total 2 x 154880 x 2048 + 84,677,888 + 46 x 635,311,424 + 2048 = 29,943,393,920.
TEST(Glm, Glm4MoeLiteIsLatentAttentionWithGlmRouting) {
  const ModelArchitecture a = config("glm4-moe-lite-defaults.json");
  ASSERT_TRUE(a.attention.latent.has_value());
  EXPECT_EQ(attention_params(a), 21'759'232);
  EXPECT_EQ(count_params(a).total, 29'943'393'920);
  // mlp_layer_types names the dense layers one by one.
  const std::string with_types = R"({"model_type": "glm4_moe_lite", "hidden_size": 2048,
      "intermediate_size": 10240, "num_hidden_layers": 4, "num_attention_heads": 20,
      "vocab_size": 154880, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"]})";
  const ModelArchitecture t = io::parse_hf_config(with_types, "types.json");
  ASSERT_TRUE(t.moe.has_value());
  EXPECT_EQ(t.moe->first_dense_layers, 0);
  EXPECT_EQ(t.moe->dense_layers, (std::vector<std::int64_t>{0, 2}));
  const std::string bad = R"({"model_type": "glm4_moe_lite", "hidden_size": 2048,
      "intermediate_size": 10240, "num_hidden_layers": 2, "num_attention_heads": 20,
      "vocab_size": 154880, "mlp_layer_types": ["dense", "moe"]})";
  try {
    (void)io::parse_hf_config(bad, "bad.json");
    ADD_FAILURE() << "an unknown mlp_layer_types entry was accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("mlp_layer_types: entry 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tb
