// Nemotron-H (docs/models.md, "Nemotron-H"): blocks of one sublayer each read from
// hybrid_override_pattern, every MLP joined to a mixer and the mixers beyond them without one;
// exact totals against published figures; the average layer's MLP share in the step.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TB_TEST_DIR) + "/data/hf_configs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(NemotronH, EightBIsCountedExactly) {
  const ModelArchitecture a =
      io::parse_hf_config(fixture("nemotron-h-8b-base-8k.json"), "nemotron-h-8b");
  // 24 Mamba-2 mixers and 4 attention blocks: 28 decoder layers, 24 with an MLP.
  EXPECT_EQ(a.num_layers, 28);
  EXPECT_EQ(a.mlp_free_layers, 4);
  EXPECT_EQ(attention_layer_count(a), 4);
  EXPECT_EQ(linear_attention_layer_count(a), 24);
  EXPECT_EQ(a.attention.head_dim, 128);  // attention_head_dim
  EXPECT_FALSE(a.mlp.gated);
  // A third party's named_parameters() sum for nvidia/Nemotron-H-8B-Base-8K.
  EXPECT_EQ(count_params(a).total, 8'100'852'736);
  // By hand: the Mamba-2 layer (in_proj 18,560 x 4,096; conv1d over 10,240 channels of 4 taps
  // with a bias; dt_bias, A_log, D; the gated norm over 8,192; out_proj) and its block norm.
  const std::int64_t mamba = 18'560LL * 4'096 + 10'240 * 5 + 3 * 128 + 8'192 + 8'192LL * 4'096;
  EXPECT_EQ(linear_attention_params(a), mamba);
  EXPECT_EQ(mamba, 109'635'968);
  // The step's average layer: the MLP in 24 of 28 layers.
  EXPECT_DOUBLE_EQ(shape_dims(a).mlp_share, 24.0 / 28.0);
  // Multiply-adds a token: 24 MLPs of up and down (4,096 x 21,504 each); the token mixers' 24
  // in/out projections and 4 attention blocks' q, k, v, o.
  const FlopShape f = flop_shape(a, false, {});
  EXPECT_DOUBLE_EQ(f.group_macs[1], 24.0 * 2.0 * 4'096.0 * 21'504.0);
  const double attention = 4.0 * 4'096.0 * (4'096.0 + 2.0 * 1'024.0 + 4'096.0);
  const double mixers = 24.0 * (18'560.0 * 4'096.0 + 8'192.0 * 4'096.0);
  EXPECT_DOUBLE_EQ(f.group_macs[0], attention + mixers);
}

TEST(NemotronH, LayersBlockTypeReadsAsThePattern) {
  const std::string text = fixture("nemotron-h-8b-base-8k.json");
  std::string list = "[";
  for (const char c : std::string("M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-")) {
    list += c == 'M' ? "\"mamba\"," : c == '*' ? "\"attention\"," : "\"mlp\",";
  }
  list.back() = ']';
  const ModelArchitecture a = io::parse_hf_config(
      with(text,
           "\"hybrid_override_pattern\": \"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\"",
           "\"layers_block_type\": " + list),
      "listed");
  EXPECT_EQ(count_params(a).total, 8'100'852'736);
}

TEST(NemotronH, MoeBlocksAndOddPatternsAreRefused) {
  const std::string text = fixture("nemotron-h-8b-base-8k.json");
  const auto refused = [&](const std::string& pattern) {
    try {
      (void)io::parse_hf_config(
          with(text, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", pattern), "odd");
    } catch (const DataError& e) {
      return std::string(e.what()).find("hybrid_override_pattern") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused("M-M*EM-"));  // MLP and MoE blocks in one model
  EXPECT_TRUE(refused("M-M-M-"));   // no attention
  EXPECT_TRUE(refused("M---*-"));   // more MLPs than mixers
}

// Nemotron 3's MoE blocks: every E block joins a mixer (23 of 29 layers MoE, 6 without a block),
// relu2 experts of two matrices, the router with its score bias, one shared MLP.
TEST(NemotronH, MoeBlocksJoinMixersToo) {
  std::string text = fixture("nemotron-h-8b-base-8k.json");
  text = with(text, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
              "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME");
  text = with(text, "\"hidden_size\": 4096", "\"hidden_size\": 2688");
  text = with(text, "\"intermediate_size\": 21504",
              "\"intermediate_size\": 1856, \"n_routed_experts\": 128, "
              "\"num_experts_per_tok\": 6, \"moe_intermediate_size\": 1856, "
              "\"moe_shared_expert_intermediate_size\": 3712, \"n_shared_experts\": 1");
  text = with(text, "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 2");
  text = with(text, "\"mamba_num_heads\": 128", "\"mamba_num_heads\": 64");
  const ModelArchitecture a = io::parse_hf_config(text, "nano-30b");
  EXPECT_EQ(a.num_layers, 29);
  EXPECT_EQ(a.mlp_free_layers, 6);
  EXPECT_EQ(moe_layer_count(a), 23);
  EXPECT_FALSE(a.moe->gated);
  // llama.cpp's n_params for nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (every tensor).
  EXPECT_EQ(count_params(a).total, 31'577'940'288);
  // One expert: up and down, 2 x 2,688 x 1,856; the router 128 x 2,688 and its 128 biases.
  EXPECT_EQ(expert_params(a), 2LL * 2'688 * 1'856);
  EXPECT_EQ(router_params(a), 128LL * 2'688 + 128);
  // The dense kind holds the 6 layers without a block.
  EXPECT_DOUBLE_EQ(shape_dims(a).mlp_share, 0.0);
  // Nemotron 3 Super's latent experts are refused, naming the key.
  try {
    (void)io::parse_hf_config(
        with(text, "\"n_shared_experts\": 1", "\"n_shared_experts\": 1, \"moe_latent_size\": 1024"),
        "super");
    FAIL() << "latent experts were read";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("moe_latent_size"), std::string::npos);
  }
}

}  // namespace
}  // namespace tb
