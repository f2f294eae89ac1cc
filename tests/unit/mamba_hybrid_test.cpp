// The Mamba-2 hybrids (issue 41; docs/models.md, "Mamba-2 hybrids"): Falcon-H1 (a Mamba-2 mixer
// beside attention in every layer), Bamba and Granite 4.0's hybrids (a Mamba-2 mixer or attention
// a layer). Counts by hand from transformers' modules (modular_falcon_h1.py, modeling_bamba.py,
// modeling_granitemoehybrid.py); FLOPs, activations, cache and state from their formulas.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "find_linear.hpp"
#include "test_models.hpp"
#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/gated_delta_cost.hpp"
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

// Falcon-H1 0.5B: hidden 1024, 36 layers, heads 8 / 2 of 64, MLP 2048, vocabulary 32784, untied;
// Mamba-2 d_ssm 1536 = 24 heads x 64, one group, d_state 128, 4 taps, no gated norm.
// - attention: q 1024 x 512, k and v 1024 x 128, o 512 x 1024 = 1,310,720;
// - mixer: in_proj 1024 x (2 x 1536 + 2 x 128 + 24) = 3,432,448; conv1d (1536 + 256) x 4 and its
//   bias 1,792; dt_bias, A_log, D 72; out_proj 1536 x 1024 = 1,572,864: 5,014,344;
// - MLP 3 x 1024 x 2048 = 6,291,456; two norms 2,048: a layer 12,618,568;
// 36 layers + the final norm 1,024 + embedding and head 2 x 32,784 x 1,024 = 521,411,104.
TEST(MambaHybrid, FalconH1HalfBillionCountsByHand) {
  const ModelArchitecture a = preset_arch("falcon-h1-0.5b");
  EXPECT_EQ(attention_params(a), 1'310'720);
  EXPECT_EQ(linear_attention_params(a), 5'014'344);
  EXPECT_EQ(decoder_layer_params(a, false, true), 12'618'568);
  EXPECT_EQ(linear_attention_layer_count(a), 36);
  EXPECT_EQ(attention_layer_count(a), 36);
  EXPECT_TRUE(is_attention_layer(a, 0));
  EXPECT_TRUE(is_linear_attention_layer(a, 0));
  EXPECT_EQ(count_params(a).total, 521'411'104);
}

// Bamba 9B: hidden 4096, 32 layers, attention at 9, 18, 27 (32 / 8 heads of 128), Mamba-2 d_ssm
// 8192 = 128 heads x 64 elsewhere, MLP 14336, vocabulary 128256, untied.
// - attention 4096 x 4096 x 2 + 2 x 4096 x 1024 = 41,943,040;
// - mixer: in_proj 4096 x (2 x 8192 + 256 + 128) = 68,681,728; conv1d 8,448 x 4 + 8,448; 384;
//   the gated norm 8,192; out_proj 33,554,432: 102,286,976;
// 3 x 41,943,040 + 29 x 102,286,976 + 32 x (3 x 4096 x 14336 + 8,192) + 4,096 + 2 x 128,256 x
// 4,096 = 9,780,235,392 (IBM's `mamba_9.8b`).
TEST(MambaHybrid, BambaCountsByHandAndItsAttentionLayers) {
  const ModelArchitecture a = preset_arch("bamba-9b");
  EXPECT_EQ(attention_params(a), 41'943'040);
  EXPECT_EQ(linear_attention_params(a), 102'286'976);
  EXPECT_EQ(attention_layer_count(a), 3);
  EXPECT_EQ(linear_attention_layer_count(a), 29);
  EXPECT_TRUE(is_attention_layer(a, 9));
  EXPECT_FALSE(is_linear_attention_layer(a, 18));
  EXPECT_TRUE(is_linear_attention_layer(a, 0));
  EXPECT_FALSE(is_attention_layer(a, 10));
  EXPECT_EQ(count_params(a).total, 9'780'235'392);
}

// Granite 4.0 H Tiny's shape (its config as third-party copies give it): hidden 1536, 40 layers,
// attention (12 / 4 heads of 128) at 5, 15, 25, 35; 64 experts of 512, top 6, a shared MLP of
// 1024 in every layer; Mamba-2 d_ssm 3072 = 48 heads x 64, d_state 128; vocabulary 100352, tied.
// 4 x 6,291,456 + 36 x 14,642,576 + 40 x (64 x 3 x 1536 x 512 + 3 x 1536 x 1024 + 1536 x 64 +
// 3,072) + 1,536 + 100,352 x 1,536 = 6,939,037,248.
std::string granite_tiny(std::string_view layer_four) {
  std::string types;
  for (int i = 0; i < 40; ++i) {
    std::string_view t = i % 10 == 5 ? "attention" : "mamba";
    if (i == 4) t = layer_four;
    types += std::string{i == 0 ? "" : ", "} + "\"" + std::string{t} + "\"";
  }
  return R"({"model_type": "granitemoehybrid", "hidden_size": 1536, "num_hidden_layers": 40,
      "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 512,
      "shared_intermediate_size": 1024, "num_local_experts": 64, "num_experts_per_tok": 6,
      "vocab_size": 100352, "tie_word_embeddings": true, "mamba_n_heads": 48, "mamba_d_head": 64,
      "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2,
      "mamba_chunk_size": 256, "mamba_conv_bias": true, "mamba_proj_bias": false,
      "layer_types": [)" +
         types + "]}";
}

TEST(MambaHybrid, GraniteHybridReadFromItsLayerTypes) {
  const ModelArchitecture a = io::parse_hf_config(granite_tiny("mamba"), "t");
  EXPECT_EQ(attention_layer_count(a), 4);
  EXPECT_TRUE(is_attention_layer(a, 35));
  EXPECT_EQ(linear_attention_params(a), 14'642'576);
  EXPECT_EQ(count_params(a).total, 6'939'037'248);
  const std::vector<LinearLayer> all = model_linears(a);
  EXPECT_EQ(find(all, "mamba.in_proj").out_features, 2 * 3072 + 256 + 48);
  EXPECT_EQ(find(all, "mamba.in_proj").layers, 36);
  EXPECT_EQ(find(all, "self_attn.q_proj").layers, 4);
  EXPECT_EQ(find(all, "block_sparse_moe.input_linear").copies, 64);
  EXPECT_FALSE(find(all, "block_sparse_moe.input_linear").module);
  EXPECT_EQ(find(all, "shared_mlp.input_linear").out_features, 2048);
  EXPECT_EQ(find(all, "shared_mlp.input_linear").place, LinearPlace::kSharedExpert);
  EXPECT_THROW((void)io::parse_hf_config(granite_tiny("conv"), "t"), DataError);
}

// Falcon-H1's layer lists both: the mixer's projections and the attention's, 36 layers each.
TEST(MambaHybrid, ParallelLayersHoldBothMixers) {
  const std::vector<LinearLayer> all = model_linears(preset_arch("falcon-h1-0.5b"));
  EXPECT_EQ(find(all, "mamba.in_proj").out_features, 3352);
  EXPECT_EQ(find(all, "mamba.in_proj").layers, 36);
  EXPECT_EQ(find(all, "mamba.out_proj").in_features, 1536);
  EXPECT_EQ(find(all, "self_attn.q_proj").layers, 36);
  EXPECT_EQ(find(all, "feed_forward.down_proj").layers, 36);
}

// SSD in chunks of Q (Dao & Gu 2024, sec. 6): 2 x (groups x Q x d_state + heads x (Q x head_dim
// + 2 x d_state x head_dim)) + the conv's 2 x taps x (2 x groups x d_state + d_ssm) a token.
// Falcon-H1 0.5B (Q 128): 2 x (16,384 + 24 x 24,576) + 8 x 1,792 = 1,226,752 a layer, 36 layers,
// every one attending; Bamba (Q 256): 2 x (32,768 + 128 x 32,768) + 8 x 8,448 = 8,521,728 in
// each of 29 layers, 3 attending.
TEST(MambaHybrid, FlopsOfTheScanAndTheAttendingLayers) {
  const FlopShape falcon = flop_shape(preset_arch("falcon-h1-0.5b"), false, {});
  EXPECT_DOUBLE_EQ(falcon.linear_attention_flops, 36.0 * 1'226'752.0);
  EXPECT_EQ(falcon.windows.size(), 36U);
  const FlopShape bamba = flop_shape(preset_arch("bamba-9b"), false, {});
  EXPECT_DOUBLE_EQ(bamba.linear_attention_flops, 29.0 * 8'521'728.0);
  EXPECT_EQ(bamba.windows.size(), 3U);
}

// mamba_ssm's fused function saves in_proj's output (2 x 1536 + 256 + 24 = 3,352), the scan's
// output (1,536) and the norm's fp32 rstd per group; in_proj's input (1,024) is saved by the
// linear: (1,024 + 3,352 + 1,536) x 2 + 4 = 11,828 bytes a token in every Falcon-H1 layer, where
// attention's rows count in full too. Gated DeltaNet's rows do not apply.
TEST(MambaHybrid, ActivationRowsOfTheMixer) {
  StepDims d = shape_dims(preset_arch("falcon-h1-0.5b"));
  d.b = 1;
  d.s = 1;
  d.e = 2;
  EXPECT_DOUBLE_EQ(d.linear_share, 1.0);
  EXPECT_DOUBLE_EQ(d.attention_share, 1.0);
  double mixer = 0.0;
  for (const ActivationRow& row : decoder_layer_rows()) {
    if (!row.applies(d)) continue;
    const std::string_view module{row.module};
    if (module == "linear_attention") mixer += row.elements(d) * element_bytes(row.bytes, d);
    if (module == "attention") {
      EXPECT_DOUBLE_EQ(row_elements(row, d), row.elements(d)) << row.name;
    }
    EXPECT_NE(std::string_view{row.name}, "chunk_inverse");
  }
  EXPECT_DOUBLE_EQ(mixer, 11'828.0);
  const StepDims bamba = shape_dims(preset_arch("bamba-9b"));
  EXPECT_DOUBLE_EQ(bamba.linear_share, 29.0 / 32.0);
  EXPECT_DOUBLE_EQ(bamba.attention_share, 3.0 / 32.0);
}

// Keys and values in every Falcon-H1 layer (2 x 2 x 64 at 2 bytes), in Bamba's 3; each mixer layer
// keeps heads x d_state x head_dim fp32 state values and 3 taps of x, B, C at 2 bytes.
TEST(MambaHybrid, CacheAndState) {
  const ModelArchitecture falcon = preset_arch("falcon-h1-0.5b");
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(falcon, KvDtype::kBf16).value(), 36.0 * 512.0);
  EXPECT_DOUBLE_EQ(linear_attention_state_bytes(falcon).value(),
                   36.0 * (24.0 * 128.0 * 64.0 * 4.0 + 3.0 * 1792.0 * 2.0));
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset_arch("bamba-9b"), KvDtype::kBf16).value(),
                   3.0 * 2.0 * 8.0 * 128.0 * 2.0);
}

// The recurrence's cost scales with a head's state against the measured 128 x 128.
TEST(MambaHybrid, ScanPricedByItsState) {
  EXPECT_DOUBLE_EQ(recurrence_state_share(128.0, 64.0), 0.5);
  EXPECT_DOUBLE_EQ(recurrence_state_share(256.0, 128.0), 2.0);
  EXPECT_DOUBLE_EQ(recurrence_state_share(128.0, 128.0), 1.0);
}

// A head width that does not make the inner width, and a layer type no reader knows, are refused
// naming the key.
TEST(MambaHybrid, InconsistentMixerIsRefused) {
  const std::string falcon =
      R"({"model_type": "falcon_h1", "hidden_size": 256, "num_hidden_layers": 2,
          "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 64, "vocab_size": 1000, "mamba_d_ssm": 512, "mamba_n_heads": 8,
          "mamba_d_state": 16, "mamba_d_head": )";
  EXPECT_EQ(io::parse_hf_config(falcon + "64}", "t").linear_attention->value_head_dim, 64);
  EXPECT_EQ(io::parse_hf_config(falcon + "\"auto\"}", "t").linear_attention->value_head_dim, 64);
  try {
    (void)io::parse_hf_config(falcon + "32}", "t");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("mamba_d_head: 32 x mamba_n_heads 8"), std::string::npos)
        << e.what();
  }
  try {
    (void)io::parse_hf_config(granite_tiny("conv"), "t");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("layer_types: \"conv\" is not"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tb
