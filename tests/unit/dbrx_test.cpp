// DBRX (issue 41): DbrxForCausalLM read from config.json as transformers' configuration_dbrx.py
// and modeling_dbrx.py define it (docs/models.md, "DBRX"). Counts by hand from the modules.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

using testing_models::preset_arch;

// DBRX Base: d_model 6144, 40 layers, 48 heads of 128 and 8 KV heads, 16 experts of 10752 (top
// 4), vocabulary 100352, untied, LayerNorms without bias.
// - a layer: Wqkv 6144 x (6144 + 2 x 1024) = 50,331,648, out_proj 6144^2 = 37,748,736, two norms
//   12,288, router 16 x 6144 = 98,304, experts 16 x 3 x 6144 x 10752 = 3,170,893,824:
//   3,259,084,800;
// - 40 layers 130,363,392,000, embeddings and head 2 x 100352 x 6144 = 1,233,125,376, norm_f
//   6,144: 131,596,523,520 (Databricks' "132B").
TEST(Dbrx, BaseCountsByHand) {
  const ModelArchitecture a = preset_arch("dbrx-base");
  EXPECT_EQ(a.attention.head_dim, 128);
  EXPECT_EQ(a.attention.num_kv_heads, 8);
  EXPECT_EQ(count_params(a).total, 131'596'523'520);
  // Active: 4 of 16 experts a token: 12 x 6144 x 10752 fewer experts' weights a layer.
  EXPECT_EQ(count_params(a).total - count_params(a).active, 40LL * 12 * 3 * 6144 * 10752);
}

// The fused Wqkv and out_proj are nn.Linear (LoRA's targets); the experts' w1, v1 and w2 are 3-D
// parameters, not modules; DbrxConfig's defaults fill an empty config.
TEST(Dbrx, ModulesAndDefaults) {
  const std::vector<LinearLayer> all = model_linears(preset_arch("dbrx-base"));
  const auto find = [&](const std::string& path) {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const LinearLayer& l) { return l.path == path; });
    return it == all.end() ? LinearLayer{} : *it;
  };
  EXPECT_TRUE(find("norm_attn_norm.attn.Wqkv").module);
  EXPECT_EQ(find("norm_attn_norm.attn.Wqkv").out_features, 6144 + 2 * 1024);
  EXPECT_TRUE(find("ffn.router.layer").module);
  EXPECT_FALSE(find("ffn.experts.mlp.v1").module);
  EXPECT_EQ(find("ffn.experts.mlp.w2").in_features, 10752);
  // DbrxConfig: d_model 2048, 16 heads, 24 layers, vocabulary 32000, one KV head; 4 experts of
  // 3584, top 1: a layer 2048 x (2048 + 256) + 2048^2 + 2 x 2048 + 4 x 2048 + 4 x 3 x 2048 x 3584
  // = 4,718,592 + 4,194,304 + 4,096 + 8,192 + 88,080,384 = 97,005,568; 24 layers, 2 x 32000 x 2048
  // and norm_f: 2,459,207,680.
  const ModelArchitecture d = io::parse_hf_config(R"({"model_type": "dbrx"})", "defaults");
  EXPECT_EQ(count_params(d).total, 2'459'207'680);
}

}  // namespace
}  // namespace tb
