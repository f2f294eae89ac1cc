// config.json parsing: transformers' defaults, and clear errors for bad input.
#include "trainbudget/io/hf_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// A small valid Llama config; tests edit it.
std::string llama(const std::string& extra = "", const std::string& heads = "32") {
  return R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
             "intermediate_size": 11008, "vocab_size": 32000,
             "num_attention_heads": )" +
         heads + extra + "}";
}

std::string error_of(const std::string& json) {
  try {
    (void)parse_hf_config(json, "model/config.json");
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "model/config.json");
    return e.what();
  }
  ADD_FAILURE() << "no DataError for " << json;
  return {};
}

TEST(HfConfig, LlamaDefaultsFollowLlamaConfig) {
  const ModelArchitecture a = parse_hf_config(llama(), "c");
  EXPECT_EQ(a.attention.num_kv_heads, 32);  // num_key_value_heads defaults to the heads
  EXPECT_EQ(a.attention.head_dim, 128);     // hidden / heads
  EXPECT_FALSE(a.tie_embeddings);
  EXPECT_FALSE(a.attention.qkv_bias);
  EXPECT_EQ(count_params(a).total, 6738415616);
}

TEST(HfConfig, GemmaDefaultsToTiedEmbeddingsAndHeadDim256) {
  const ModelArchitecture a = parse_hf_config(
      R"({"model_type": "gemma", "hidden_size": 2048, "num_hidden_layers": 18,
          "intermediate_size": 16384, "vocab_size": 256000, "num_attention_heads": 8,
          "num_key_value_heads": 1})",
      "c");
  EXPECT_TRUE(a.tie_embeddings);
  EXPECT_EQ(a.attention.head_dim, 256);
  // Gemma-2B: keras-hub preset gemma_2b_en params 2,506,172,416.
  EXPECT_EQ(count_params(a).total, 2506172416);
}

TEST(HfConfig, Gemma3TextConfigUsesGemma3TextConfigDefaults) {
  const ModelArchitecture a = parse_hf_config(
      R"({"model_type": "gemma3", "text_config": {"hidden_size": 2560,
          "intermediate_size": 10240, "num_hidden_layers": 34},
          "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
          "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}})",
      "c");
  EXPECT_EQ(a.model_type, "gemma3");
  EXPECT_EQ(a.vocab, 262208);
  EXPECT_EQ(a.attention.num_heads, 8);
  EXPECT_EQ(a.attention.num_kv_heads, 4);
  EXPECT_EQ(a.attention.head_dim, 256);
  EXPECT_TRUE(a.attention.qk_norm);
  EXPECT_EQ(a.norms_per_layer, 4);
  ASSERT_TRUE(a.vision.has_value());
  EXPECT_FALSE(a.vision->pooling_head);
  // The SigLIP tower by hand: patch conv 3*14*14*1152 + 1152, 64^2 positions, 27 layers of
  // 2 LayerNorms + 4 biased 1152^2 projections + fc1/fc2, post_layernorm.
  const std::int64_t h = 1152;
  const std::int64_t layer = 4 * h + 4 * (h * h + h) + (h * 4304 + 4304) + (4304 * h + h);
  EXPECT_EQ(vision_tower_params(a), 3 * 14 * 14 * h + h + 4096 * h + 27 * layer + 2 * h);
  EXPECT_EQ(vision_projector_params(a), h * 2560 + h);
}

TEST(HfConfig, Gemma3NeedsItsVisionConfig) {
  EXPECT_THAT(error_of(R"({"model_type": "gemma3", "text_config": {"hidden_size": 2560,
                          "intermediate_size": 10240, "num_hidden_layers": 34}})"),
              HasSubstr("vision_config: missing"));
  EXPECT_THAT(error_of(R"({"model_type": "gemma3", "text_config": {"hidden_size": 2560,
                          "intermediate_size": 10240, "num_hidden_layers": 34},
                          "vision_config": {"hidden_size": 1152, "image_size": 896,
                          "intermediate_size": 4304, "num_hidden_layers": 27,
                          "patch_size": 15}})"),
              HasSubstr("vision_config.patch_size: 15 does not divide image_size 896"));
}

TEST(HfConfig, Qwen2AlwaysHasQkvBiases) {
  const ModelArchitecture a = parse_hf_config(
      R"({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
          "intermediate_size": 4864, "vocab_size": 151936, "num_attention_heads": 14,
          "num_key_value_heads": 2, "tie_word_embeddings": true})",
      "c");
  EXPECT_TRUE(a.attention.qkv_bias);
  EXPECT_FALSE(a.attention.output_bias);
  // Qwen2.5-0.5B: HF API safetensors.total 494,032,768.
  EXPECT_EQ(count_params(a).total, 494032768);
}

// Falcon-7B's layout (one shared key/value head, 4h MLP, tied, no biases); Falcon-40B's new
// decoder and ALiBi are refused by name.
TEST(HfConfig, FalconReadsSevenBsLayoutAndRefusesTheRest) {
  const std::string falcon =
      R"({"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
          "num_attention_heads": 71, "vocab_size": 65024, "multi_query": true,
          "parallel_attn": true, "bias": false)";
  const ModelArchitecture a = parse_hf_config(falcon + "}", "c");
  EXPECT_EQ(a.attention.num_kv_heads, 1);
  EXPECT_EQ(a.attention.head_dim, 64);
  EXPECT_EQ(a.mlp.intermediate, 4 * 4544);
  EXPECT_TRUE(a.tie_embeddings);
  EXPECT_EQ(count_params(a).total, 6921720704);
  EXPECT_THAT(error_of(falcon + R"(, "new_decoder_architecture": true})"),
              HasSubstr("new_decoder_architecture"));
  EXPECT_THAT(error_of(falcon + R"(, "alibi": true})"), HasSubstr("alibi"));
}

// Qwen1.5-MoE-A2.7B: Qwen2MoeConfig's defaults fill what the config leaves out; the shared
// expert and its sigmoid gate beside 60 routed experts.
TEST(HfConfig, Qwen2MoeCountsTheSharedExpertAndItsGate) {
  const ModelArchitecture a = parse_hf_config(
      R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
          "num_attention_heads": 16, "vocab_size": 151936})",
      "c");
  ASSERT_TRUE(a.moe.has_value());
  EXPECT_EQ(a.moe->num_experts, 60);
  EXPECT_EQ(a.moe->experts_per_token, 4);
  EXPECT_EQ(a.moe->shared_intermediate, 5632);
  EXPECT_TRUE(a.moe->shared_expert_gate);
  EXPECT_TRUE(a.attention.qkv_bias);
  EXPECT_FALSE(a.attention.qk_norm);
  const ParamCounts c = count_params(a);
  EXPECT_EQ(c.total, 14315784192);
  // Active: both embedding tables, attention, norms, router, the shared expert and its gate
  // (1,858,701,312 a token whatever the routing) + 4 of 60 experts: 2,689,173,504 ("A2.7B").
  EXPECT_EQ(c.active, 1858701312 + 24LL * 4 * 3 * 2048 * 1408);
}

// DeepseekV2Config's defaults where V2's config is silent: greedy routing (no score bias), no
// dense layers first, no MoE without n_routed_experts.
TEST(HfConfig, DeepSeekV2TakesItsOwnClassDefaults) {
  const std::string v2 =
      R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27,
          "intermediate_size": 10944, "vocab_size": 102400, "num_attention_heads": 16,
          "q_lora_rank": null)";
  const ModelArchitecture a =
      parse_hf_config(v2 + R"(, "n_routed_experts": 64, "num_experts_per_tok": 6})", "c");
  ASSERT_TRUE(a.moe.has_value());
  EXPECT_FALSE(a.moe->router_score_bias);
  EXPECT_EQ(a.moe->first_dense_layers, 0);
  EXPECT_EQ(a.moe->num_shared_experts, 0);
  EXPECT_EQ(a.model_type, "deepseek_v2");
  EXPECT_FALSE(parse_hf_config(v2 + "}", "c").moe.has_value());
  EXPECT_THAT(error_of(v2 + R"(, "n_routed_experts": 64})"), HasSubstr("num_experts_per_tok"));
}

TEST(HfConfig, DeepSeekNullQLoraRankMeansPlainQueryProjection) {
  const std::string base = R"({"model_type": "deepseek_v3", "hidden_size": 2048,
      "num_hidden_layers": 4, "intermediate_size": 10944, "vocab_size": 102400,
      "num_attention_heads": 16, "kv_lora_rank": 512, "moe_intermediate_size": 1408,
      "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
      "first_k_dense_replace": 1, "topk_method": "greedy")";
  const ModelArchitecture lite = parse_hf_config(base + R"(, "q_lora_rank": null})", "c");
  EXPECT_EQ(lite.attention.latent->q_lora_rank, 0);
  EXPECT_FALSE(lite.moe->router_score_bias);
  EXPECT_EQ(lite.moe->shared_intermediate, 2 * 1408);
  const ModelArchitecture absent = parse_hf_config(base + "}", "c");
  EXPECT_EQ(absent.attention.latent->q_lora_rank, 1536);  // DeepseekV3Config's default
  EXPECT_EQ(absent.mtp_layers, 0);
}

TEST(HfConfig, SlidingWindowLayoutPerFamily) {
  const std::string gemma3 = R"({"model_type": "gemma3_text", "hidden_size": 1152,
      "num_hidden_layers": 26, "intermediate_size": 6912, "vocab_size": 262144,
      "num_attention_heads": 4, "num_key_value_heads": 1, "sliding_window": 512,
      "sliding_window_pattern": 6})";
  const ModelArchitecture g = parse_hf_config(gemma3, "c");
  EXPECT_EQ(attention_span(g, 0, 8192), 512);
  EXPECT_EQ(attention_span(g, 5, 8192), 8192);  // every sixth layer is global
  EXPECT_EQ(attention_span(g, 0, 100), 100);
  const ModelArchitecture m = parse_hf_config(
      R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32,
          "intermediate_size": 14336, "vocab_size": 32000, "num_attention_heads": 32,
          "sliding_window": 4096})",
      "c");
  EXPECT_EQ(attention_span(m, 31, 32768), 4096);
  // Qwen2 configs carry a window they do not use unless use_sliding_window is set.
  const ModelArchitecture q = parse_hf_config(
      R"({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
          "intermediate_size": 4864, "vocab_size": 151936, "num_attention_heads": 14,
          "sliding_window": 32768, "use_sliding_window": false})",
      "c");
  EXPECT_EQ(attention_span(q, 0, 131072), 131072);
  EXPECT_EQ(parse_hf_config(llama(), "c").attention.sliding_window, 0);
}

TEST(HfConfig, GptOssLayerTypesAlternateFromASlidingLayer) {
  const std::string base = R"({"model_type": "gpt_oss", "hidden_size": 2880,
      "num_hidden_layers": 4, "intermediate_size": 2880, "vocab_size": 201088,
      "num_attention_heads": 64, "num_local_experts": 32)";
  const ModelArchitecture g = parse_hf_config(base + "}", "c");
  EXPECT_TRUE(g.attention.sinks);
  EXPECT_TRUE(g.moe->expert_bias && g.moe->router_bias);
  EXPECT_EQ(g.attention.head_dim, 64);
  EXPECT_EQ(attention_span(g, 0, 4096), 128);
  EXPECT_EQ(attention_span(g, 1, 4096), 4096);
  const ModelArchitecture full = parse_hf_config(
      base + R"(, "layer_types": ["full_attention", "full_attention", "full_attention",
                                  "full_attention"]})",
      "c");
  EXPECT_EQ(attention_span(full, 0, 4096), 4096);
  EXPECT_THAT(error_of(base + R"(, "layer_types": ["full_attention", "sliding_attention",
                                   "full_attention", "sliding_attention"]})"),
              HasSubstr("layer_types: only sliding and full layers alternating"));
  EXPECT_THAT(error_of(base + R"(, "layer_types": ["full_attention"]})"),
              HasSubstr("layer_types: must be a list of num_hidden_layers (4) strings"));
  EXPECT_THAT(error_of(base + R"(, "layer_types": ["a", "b", "c", "d"]})"),
              HasSubstr("entry 0 must be"));
}

TEST(HfConfig, UnknownModelTypeListsSupportedOnes) {
  EXPECT_THAT(error_of(R"({"model_type": "bert"})"),
              AllOf(HasSubstr("model/config.json"), HasSubstr("\"bert\" is not supported"),
                    HasSubstr("llama"), HasSubstr("deepseek_v3"), HasSubstr("qwen3_moe")));
  EXPECT_THAT(error_of(R"({"hidden_size": 1})"), HasSubstr("model_type: missing"));
}

TEST(HfConfig, MalformedJsonNamesTheFile) {
  EXPECT_THAT(error_of(R"({"model_type": "llama", )"),
              AllOf(HasSubstr("model/config.json"), HasSubstr("not valid JSON")));
  EXPECT_THAT(error_of("[1, 2]"), HasSubstr("not a JSON object"));
  EXPECT_THAT(error_of(""), HasSubstr("not valid JSON"));
  // nlohmann reports an unrepresentable number as out_of_range, not parse_error (found by the
  // fuzz target).
  EXPECT_THAT(error_of(R"({"model_type": "llama", "x": 8e88888888})"), HasSubstr("not valid JSON"));
}

TEST(HfConfig, MissingRequiredFieldsAreAllNamed) {
  EXPECT_THAT(
      error_of(R"({"model_type": "mistral", "hidden_size": 4096})"),
      AllOf(HasSubstr("num_hidden_layers: missing"), HasSubstr("vocab_size: missing"),
            HasSubstr("num_attention_heads: missing"), HasSubstr("intermediate_size: missing")));
  EXPECT_THAT(error_of(R"({"model_type": "gemma3"})"), HasSubstr("text_config: missing"));
}

TEST(HfConfig, ContradictoryHeadsAreRejected) {
  EXPECT_THAT(error_of(llama("", "30")),
              HasSubstr("num_attention_heads: 30 does not divide hidden_size 4096"));
  // With an explicit head_dim, heads need not divide hidden (Gemma, Qwen3 do this).
  EXPECT_NO_THROW((void)parse_hf_config(llama(R"(, "head_dim": 128)", "30"), "c"));
  EXPECT_THAT(error_of(llama(R"(, "num_key_value_heads": 5)")),
              HasSubstr("num_key_value_heads: 5 does not divide num_attention_heads 32"));
}

TEST(HfConfig, AbsurdValuesAreRejected) {
  EXPECT_THAT(error_of(llama(R"(, "num_hidden_layers": -3)")),
              HasSubstr("num_hidden_layers: -3 must be between 1 and"));
  EXPECT_THAT(error_of(llama(R"(, "vocab_size": 0)")), HasSubstr("vocab_size: 0 must be"));
  EXPECT_THAT(error_of(llama(R"(, "hidden_size": 99999999999)")), HasSubstr("hidden_size"));
  EXPECT_THAT(error_of(llama(R"(, "num_hidden_layers": 10000001)")),
              HasSubstr("num_hidden_layers"));
  EXPECT_THAT(error_of(llama(R"(, "vocab_size": "32000")")),
              HasSubstr("vocab_size: \"32000\" must be an integer"));
  EXPECT_THAT(error_of(llama(R"(, "vocab_size": 3.5)")), HasSubstr("must be an integer"));
  EXPECT_THAT(error_of(llama(R"(, "vocab_size": 18446744073709551615)")),
              HasSubstr("out of range"));
  EXPECT_THAT(error_of(llama(R"(, "tie_word_embeddings": "yes")")),
              HasSubstr("tie_word_embeddings: \"yes\" must be true or false"));
  // In range one by one, but 9e6 wide and 4,000 deep is ~1.5e18 parameters: past the 1e15
  // accepted.
  EXPECT_THAT(error_of(llama(R"(, "hidden_size": 9000000, "num_hidden_layers": 4000,
                                 "intermediate_size": 9000000)")),
              HasSubstr("parameters, past the"));
}

TEST(HfConfig, ReportsEveryProblemAtOnce) {
  const std::string e = error_of(llama(R"(, "vocab_size": -1, "num_hidden_layers": "x")"));
  EXPECT_THAT(
      e, AllOf(HasSubstr("2 problems"), HasSubstr("vocab_size"), HasSubstr("num_hidden_layers")));
}

TEST(HfConfig, MoeContradictionsAreRejected) {
  EXPECT_THAT(error_of(llama(R"(, "model_type": "mixtral", "num_local_experts": 4,
                                 "num_experts_per_tok": 6)")),
              HasSubstr("num_experts_per_tok: 6 exceeds the 4 experts"));
  EXPECT_THAT(error_of(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
                            "vocab_size": 10, "num_attention_heads": 2,
                            "moe_intermediate_size": 8, "mlp_only_layers": [5]})"),
              HasSubstr("mlp_only_layers: layer 5 is outside 0..1"));
}

TEST(HfConfig, Qwen3MoeWithoutExpertsIsDense) {
  const ModelArchitecture a = parse_hf_config(
      R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
          "vocab_size": 10, "num_attention_heads": 2, "moe_intermediate_size": 8,
          "num_experts": 0, "intermediate_size": 128})",
      "c");
  EXPECT_FALSE(a.moe.has_value());
  EXPECT_EQ(a.mlp.intermediate, 128);
}

TEST(HfConfig, MissingFileIsADataError) {
  EXPECT_THROW((void)load_hf_config("/nonexistent/config.json"), DataError);
}

}  // namespace
}  // namespace tb::io
