// Qwen3.5 and Qwen3-Next (issue 41): Gated DeltaNet in three layers of four, gated attention in
// the fourth (docs/models.md, "Qwen3.5 and Qwen3-Next"). Counts by hand from transformers'
// modules; the FLOPs, activations, cache and kernel time from their formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "test_models.hpp"
#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/eval/gated_delta_cost.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/model/kv_cache.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::preset_arch;

// Qwen3.5 9B: hidden 4096, 32 layers (8 attend: 3, 7, ... 31), heads 16 / 4 of 256, Gated
// DeltaNet 16 key and 32 value heads of 128, MLP 12288, vocabulary 248320, untied.
// - gated attention: q_proj 4096 x 2*16*256, k and v 4096 x 4*256, o_proj 4096 x 4096, q_norm and
//   k_norm 256 each: 33,554,432 + 2 x 4,194,304 + 16,777,216 + 512 = 58,720,768;
// - Gated DeltaNet: in_proj 4096 x (2*2048 + 2*4096 + 2*32) = 50,593,792, conv1d 8192 x 4 =
//   32,768, dt_bias and A_log 64, norm 128, out_proj 4096 x 4096 = 16,777,216: 67,403,968;
// - MLP 3 x 4096 x 12288 = 150,994,944; two norms 8,192.
TEST(GatedDelta, Qwen35NineBCountsByHand) {
  const ModelArchitecture a = preset_arch("qwen3.5-9b");
  EXPECT_EQ(attention_params(a), 58'720'768);
  EXPECT_EQ(linear_attention_params(a), 67'403'968);
  EXPECT_EQ(dense_mlp_params(a), 150'994'944);
  EXPECT_EQ(linear_attention_layer_count(a), 24);
  EXPECT_TRUE(is_linear_attention_layer(a, 0));
  EXPECT_FALSE(is_linear_attention_layer(a, 3));
  const ParamCounts c = count_params(a);
  // 8 x 58,720,768 + 24 x 67,403,968 + 32 x (150,994,944 + 8,192) + 4,096 + 2 x 248,320 x 4,096
  // = 8,953,803,264; the vision tower (27 blocks of 1152, position table 2304) and its merger
  // 456,010,480; the MTP module (fc 8192 x 4096, three norms, one attending layer) 243,290,624.
  EXPECT_EQ(c.total - c.vision, 8'953'803'264);
  EXPECT_EQ(c.vision, 456'010'480);
  EXPECT_EQ(c.total, 9'409'813'744);
  EXPECT_EQ(c.total_with_mtp, 9'653'104'368);  // the Hub's 9.65B
  EXPECT_EQ(c.mtp_shared_copies, 0);
}

// The MoE sizes and Qwen3-Next: 256 (512) experts of 512 (1024), a shared expert and its gate.
TEST(GatedDelta, MoeTotalsMatchTheHub) {
  EXPECT_EQ(count_params(preset_arch("qwen3.5-35b-a3b")).total_with_mtp, 35'951'822'704);
  EXPECT_EQ(count_params(preset_arch("qwen3.5-397b-a17b")).total_with_mtp, 403'397'928'944);
  const ParamCounts next = count_params(preset_arch("qwen3-next-80b-a3b"));
  EXPECT_EQ(next.total, 79'674'391'296);
  EXPECT_EQ(next.total_with_mtp, 81'324'862'720);
  // The card's "Number of Parameters (Non-Embedding): 79B".
  EXPECT_EQ(next.non_embedding, 79'052'061'440);
}

// Qwen3-Next fuses the projections (in_proj_qkvz, in_proj_ba), Qwen3.5 splits them; only the
// attending layers hold q_proj, and it is doubled for the gate.
TEST(GatedDelta, LinearLayersAsTheCheckpointsNameThem) {
  const auto find = [](const std::vector<LinearLayer>& all, const std::string& path) {
    for (const LinearLayer& l : all) {
      if (l.path == path) return l;
    }
    ADD_FAILURE() << path;
    return LinearLayer{};
  };
  const std::vector<LinearLayer> q = model_linears(preset_arch("qwen3.5-9b"));
  EXPECT_EQ(find(q, "linear_attn.in_proj_qkv").out_features, 2 * 2048 + 4096);
  EXPECT_EQ(find(q, "linear_attn.in_proj_qkv").layers, 24);
  EXPECT_EQ(find(q, "linear_attn.in_proj_z").out_features, 4096);
  EXPECT_EQ(find(q, "linear_attn.in_proj_b").out_features, 32);
  EXPECT_EQ(find(q, "self_attn.q_proj").out_features, 2 * 16 * 256);
  EXPECT_EQ(find(q, "self_attn.q_proj").layers, 8);
  EXPECT_EQ(find(q, "mlp.down_proj").layers, 32);
  const std::vector<LinearLayer> n = model_linears(preset_arch("qwen3-next-80b-a3b"));
  EXPECT_EQ(find(n, "linear_attn.in_proj_qkvz").out_features, 2 * 2048 + 2 * 4096);
  EXPECT_EQ(find(n, "linear_attn.in_proj_ba").out_features, 64);
}

// Qwen3.5-MoE's experts and router are 3-D parameters (Qwen3NextExperts, Qwen3_5MoeTopKRouter):
// "all-linear" adapts the attention, Gated DeltaNet and the shared expert only, and QLoRA leaves
// the experts in 16 bits unless quantize_moe_experts: 35B-A3B's 40 x 256 x 3 x 2048 x 512 =
// 32,212,254,720 expert weights at 2 bytes, or at NF4's 0.5 plus its constants.
TEST(GatedDelta, FusedExpertsAreParametersNotLinears) {
  const ModelArchitecture a = preset_arch("qwen3.5-35b-a3b");
  LoraSpec all{16, parse_lora_targets("all-linear")};
  for (const AdaptedLinear& l : lora_adapters(a, all)) {
    EXPECT_NE(l.layer.place, LinearPlace::kRoutedExpert) << l.layer.path;
    EXPECT_NE(l.layer.path, "mlp.gate");
  }
  const FrozenBaseBytes plain = qlora_base_bytes(a, {}, 2.0);
  QloraOptions experts;
  experts.quantize_experts = true;
  const FrozenBaseBytes quantized = qlora_base_bytes(a, experts, 2.0);
  const double weights = 40.0 * 256.0 * 3.0 * 2048.0 * 512.0;
  EXPECT_DOUBLE_EQ(quantized.quantized_weights - plain.quantized_weights, weights);
  EXPECT_NEAR(plain.total().value() - quantized.total().value(), weights * (2.0 - 0.5 - 0.0159),
              weights * 0.001);
}

// Per Gated DeltaNet layer and token, forward: 8 x 32 x 128 x 128 = 4,194,304 for the recurrence
// and 2 x 4 x 8,192 = 65,536 for the conv; 24 layers: 102,236,160. Attention scores run in the 8
// attending layers only (every key per query, the default convention).
TEST(GatedDelta, FlopsOfTheRecurrenceAndTheAttendingLayers) {
  const ModelArchitecture a = preset_arch("qwen3.5-9b");
  const FlopShape shape = flop_shape(a, false, {});
  EXPECT_DOUBLE_EQ(shape.linear_attention_flops, 102'236'160.0);
  EXPECT_EQ(shape.windows.size(), 8U);
  FlopsSetup setup;
  setup.seq_len = 4096;
  const FlopCounts f = count_flops(shape, setup);
  const FlopTermValue& g = f.terms[static_cast<std::size_t>(FlopTerm::kLinearAttention)];
  EXPECT_DOUBLE_EQ(g.forward, 102'236'160.0);
  EXPECT_DOUBLE_EQ(g.model, 3.0 * 102'236'160.0);
  // 2 x 16 heads x 4096 keys x (256 + 256) x 8 layers.
  EXPECT_DOUBLE_EQ(f.terms[static_cast<std::size_t>(FlopTerm::kAttentionScores)].forward,
                   2.0 * 16.0 * 4096.0 * 512.0 * 8.0);
}

// The average layer: Gated DeltaNet's rows at 24/32, attention's at 8/32. At b = 1, s = 1 (per
// token, 2-byte activations), a Gated DeltaNet layer saves h + conv (8,192) + 2 x 32 x 128 +
// 32 x 128 + 64 x 32 + 32 + 2 x 4,096 + 4,096 elements at 2 bytes and 6 x 32 fp32 values:
// (4,096 + 8,192 + 8,192 + 4,096 + 2,048 + 32 + 8,192 + 4,096) x 2 + 192 x 4 = 78,656 bytes.
TEST(GatedDelta, ActivationRowsWeighedByTheirLayers) {
  StepDims d = shape_dims(preset_arch("qwen3.5-9b"));
  d.b = 1;
  d.s = 1;
  d.e = 2;
  EXPECT_DOUBLE_EQ(d.linear_share, 0.75);
  double gated = 0.0;
  for (const ActivationRow& row : decoder_layer_rows()) {
    if (std::string_view{row.module} != "linear_attention" || !row.applies(d)) continue;
    gated += row.elements(d) * element_bytes(row.bytes, d);
    EXPECT_DOUBLE_EQ(row_elements(row, d), 0.75 * row.elements(d)) << row.name;
  }
  EXPECT_DOUBLE_EQ(gated, 78'656.0);
}

// The cache holds keys and values in the 8 attending layers (2 x 4 x 256 x 2 bytes each); each
// Gated DeltaNet layer keeps 32 x 128 x 128 fp32 state values and 3 x 8,192 conv inputs at 2
// bytes whatever the length.
TEST(GatedDelta, CacheAndState) {
  const ModelArchitecture a = preset_arch("qwen3.5-9b");
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 8.0 * 4096.0);
  const double state = 24.0 * (32.0 * 128.0 * 128.0 * 4.0 + 3.0 * 8192.0 * 2.0);
  EXPECT_DOUBLE_EQ(linear_attention_state_bytes(a).value(), state);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, KvDtype::kBf16, 1000).value(),
                   1000.0 * 8.0 * 4096.0 + state);
}

// FlashQLA's H200 table: fla's forward 1.890 ms over 32,768 tokens x 32 heads, backward 5.697 ms;
// 16 heads forward 1.275 ms; between points, linear in log2(heads); scaled by the dense rate.
TEST(GatedDelta, RecurrenceAtTheMeasuredRate) {
  ClusterProfile h200;
  h200.rate_16 = FlopsPerSecond{989.5e12};
  const double th = 32768.0 * 32.0;
  EXPECT_NEAR(gated_delta_seconds(th, 32, false, h200).count(), 1.890e-3, 0.002e-3);
  EXPECT_NEAR(gated_delta_seconds(th, 32, true, h200).count(), 5.697e-3, 0.002e-3);
  EXPECT_NEAR(gated_delta_seconds(32768.0 * 16.0, 16, false, h200).count(), 1.275e-3, 0.002e-3);
  const double mid = gated_delta_seconds(1.0, std::sqrt(2.0) * 16.0, false, h200).count();
  EXPECT_NEAR(mid, (2.432 + 1.802) / 2.0 * 1e-9, 1e-13);
  ClusterProfile half = h200;
  half.rate_16 = FlopsPerSecond{989.5e12 / 2.0};
  EXPECT_DOUBLE_EQ(gated_delta_seconds(th, 32, false, half).count(),
                   2.0 * gated_delta_seconds(th, 32, false, h200).count());
}

// layer_types must put a full-attention layer every N layers; another pattern is refused with
// the layer that breaks it.
TEST(GatedDelta, LayerTypesOutsideThePatternAreRefused) {
  const std::string head =
      R"({"model_type": "qwen3_5_text", "hidden_size": 256, "num_hidden_layers": 4,
          "intermediate_size": 512, "num_attention_heads": 2, "num_key_value_heads": 1,
          "head_dim": 64, "vocab_size": 1000, "linear_num_key_heads": 2,
          "linear_num_value_heads": 4, "linear_key_head_dim": 32, "linear_value_head_dim": 32,
          "layer_types": )";
  const ModelArchitecture ok = io::parse_hf_config(
      head + R"(["linear_attention", "full_attention", "linear_attention", "full_attention"]})",
      "t");
  EXPECT_EQ(ok.linear_attention->full_attention_every, 2);
  try {
    (void)io::parse_hf_config(
        head + R"(["linear_attention", "full_attention", "full_attention", "linear_attention"]})",
        "t");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("layer_types: layer 2 breaks the pattern"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tb
