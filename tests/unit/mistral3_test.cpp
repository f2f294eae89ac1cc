// Mistral 3 (issue 41): Mistral3ForConditionalGeneration read from config.json as transformers'
// configuration_mistral3.py, modeling_mistral3.py and modeling_pixtral.py define it
// (docs/models.md, "Mistral 3"). Counts by hand from the modules.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::preset_arch;

// Mistral Small 3.1 (Mistral3Config's defaults, which its docstring gives as
// mistralai/Mistral-Small-3.1-24B-Instruct-2503's):
// - language model: Mistral Small 3's, 23,572,403,200 (the mistral-small-24b preset);
// - Pixtral tower: patch_conv 3 x 14^2 x 1024 = 602,112, ln_pre 1,024, 24 layers of
//   2 x 1024 + 4 x 1024^2 + 3 x 1024 x 4096 = 16,779,264: 403,305,472;
// - projector: norm 1,024, merging_layer 4 x 1024 x 1024 = 4,194,304, linear_1 1024 x 5120 =
//   5,242,880, linear_2 5120 x 5120 = 26,214,400, no biases: 35,652,608;
// - total 24,011,361,280 (the Hub's "24B").
TEST(Mistral3, SmallThreeOneCountsByHand) {
  const ModelArchitecture defaults = io::parse_hf_config(R"({"model_type": "mistral3"})", "d");
  ASSERT_TRUE(defaults.vision.has_value());
  EXPECT_EQ(defaults.vision->kind, VisionKind::kPixtral);
  const ParamCounts c = count_params(defaults);
  EXPECT_EQ(c.vision, 403'305'472 + 35'652'608);
  EXPECT_EQ(c.total, 24'011'361'280);
  EXPECT_EQ(c.total - c.vision, count_params(preset_arch("mistral-small-24b")).total);
  EXPECT_EQ(count_params(preset_arch("mistral-small-3.1-24b")).total, 24'011'361'280);
}

// The projector's biases and a list of feature layers: linear_1 takes their concatenation.
// A 2-layer tower of 64 (intermediate 128, patch 4) into a 32-wide model, merge 2, biased, two
// feature layers: tower 3 x 16 x 64 + 64 + 2 x (128 + 4 x 64^2 + 3 x 64 x 128) = 3,136 +
// 2 x 41,088 = 85,312; projector 64 + 256 x 64 + (128 x 32 + 32) + (32 x 32 + 32) = 21,632.
TEST(Mistral3, ProjectorBiasAndFeatureLayers) {
  const std::string config = R"({"model_type": "mistral3", "multimodal_projector_bias": true,
      "vision_feature_layer": [-1, -2], "spatial_merge_size": 2,
      "text_config": {"model_type": "mistral", "hidden_size": 32, "intermediate_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "vocab_size": 100},
      "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "image_size": 64, "patch_size": 4}})";
  const ModelArchitecture a = io::parse_hf_config(config, "small");
  ASSERT_TRUE(a.vision.has_value());
  EXPECT_EQ(a.vision->feature_layers, 2);
  EXPECT_EQ(count_params(a).vision, 85'312 + 21'632);
  const std::vector<LinearLayer> all = model_linears(a);
  const auto find = [&](const std::string& path) {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const LinearLayer& l) { return l.path == path; });
    return it == all.end() ? LinearLayer{} : *it;
  };
  EXPECT_EQ(find("multi_modal_projector.linear_1").in_features, 128);
  EXPECT_TRUE(find("multi_modal_projector.linear_1").bias);
  EXPECT_EQ(find("multi_modal_projector.patch_merger.merging_layer").in_features, 256);
  EXPECT_EQ(find("vision_tower.transformer.layers.feed_forward.gate_proj").layers, 2);
  EXPECT_EQ(find("self_attn.q_proj").layers, 2);  // the language model's, apart
}

// Ministral 3 (Ministral3Config): Mistral's parameters under text_config, head_dim 128 by
// default, and the LM head tied where the wrapper says so and the text config does not.
TEST(Mistral3, MinistralTextAndTheTie) {
  const std::string text = R"({"model_type": "ministral3", "hidden_size": 256,
      "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000})";
  const ModelArchitecture alone = io::parse_hf_config(text, "ministral3");
  EXPECT_EQ(alone.attention.head_dim, 128);
  EXPECT_FALSE(alone.tie_embeddings);
  const ModelArchitecture wrapped = io::parse_hf_config(
      R"({"model_type": "mistral3", "tie_word_embeddings": true, "text_config": )" + text + "}",
      "wrapped");
  EXPECT_TRUE(wrapped.tie_embeddings);
  EXPECT_EQ(count_params(wrapped).total - count_params(wrapped).vision,
            count_params(alone).total - 1000 * 256);
  EXPECT_THROW((void)io::parse_hf_config(
                   R"({"model_type": "mistral3", "text_config": {"model_type": "qwen2"}})", "x"),
               DataError);
}

// Mistral 4 (Mistral4Config's defaults, Mistral Small 4's language model, its dimensions given):
// latent attention q_a 4096 x 1024, its norm 1024, q_b 1024 x 32 x 128, kv_a 4096 x (256 + 64), its
// norm 256, kv_b 256 x 32 x (64 + 128), o 4096 x 4096: 28,050,688 a layer; the router 128 x 4096,
// 128 experts of 3 x 4096 x 2048 and one shared expert: 3,246,915,584; two norms 8,192; 36 layers
// 117,899,080,704; embeddings and head 2 x 131072 x 4096, final norm 4,096: 118,972,826,624,
// the "119B" of Mistral Small 4. The experts and the router are parameters, not nn.Linear.
TEST(Mistral3, MistralFourCountsByHand) {
  // The dimensions the published configs state (Mistral4Config's defaults); the rest default.
  const std::string dims = R"("hidden_size": 4096, "num_hidden_layers": 36, "vocab_size": 131072,
      "intermediate_size": 12288, "num_attention_heads": 32)";
  const ModelArchitecture a =
      io::parse_hf_config(R"({"model_type": "mistral4", )" + dims + "}", "m4");
  ASSERT_TRUE(a.moe.has_value());
  EXPECT_FALSE(a.moe->router_score_bias);
  EXPECT_EQ(a.mtp_layers, 0);
  EXPECT_EQ(count_params(a).total, 118'972'826'624);
  const ModelArchitecture wrapped = io::parse_hf_config(
      R"({"model_type": "mistral3", "text_config": {"model_type": "mistral4", )" + dims + "}}",
      "wrapped");
  EXPECT_EQ(count_params(wrapped).total - count_params(wrapped).vision, 118'972'826'624);
  const std::vector<LinearLayer> all = model_linears(a);
  for (const char* path : {"mlp.gate", "mlp.experts.gate_up_proj", "mlp.experts.down_proj"}) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const LinearLayer& l) { return l.path == path; });
    ASSERT_NE(it, all.end()) << path;
    EXPECT_FALSE(it->module) << path;
  }
}

}  // namespace
}  // namespace tb
