// The linear-layer inventory: names, shapes, counts, and that it accounts for every parameter.
#include "trainbudget/model/linear_layers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

const std::filesystem::path kConfigs = std::filesystem::path{TB_TEST_DIR} / "data" / "hf_configs";

ModelArchitecture config(const std::string& name) { return io::load_hf_config(kConfigs / name); }

// Parameters that are not linear weights: embeddings, norms, q/k norms, MLA norms, the
// DeepSeek router score bias, gpt-oss's attention sinks.
std::int64_t non_linear_params(const ModelArchitecture& a) {
  const ParamCounts c = count_params(a);
  // A layer without an MLP has no pre-MLP norm (Nemotron-H's mixer-only blocks).
  std::int64_t n = c.input_embedding +
                   (a.num_layers * a.norms_per_layer + 1 - a.mlp_free_layers) * norm_params(a);
  if (a.attention.qk_norm) n += attention_layer_count(a) * 2 * a.attention.head_dim;
  if (a.attention.sinks) n += a.num_layers * a.attention.num_heads;
  if (a.attention.latent) {
    n += a.num_layers * (a.attention.latent->q_lora_rank + a.attention.latent->kv_lora_rank);
  }
  if (a.moe && a.moe->router_score_bias) n += moe_layer_count(a) * a.moe->num_experts;
  if (a.linear_attention) {
    // The linear mixer's conv and per-head vectors: Mamba-2's conv1d over x, B, C (and its bias),
    // dt_bias, A_log, D and the gated norm over d_ssm; Gated DeltaNet's conv1d over q, k, v,
    // dt_bias, A_log and the norm over a value head.
    const LinearAttentionSpec& g = *a.linear_attention;
    const std::int64_t inner = g.value_heads * g.value_head_dim;
    const std::int64_t keys = g.key_heads * g.key_head_dim;
    // LFM2's short convolution: its conv1d over the hidden width (and the bias).
    const std::int64_t per_layer =
        g.mixer == LinearMixer::kShortConv ? a.hidden * (g.conv_kernel + (g.conv_bias ? 1 : 0))
        : g.mixer == LinearMixer::kMamba2
            ? (inner + 2 * keys) * (g.conv_kernel + (g.conv_bias ? 1 : 0)) + 3 * g.value_heads +
                  (g.gated_norm ? inner : 0)
            : (inner + 2 * keys) * g.conv_kernel + 2 * g.value_heads + g.value_head_dim;
    n += linear_attention_layer_count(a) * per_layer;
  }
  if (a.vision) {  // Mllama's cross-attention layers: q_norm, k_norm and two gates each
    n += static_cast<std::int64_t>(a.vision->cross_attention_layers.size()) *
         (2 * a.attention.head_dim + 2);
  }
  return n;
}

// The vision tower's non-linear parameters: patch convolution, position table, two LayerNorms
// per layer, post_layernorm, and the projector (a matrix parameter, not an nn.Linear).
std::int64_t vision_non_linear_params(const ModelArchitecture& a) {
  if (!a.vision) return 0;
  const VisionTowerSpec& v = *a.vision;
  if (v.kind == VisionKind::kMllama) {
    // The patch Conv2d (no bias), class_embedding, the gated position table with its tile
    // embedding, the pre/post tile embeddings and gates, layernorm_pre/post, two LayerNorms per
    // layer and the global layers' two gates.
    const std::int64_t positions =
        (v.image_size / v.patch_size) * (v.image_size / v.patch_size) + 1;
    return v.channels * v.patch_size * v.patch_size * v.hidden + v.hidden + positions * v.hidden +
           1 + v.aspect_ratio_ids * v.max_tiles * positions * v.hidden +
           2 * (v.aspect_ratio_ids * v.max_tiles * v.hidden + 1) + 4 * v.hidden +
           (v.layers + v.global_layers) * 4 * v.hidden + 2 * v.global_layers;
  }
  if (v.kind != VisionKind::kSiglip) {
    // Qwen: the Conv3d patch embedding (no bias), two norms per block and the merger's ln_q
    // (LayerNorm: weight and bias; Qwen2.5-VL's RMSNorm: weight). Qwen3-VL: the Conv3d's bias,
    // the 2,304 x h position table, and each deepstack merger's LayerNorm over 4h.
    const bool v3 = v.kind == VisionKind::kQwen3Vl;
    const std::int64_t norm = v.kind == VisionKind::kQwen25Vl ? v.hidden : 2 * v.hidden;
    const std::int64_t qwen3 =
        v3 ? v.hidden + v.position_embeddings * v.hidden + v.deepstack_mergers * 2 * 4 * v.hidden
           : 0;
    return v.channels * v.temporal_patch * v.patch_size * v.patch_size * v.hidden +
           v.layers * 2 * norm + norm + qwen3;
  }
  const std::int64_t patches = (v.image_size / v.patch_size) * (v.image_size / v.patch_size);
  return v.channels * v.patch_size * v.patch_size * v.hidden + v.hidden + patches * v.hidden +
         v.layers * 4 * v.hidden + 2 * v.hidden + v.hidden * a.hidden + v.hidden;
}

TEST(LinearLayers, AccountForEveryParameterOfEveryFamily) {
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs)) {
    SCOPED_TRACE(entry.path().filename().string());
    const ModelArchitecture a = io::load_hf_config(entry.path());
    std::int64_t linear = 0;
    std::int64_t active = 0;
    for (const LinearLayer& l : model_linears(a)) {
      linear += l.total_params();
      if (!l.tied) active += l.params() * l.active_copies * l.layers;
    }
    const ParamCounts c = count_params(a);
    EXPECT_EQ(linear + non_linear_params(a) + vision_non_linear_params(a), c.total);
    EXPECT_EQ(active + non_linear_params(a), c.active);
  }
}

// PEFT LoRA adds r * (in + out) per targeted linear (A: in x r, B: r x out). For Llama-2-7B
// with r = 8 on q_proj and v_proj, PEFT prints "trainable params: 4194304 || all params:
// 6742609920" (alpaca-lora / LLaMA-Factory logs).
TEST(LinearLayers, GiveLoraCountsPeftPrints) {
  const ModelArchitecture a = config("llama-2-7b-hf.json");
  const auto lora = [&](std::int64_t r, const std::vector<std::string>& targets) {
    std::int64_t n = 0;
    for (const LinearLayer& l : model_linears(a)) {
      if (std::find(targets.begin(), targets.end(), l.name) == targets.end()) continue;
      n += r * (l.in_features + l.out_features) * l.copies * l.layers;
    }
    return n;
  };
  EXPECT_EQ(lora(8, {"q_proj", "v_proj"}), 4194304);
  EXPECT_EQ(count_params(a).total + lora(8, {"q_proj", "v_proj"}), 6742609920);
  // All seven projections at r = 64 (the QLoRA paper's setting), by hand:
  // 32 * 64 * (4 * 8192 + 3 * (4096 + 11008)).
  EXPECT_EQ(lora(64, {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}),
            32LL * 64 * (4 * 8192 + 3 * (4096 + 11008)));
}

TEST(LinearLayers, NamesFollowEachCheckpoint) {
  const auto names = [](const ModelArchitecture& a, bool moe) {
    std::vector<std::string> out;
    for (const LinearLayer& l : decoder_layer_linears(a, moe)) out.push_back(l.path);
    return out;
  };
  EXPECT_EQ(names(config("gpt2.json"), false),
            (std::vector<std::string>{"attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"}));
  EXPECT_EQ(names(config("phi-3-mini-4k-instruct.json"), false),
            (std::vector<std::string>{"self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate_up_proj",
                                      "mlp.down_proj"}));
  EXPECT_EQ(names(config("mixtral-8x7b-v0.1.json"), true),
            (std::vector<std::string>{
                "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                "block_sparse_moe.gate", "block_sparse_moe.experts.{e}.w1",
                "block_sparse_moe.experts.{e}.w3", "block_sparse_moe.experts.{e}.w2"}));
  EXPECT_EQ(
      names(config("deepseek-v3.json"), true),
      (std::vector<std::string>{
          "self_attn.q_a_proj", "self_attn.q_b_proj", "self_attn.kv_a_proj_with_mqa",
          "self_attn.kv_b_proj", "self_attn.o_proj", "mlp.gate", "mlp.experts.{e}.gate_proj",
          "mlp.experts.{e}.up_proj", "mlp.experts.{e}.down_proj", "mlp.shared_experts.gate_proj",
          "mlp.shared_experts.up_proj", "mlp.shared_experts.down_proj"}));
}

TEST(LinearLayers, ShapesAndCountsOfMoeLayers) {
  const ModelArchitecture a = config("deepseek-v3.json");
  const std::vector<LinearLayer> all = model_linears(a);
  const auto find = [&](const std::string& path) {
    return *std::find_if(all.begin(), all.end(),
                         [&](const LinearLayer& l) { return l.path == path; });
  };
  const LinearLayer q_b = find("self_attn.q_b_proj");
  EXPECT_EQ(q_b.in_features, 1536);
  EXPECT_EQ(q_b.out_features, 128 * 192);
  EXPECT_EQ(q_b.layers, 61);
  const LinearLayer dense_gate = find("mlp.gate_proj");
  EXPECT_EQ(dense_gate.layers, 3);
  EXPECT_EQ(dense_gate.out_features, 18432);
  const LinearLayer expert_down = find("mlp.experts.{e}.down_proj");
  EXPECT_EQ(expert_down.layers, 58);
  EXPECT_EQ(expert_down.copies, 256);
  EXPECT_EQ(expert_down.active_copies, 8);
  EXPECT_EQ(expert_down.in_features, 2048);
  EXPECT_EQ(find("lm_head").tied, false);
  EXPECT_TRUE(find("lm_head").place == LinearPlace::kHead);
  // The MTP module adds eh_proj and one more MoE layer's linears.
  const std::vector<LinearLayer> with_mtp = model_linears(a, true);
  EXPECT_TRUE(std::any_of(with_mtp.begin(), with_mtp.end(),
                          [](const LinearLayer& l) { return l.path == "eh_proj"; }));
  EXPECT_TRUE(std::any_of(with_mtp.begin(), with_mtp.end(), [](const LinearLayer& l) {
    return l.path == "mtp.mlp.experts.{e}.down_proj" && l.layers == 1;
  }));
}

}  // namespace
}  // namespace tb
