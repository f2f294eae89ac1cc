// LFM2 and LFM2-MoE (issue 41; docs/models.md, "LFM2"): short convolutions with attention in a few
// layers. Counts by hand from transformers' modeling_lfm2.py and modular_lfm2_moe.py, against the
// checkpoints' published totals; the MLP's width rule, the linears' names, FLOPs, activations
// and the cache's state from their formulas.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "find_linear.hpp"
#include "test_models.hpp"
#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/model/kv_cache.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::preset_arch;
constexpr auto find = testing_models::find_linear;

// LFM2 350M: hidden 1024, 16 layers, attention (16 / 8 heads of 64, q/k norms of 64) at 2, 5, 8,
// 10, 12, 14; the MLP 2 x 6656 / 3 = 4437 rounded up to 4608 (block_multiple_of 256).
// - conv: in_proj 1024 x 3072, conv1d 1024 x 3, out_proj 1024 x 1024 = 4,197,376;
// - attention: 2 x 1024 x 1024 + 2 x 1024 x 512 + 128 = 3,145,856;
// - MLP 3 x 1024 x 4608 = 14,155,776; two norms 2,048;
// 10 x 4,197,376 + 6 x 3,145,856 + 16 x 14,157,824 + 1,024 + 65,536 x 1,024 (tied) = 354,483,968,
// LiquidAI's published count.
TEST(Lfm2, ThreeHundredFiftyMillionCountsByHand) {
  const ModelArchitecture a = preset_arch("lfm2-350m");
  EXPECT_EQ(a.mlp.intermediate, 4608);
  EXPECT_EQ(linear_attention_params(a), 4'197'376);
  EXPECT_EQ(attention_params(a), 3'145'856);
  EXPECT_EQ(attention_layer_count(a), 6);
  EXPECT_EQ(linear_attention_layer_count(a), 10);
  EXPECT_TRUE(is_attention_layer(a, 2));
  EXPECT_FALSE(is_attention_layer(a, 3));
  EXPECT_EQ(count_params(a).total, 354'483'968);
  const std::vector<LinearLayer> all = model_linears(a);
  EXPECT_EQ(find(all, "conv.in_proj").out_features, 3072);
  EXPECT_EQ(find(all, "conv.in_proj").layers, 10);
  EXPECT_EQ(find(all, "self_attn.out_proj").layers, 6);
  EXPECT_EQ(find(all, "feed_forward.w1").out_features, 4608);
}

// LFM2 8B-A1B: two dense layers of 7168 (not adjusted), then 22 layers of 32 experts of 1792,
// top 4, a 32-way router without bias and its fp32 expert_bias; attention at 2, 6, 10, 14, 18, 21.
// 65,536 x 2,048 + 2,048 + 24 x 4,096 + 18 x 12,589,056 + 6 x 10,485,888 + 2 x 44,040,192 +
// 22 x (32 x 11,010,048 + 65,536 + 32) = 8,339,930,560: the checkpoint's 8,339,929,856 bf16 values
// and 704 fp32 ones.
TEST(Lfm2, MoeCountsTheCheckpoint) {
  const ModelArchitecture a = preset_arch("lfm2-8b-a1b");
  EXPECT_EQ(moe_layer_count(a), 22);
  EXPECT_EQ(count_params(a).total, 8'339'930'560);
  const std::vector<LinearLayer> all = model_linears(a);
  EXPECT_EQ(find(all, "feed_forward.gate").out_features, 32);
  EXPECT_EQ(find(all, "feed_forward.experts.gate_up_proj").copies, 32);
  EXPECT_FALSE(find(all, "feed_forward.experts.gate_up_proj").module);
  EXPECT_EQ(find(all, "feed_forward.w1").layers, 2);
}

// The conv's FLOPs (2 x 3 taps x 1024 a token in each of 10 layers), its saved activations
// (in_proj's input and output, the conv's input and output, out_proj's input: 7 x 1024 elements at
// 2 bytes), no recurrent state, and the cache: keys and values in 6 layers, 2 taps of the hidden
// width in the other 10.
TEST(Lfm2, ConvFlopsActivationsAndCache) {
  const ModelArchitecture a = preset_arch("lfm2-350m");
  const FlopShape shape = flop_shape(a, false, {});
  EXPECT_DOUBLE_EQ(shape.linear_attention_flops, 10.0 * 2.0 * 3.0 * 1024.0);
  EXPECT_EQ(shape.windows.size(), 6U);
  StepDims d = shape_dims(a);
  d.b = 1;
  d.s = 1;
  d.e = 2;
  EXPECT_DOUBLE_EQ(d.linear_share, 10.0 / 16.0);
  EXPECT_DOUBLE_EQ(d.attention_share, 6.0 / 16.0);
  double conv = 0.0;
  for (const ActivationRow& row : decoder_layer_rows()) {
    if (std::string_view{row.module} != "linear_attention" || !row.applies(d)) continue;
    conv += row.elements(d) * element_bytes(row.bytes, d);
  }
  EXPECT_DOUBLE_EQ(conv, 7.0 * 1024.0 * 2.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 6.0 * 2.0 * 8.0 * 64.0 * 2.0);
  EXPECT_DOUBLE_EQ(linear_attention_state_bytes(a).value(), 10.0 * 2.0 * 1024.0 * 2.0);
}

// Without a multiplier transformers keeps two thirds of the width as it is; layer_types and
// full_attn_idxs give the same layers; a model of convolutions alone is refused naming the key.
TEST(Lfm2, WidthRuleAndLayerKeys) {
  const std::string head =
      R"({"model_type": "lfm2", "hidden_size": 256, "num_hidden_layers": 4,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 1000, )";
  const ModelArchitecture plain = io::parse_hf_config(head + R"("full_attn_idxs": [1]})", "t");
  EXPECT_EQ(plain.mlp.intermediate, 666);
  EXPECT_EQ(attention_layer_count(plain), 1);
  const ModelArchitecture typed = io::parse_hf_config(
      head + R"("block_auto_adjust_ff_dim": false, "layer_types": ["conv", "full_attention",
      "conv", "conv"]})",
      "t");
  EXPECT_EQ(typed.mlp.intermediate, 1000);
  EXPECT_TRUE(is_attention_layer(typed, 1));
  EXPECT_EQ(count_params(plain).total - count_params(typed).total, 4 * 3 * 256 * (666 - 1000));
  EXPECT_THROW(
      (void)io::parse_hf_config(head + R"("layer_types": ["conv", "conv", "conv", "conv"]})", "t"),
      DataError);
}

}  // namespace
}  // namespace tb
