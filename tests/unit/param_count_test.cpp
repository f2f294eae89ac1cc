// Parameter counts against published totals (tests/cases/param_counts.toml) and hand-derived
// per-module values.
#include "trainbudget/model/param_count.hpp"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"

namespace tb {
namespace {

const std::filesystem::path kTests{TB_TEST_DIR};

ModelArchitecture config(const std::string& name) {
  return io::load_hf_config(kTests / "data" / "hf_configs" / name);
}

void expect_published(const toml::table& c, const char* key, std::int64_t ours) {
  const auto published = c[key].value<std::int64_t>();
  if (!published) return;
  const double tolerance = c[std::string{key} + "_tolerance"].value_or(0.0);
  if (tolerance == 0.0) {
    EXPECT_EQ(ours, *published) << key;
  } else {
    const double rel = std::fabs(static_cast<double>(ours) / static_cast<double>(*published) - 1.0);
    EXPECT_LE(rel, tolerance) << key << ": ours " << ours << ", published " << *published;
  }
}

TEST(ParamCount, MatchesEveryPublishedCase) {
  const toml::table cases = toml::parse_file((kTests / "cases" / "param_counts.toml").string());
  const toml::array* list = cases["case"].as_array();
  ASSERT_NE(list, nullptr);
  EXPECT_GE(list->size(), 15U);
  for (const toml::node& node : *list) {
    const toml::table& c = *node.as_table();
    const std::string file = c["config"].value_or(std::string{});
    SCOPED_TRACE(file);
    ASSERT_FALSE(c["source"].value_or(std::string{}).empty());
    const ParamCounts counts = count_params(config(file));
    expect_published(c, "total", counts.total);
    expect_published(c, "non_embedding", counts.non_embedding);
    expect_published(c, "total_with_mtp", counts.total_with_mtp);
    expect_published(c, "language_model", counts.total - counts.vision);
    const bool no_input = c["active_excludes_input_embedding"].value_or(false);
    expect_published(c, "active", counts.active - (no_input ? counts.input_embedding : 0));
  }
}

TEST(ParamCount, Llama2SevenBByModuleHandDerived) {
  const ParamCounts c = count_params(config("llama-2-7b-hf.json"));
  // Per layer: 4 * 4096^2 attention, 3 * 4096 * 11008 MLP, 2 * 4096 norm weights.
  EXPECT_EQ(attention_params(config("llama-2-7b-hf.json")), 4LL * 4096 * 4096);
  EXPECT_EQ(dense_mlp_params(config("llama-2-7b-hf.json")), 3LL * 4096 * 11008);
  EXPECT_EQ(c.input_embedding, 32000LL * 4096);
  EXPECT_EQ(c.lm_head, 32000LL * 4096);
  EXPECT_EQ(c.embedding, 2LL * 32000 * 4096);
  EXPECT_EQ(c.non_embedding, 32LL * (4LL * 4096 * 4096 + 3LL * 4096 * 11008 + 2 * 4096) + 4096);
  EXPECT_EQ(c.active, c.total);
  std::int64_t sum = 0;
  for (const ModuleParams& m : c.modules) sum += m.params;
  EXPECT_EQ(sum, c.total);
}

TEST(ParamCount, TiedEmbeddingsHaveNoHead) {
  const ParamCounts c = count_params(config("llama-3.2-1b.json"));
  EXPECT_EQ(c.lm_head, 0);
  EXPECT_EQ(c.embedding, 128256LL * 2048);
}

TEST(ParamCount, Gpt2CountsPositionTableAndBiases) {
  const ModelArchitecture a = config("gpt2.json");
  const ParamCounts c = count_params(a);
  EXPECT_EQ(c.input_embedding, (50257LL + 1024) * 768);
  // c_attn 768 -> 2304 and c_proj 768 -> 768, both biased.
  EXPECT_EQ(attention_params(a), 768LL * 2304 + 2304 + 768LL * 768 + 768);
  EXPECT_EQ(norm_params(a), 2 * 768);
}

TEST(ParamCount, OlmoNormsHaveNoParameters) {
  const ModelArchitecture a = config("olmo-7b-0724-hf.json");
  EXPECT_EQ(norm_params(a), 0);
  for (const ModuleParams& m : count_params(a).modules) EXPECT_NE(m.module, "norms");
}

TEST(ParamCount, MixtralActiveIsTwoOfEightExperts) {
  const ModelArchitecture a = config("mixtral-8x7b-v0.1.json");
  const ParamCounts c = count_params(a);
  const std::int64_t expert = 3LL * 4096 * 14336;
  EXPECT_EQ(expert_params(a), expert);
  EXPECT_EQ(c.total - c.active, 32 * 6 * expert);
  EXPECT_EQ(router_params(a), 8 * 4096);
}

TEST(ParamCount, GptOssBiasedExpertsAndSinksHandDerived) {
  // openai/gpt-oss-20b by hand (tests/cases/param_counts.toml gives the sums): biased q/k/v/o,
  // 64 sinks, a biased router, 32 biased experts with a fused gate_up_proj.
  const ModelArchitecture a = config("gpt-oss-20b.json");
  EXPECT_EQ(attention_params(a),
            (2880LL * 4096 + 4096) + (4096LL * 2880 + 2880) + 2LL * (2880 * 512 + 512) + 64);
  EXPECT_EQ(expert_params(a), 2880LL * 5760 + 5760 + 2880LL * 2880 + 2880);
  EXPECT_EQ(router_params(a), 2880LL * 32 + 32);
  const ParamCounts c = count_params(a);
  EXPECT_EQ(c.total, 20914757184);
  // Active: 4 of the 32 experts, with both embedding tables (the card's 3.61B leaves out the
  // input one: 4,187,440,704 - 579,133,440).
  EXPECT_EQ(c.active, 4187440704);
  EXPECT_EQ(c.active - c.input_embedding, 3608307264);
  EXPECT_EQ(count_params(config("gpt-oss-120b.json")).total, 116829156672);
}

TEST(ParamCount, DeepSeekV3LayoutAndMtp) {
  const ModelArchitecture a = config("deepseek-v3.json");
  EXPECT_EQ(moe_layer_count(a), 58);
  EXPECT_FALSE(is_moe_layer(a, 2));
  EXPECT_TRUE(is_moe_layer(a, 3));
  // MLA by hand: q_a 7168x1536, q_a norm, q_b 1536 -> 128*192, kv_a 7168 -> 576, kv_a norm,
  // kv_b 512 -> 128*256, o 128*128 -> 7168.
  EXPECT_EQ(attention_params(a), 7168LL * 1536 + 1536 + 1536LL * 128 * 192 + 7168LL * 576 + 512 +
                                     512LL * 128 * 256 + 128LL * 128 * 7168);
  const ParamCounts c = count_params(a);
  EXPECT_EQ(c.total, 671026419200);
  // The MTP module: 3 norms, eh_proj, one MoE layer (README_WEIGHTS.md: "11.5B unique").
  EXPECT_EQ(c.mtp, 3 * 7168 + 2LL * 7168 * 7168 + decoder_layer_params(a, true));
  EXPECT_NEAR(static_cast<double>(c.mtp) / 1e9, 11.5, 0.15);
  EXPECT_EQ(c.mtp_shared_copies, 2LL * 129280 * 7168);
}

// DeepSeek-V3's checkpoint stores an FP8 weight_scale_inv per 128x128 block of every linear
// except the router, eh_proj and head (quantization_config.weight_block_size). With those, the
// count reproduces the HF API safetensors.total of 684,531,386,000 exactly.
TEST(ParamCount, DeepSeekV3CheckpointElementsIncludingFp8Scales) {
  const ModelArchitecture a = config("deepseek-v3.json");
  std::int64_t scales = 0;
  for (const LinearLayer& l : model_linears(a, true)) {
    if (l.kind == LinearKind::kRouter || l.kind == LinearKind::kMtpProjection ||
        l.kind == LinearKind::kLmHead) {
      continue;
    }
    const std::int64_t blocks = ((l.out_features + 127) / 128) * ((l.in_features + 127) / 128);
    scales += blocks * l.copies * l.layers;
  }
  EXPECT_EQ(scales, 41540496);
  EXPECT_EQ(count_params(a).total_with_mtp + scales, 684531386000);
}

TEST(ParamCount, Qwen3MoeSparseStepAndDenseLayers) {
  ModelArchitecture a = config("qwen3-30b-a3b.json");
  EXPECT_EQ(moe_layer_count(a), 48);
  a.moe->layer_step = 2;  // layers 1, 3, 5, ... are MoE
  EXPECT_EQ(moe_layer_count(a), 24);
  EXPECT_FALSE(is_moe_layer(a, 0));
  EXPECT_TRUE(is_moe_layer(a, 1));
  a.moe->dense_layers = {1};
  EXPECT_EQ(moe_layer_count(a), 23);
  const ParamCounts c = count_params(a);
  EXPECT_EQ(c.total, count_params(config("qwen3-30b-a3b.json")).total -
                         25 * (decoder_layer_params(a, true) - decoder_layer_params(a, false)));
}

}  // namespace
}  // namespace tb
