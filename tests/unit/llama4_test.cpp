// Llama 4 (issue 41): Llama4ForConditionalGeneration read from config.json as transformers'
// configuration_llama4.py and modeling_llama4.py define it (docs/models.md, "Llama 4"). Counts by
// hand from the modules.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_models.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

using testing_models::preset_arch;

// Llama 4 Scout: hidden 5120, 48 layers, every one MoE (16 experts of 8192, top 1, one shared
// expert of 8192), heads 40 / 8 of 128 without biases, vocabulary 202048, untied.
// - attention: 2 x 5120 x 5120 + 2 x 5120 x 1024 = 62,914,560;
// - MoE layer: 16 x 3 x 5120 x 8192 + 3 x 5120 x 8192 + router 16 x 5120 + attention + two
//   norms = 2,202,101,760; language model 48 x that + 2 x 202048 x 5120 + 5120 =
//   107,769,861,120;
// - vision: patch linear 3 x 14^2 x 1408 = 827,904, class 1408, positions 577 x 1408 = 812,416,
//   pre/post LayerNorms 5,632, 34 layers of 23,807,872 (q/k/v/o 4 x (1408^2 + 1408), fc1 and fc2
//   biased, two LayerNorms), adapter 5632 x 4096 + 4096 x 4096: 850,960,896; projector 4096 x
//   5120 = 20,971,520;
// - total 108,641,793,536 (the Hub's "109B").
// Maverick: 128 experts in every second layer (interleave_moe_layer_step 2), dense layers of
// 16384: 401,583,781,376 (the Hub's "402B").
TEST(Llama4, ScoutAndMaverickCountByHand) {
  const ModelArchitecture scout = preset_arch("llama-4-scout");
  EXPECT_EQ(attention_params(scout), 62'914'560);
  const ParamCounts c = count_params(scout);
  EXPECT_EQ(c.vision, 850'960'896 + 20'971'520);
  EXPECT_EQ(c.total, 108'641'793'536);
  const ModelArchitecture maverick = preset_arch("llama-4-maverick");
  ASSERT_TRUE(maverick.moe.has_value());
  EXPECT_EQ(maverick.moe->layer_step, 2);
  EXPECT_FALSE(is_moe_layer(maverick, 0));
  EXPECT_TRUE(is_moe_layer(maverick, 1));
  EXPECT_EQ(count_params(maverick).total, 401'583'781'376);
}

// The experts are 3-D parameters (Llama4TextExperts), not nn.Linear; the router and the shared
// expert are, under feed_forward.
TEST(Llama4, ExpertsAreParametersAndTheRestIsFeedForward) {
  const std::vector<LinearLayer> all = model_linears(preset_arch("llama-4-scout"));
  const auto find = [&](const std::string& path) {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const LinearLayer& l) { return l.path == path; });
    if (it == all.end()) {
      ADD_FAILURE() << path;
      return LinearLayer{};
    }
    return *it;
  };
  EXPECT_FALSE(find("feed_forward.experts.gate_up_proj").module);
  EXPECT_EQ(find("feed_forward.experts.gate_up_proj").out_features, 2 * 8192);
  EXPECT_TRUE(find("feed_forward.router").module);
  EXPECT_TRUE(find("feed_forward.shared_expert.down_proj").module);
  EXPECT_EQ(find("feed_forward.shared_expert.down_proj").layers, 48);
  EXPECT_EQ(find("multi_modal_projector.linear_1").in_features, 4096);
  const ModelArchitecture maverick = preset_arch("llama-4-maverick");
  EXPECT_EQ(find("self_attn.q_proj").layers, 48);
  const std::vector<LinearLayer> m = model_linears(maverick);
  EXPECT_TRUE(std::any_of(m.begin(), m.end(), [](const LinearLayer& l) {
    return l.path == "feed_forward.gate_proj" && l.in_features == 5120 && l.out_features == 16384;
  }));
}

// moe_layers, when given, lists the MoE layers and wins over the interleaving step; a text-only
// llama4_text config reads alone.
TEST(Llama4, MoeLayersListAndTextOnlyConfigs) {
  const std::string text = R"({"model_type": "llama4_text", "hidden_size": 512,
      "num_hidden_layers": 4, "num_attention_heads": 8, "vocab_size": 1000,
      "intermediate_size": 256, "intermediate_size_mlp": 1024, "num_local_experts": 4,
      "moe_layers": [0, 3]})";
  const ModelArchitecture a = io::parse_hf_config(text, "text.json");
  EXPECT_TRUE(is_moe_layer(a, 0));
  EXPECT_FALSE(is_moe_layer(a, 1));
  EXPECT_FALSE(is_moe_layer(a, 2));
  EXPECT_TRUE(is_moe_layer(a, 3));
  EXPECT_FALSE(a.vision.has_value());
  EXPECT_EQ(a.attention.head_dim, 128);
}

// axolotl's llama4_linearized_experts (its Llama 4 checkpoints with each expert an nn.Linear)
// lets bitsandbytes quantize the experts with the base: quantize_moe_experts under QLoRA, and
// nothing without a quantized base.
TEST(Llama4, AxolotlLinearizedExpertsAreQuantizedWithTheBase) {
  const std::string base = "base_model: llama-4-scout\nsequence_len: 4096\n";
  const api::TrainingConfig q = api::parse_training_config(
      base + "adapter: qlora\nload_in_4bit: true\nllama4_linearized_experts: true\n", "/none");
  EXPECT_EQ(q.values.at("quantize_moe_experts"), "true");
  const api::TrainingConfig lora = api::parse_training_config(
      base + "adapter: lora\nllama4_linearized_experts: true\n", "/none");
  EXPECT_FALSE(lora.values.contains("quantize_moe_experts"));
  EXPECT_NE(std::find(lora.unknown.begin(), lora.unknown.end(),
                      "llama4_linearized_experts=true without a quantized base"),
            lora.unknown.end());
}

}  // namespace
}  // namespace tb
