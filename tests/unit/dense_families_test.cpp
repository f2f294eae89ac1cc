// The Llama-like dense families (issue 41: Seed-OSS, Cohere, Nemotron, MPT, EXAONE 4.0, SmolLM3,
// Helium, Arcee, Hunyuan, Granite), read from config.json as transformers' configuration and
// modeling files define them (docs/models.md). Counts by hand from the modules; the released
// checkpoints' published sizes beside them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

ModelArchitecture parse(const std::string& json) { return io::parse_hf_config(json, "t.json"); }

std::string refusal(const std::string& json) {
  try {
    (void)parse(json);
  } catch (const DataError& e) {
    return e.what();
  }
  return "accepted";
}

// Seed-OSS-36B: hidden 5120, 64 layers, 80 heads and 8 key/value heads of 128, MLP 27648,
// vocabulary 155136, untied; q/k/v biased, o_proj not.
// - attention 5120 x 10240 + 10240 + 2 x (5120 x 1024 + 1024) + 10240 x 5120 = 115,355,648;
//   MLP 3 x 5120 x 27648 = 424,673,280; two RMSNorms 10,240: a layer 540,039,168;
// - total 2 x 155136 x 5120 + 64 layers + 5120 = 36,151,104,512 (ByteDance-Seed's "36B").
TEST(DenseFamilies, SeedOss36BCountsByHand) {
  const ModelArchitecture a = parse(R"({"model_type": "seed_oss", "hidden_size": 5120,
      "num_hidden_layers": 64, "num_attention_heads": 80, "num_key_value_heads": 8,
      "head_dim": 128, "intermediate_size": 27648, "vocab_size": 155136,
      "attention_bias": true, "attention_out_bias": false, "tie_word_embeddings": false})");
  EXPECT_EQ(attention_params(a), 115'355'648);
  EXPECT_EQ(count_params(a).total, 36'151'104'512);
  // The class defaults: q/k/v biased without the key.
  const ModelArchitecture d = parse(R"({"model_type": "seed_oss", "hidden_size": 64,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 128,
      "vocab_size": 10})");
  EXPECT_TRUE(d.attention.qkv_bias);
  EXPECT_FALSE(d.attention.output_bias);
  EXPECT_EQ(d.attention.head_dim, 128);
}

// Command R7B (cohere2): hidden 4096, 32 layers, 32 heads and 8 key/value heads of 128, MLP
// 14336, vocabulary 256000, tied; one weight-only LayerNorm a layer, attention and MLP in
// parallel.
// - attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; MLP 3 x 4096 x 14336 = 176,160,768;
//   one norm 4,096: a layer 218,107,904;
// - total 256000 x 4096 + 32 layers + 4096 = 8,028,033,024 (the Hub's "8.03B").
// Three layers of four slide a 4,096-token window; the fourth attends fully.
TEST(DenseFamilies, CommandR7BCountsByHandAndSlidesThreeLayersOfFour) {
  const std::string config = R"({"model_type": "cohere2", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "intermediate_size": 14336, "vocab_size": 256000, "sliding_window": 4096,
      "sliding_window_pattern": 4, "logit_scale": 0.25})";
  const ModelArchitecture a = parse(config);
  EXPECT_EQ(a.norms_per_layer, 1);
  EXPECT_EQ(attention_params(a), 41'943'040);
  EXPECT_EQ(count_params(a).total, 8'028'033'024);
  EXPECT_EQ(attention_span(a, 0, 8192), 4096);
  EXPECT_EQ(attention_span(a, 3, 8192), 8192);
  // layer_types, as newer configs write it, gives the same pattern; one off it is refused.
  std::string typed = config;
  std::string types = R"("layer_types": [)";
  for (int i = 0; i < 32; ++i) {
    types += (i % 4 == 3 ? R"("full_attention")" : R"("sliding_attention")");
    types += i < 31 ? "," : "],";
  }
  typed.insert(1, types);
  EXPECT_EQ(attention_span(parse(typed), 7, 8192), 8192);
  EXPECT_EQ(attention_span(parse(typed), 6, 8192), 4096);
  std::string broken = typed;
  broken.replace(broken.find(R"("full_attention")"), 16, R"("sliding_attention")");
  EXPECT_NE(refusal(broken).find("breaks the pattern"), std::string::npos) << refusal(broken);
}

// Command R (cohere, c4ai-command-r-v01): hidden 8192, 40 layers, 64 heads, MLP 22528,
// vocabulary 256000, tied: a layer 4 x 8192^2 + 3 x 8192 x 22528 + 8192 = 822,091,776; total
// 256000 x 8192 + 40 layers + 8192 = 34,980,831,232 (Cohere's "35B"). Its qk-norm variant is
// refused by name.
TEST(DenseFamilies, CommandRCountsByHandAndRefusesQkNorm) {
  const std::string config = R"({"model_type": "cohere", "hidden_size": 8192,
      "num_hidden_layers": 40, "num_attention_heads": 64, "intermediate_size": 22528,
      "vocab_size": 256000, "logit_scale": 0.0625})";
  EXPECT_EQ(count_params(parse(config)).total, 34'980'831'232);
  std::string qk = config;
  qk.insert(1, R"("use_qk_norm": true, )");
  EXPECT_NE(refusal(qk).find("use_qk_norm: true"), std::string::npos) << refusal(qk);
}

// Minitron-4B (nemotron): hidden 3072, 32 layers, 24 heads and 8 key/value heads of 128, a
// non-gated MLP of 9216, vocabulary 256000, untied, LayerNorms with bias.
// - attention 2 x 3072^2 + 2 x 3072 x 1024 = 25,165,824; MLP 2 x 3072 x 9216 = 56,623,104; two
//   LayerNorms 12,288: a layer 81,801,216;
// - total 2 x 256000 x 3072 + 32 layers + 6,144 = 4,190,509,056 (NVIDIA's "4.19B").
TEST(DenseFamilies, Minitron4BCountsByHand) {
  const ModelArchitecture a = parse(R"({"model_type": "nemotron", "hidden_size": 3072,
      "num_hidden_layers": 32, "num_attention_heads": 24, "num_key_value_heads": 8,
      "head_dim": 128, "intermediate_size": 9216, "vocab_size": 256000,
      "hidden_act": "relu2", "partial_rotary_factor": 0.5})");
  EXPECT_FALSE(a.mlp.gated);
  EXPECT_EQ(dense_mlp_params(a), 56'623'104);
  EXPECT_EQ(count_params(a).total, 4'190'509'056);
}

// MPT-7B: d_model 4096, 32 layers, 32 heads, vocabulary 50432, tied, no biases, weight-only
// LayerNorms, a fused Wqkv and a 4x GELU MLP.
// - a layer 4 x 4096^2 + 2 x 4096 x 16384 + 8,192 = 201,334,784;
// - total 50432 x 4096 + 32 layers + 4,096 = 6,649,286,656 (MosaicML's "6.7B").
TEST(DenseFamilies, Mpt7BCountsByHandAndRefusesWhatTransformersDoesNotBuild) {
  const std::string config = R"({"model_type": "mpt", "d_model": 4096, "n_heads": 32,
      "n_layers": 32, "vocab_size": 50432, "max_seq_len": 2048, "expansion_ratio": 4,
      "no_bias": true, "attn_config": {"alibi": true}})";
  const ModelArchitecture a = parse(config);
  EXPECT_TRUE(a.attention.fused_qkv);
  EXPECT_EQ(count_params(a).total, 6'649'286'656);
  // MptBlock's module names, which LoRA targets name: attn.Wqkv, attn.out_proj, ffn.up_proj,
  // ffn.down_proj (each once a layer; the head after them).
  const std::vector<LinearLayer> linears = model_linears(a);
  ASSERT_EQ(linears.size(), 5U);
  EXPECT_EQ(linears[0].path, "attn.Wqkv");
  EXPECT_EQ(linears[0].out_features, 3 * 4096);
  EXPECT_EQ(linears[3].path, "ffn.down_proj");
  std::string wide = config;
  wide.replace(wide.find(R"("expansion_ratio": 4)"), 20, R"("expansion_ratio": 8)");
  EXPECT_NE(refusal(wide).find("expansion_ratio: 8"), std::string::npos) << refusal(wide);
}

// EXAONE-4.0-32B: hidden 5120, 64 layers, 40 heads and 8 key/value heads of 128, MLP 27392,
// vocabulary 102400, untied, q_norm / k_norm over head_dim.
// - a layer 2 x 5120^2 + 2 x 5120 x 1024 + 256 + 3 x 5120 x 27392 + 10,240 = 483,666,176;
// - without the embedding and head: 64 layers + 5120 = 30,954,640,384, LG AI Research's
//   "30.95B (without embeddings)" to the last digit given.
TEST(DenseFamilies, Exaone4ThirtyTwoBCountsByHand) {
  const ModelArchitecture a = parse(R"({"model_type": "exaone4", "hidden_size": 5120,
      "num_hidden_layers": 64, "num_attention_heads": 40, "num_key_value_heads": 8,
      "head_dim": 128, "intermediate_size": 27392, "vocab_size": 102400,
      "tie_word_embeddings": false, "sliding_window": 4096, "sliding_window_pattern": 4})");
  EXPECT_EQ(count_params(a).total - 2 * 102400LL * 5120, 30'954'640'384);
  // EXAONE 4.0 1.2B attends fully in every layer (no sliding_window).
  const ModelArchitecture small = parse(R"({"model_type": "exaone4", "hidden_size": 2048,
      "num_hidden_layers": 30, "num_attention_heads": 32, "num_key_value_heads": 8,
      "head_dim": 64, "intermediate_size": 4096, "vocab_size": 102400,
      "tie_word_embeddings": true, "sliding_window": null})");
  EXPECT_EQ(attention_span(small, 0, 65536), 65536);
}

// SmolLM3-3B: hidden 2048, 36 layers, 16 heads and 4 key/value heads of 128, MLP 11008,
// vocabulary 128256, tied: a layer 2 x 2048^2 + 2 x 2048 x 512 + 3 x 2048 x 11008 + 4,096 =
// 78,123,008; total 128256 x 2048 + 36 layers + 2048 = 3,075,098,624 (Hugging Face's "3B").
// Helium-1 preview 2B: hidden 2560, 24 layers, 20 heads of 128, MLP 7040, vocabulary 48000,
// untied: a layer 4 x 2560^2 + 3 x 2560 x 7040 + 5,120 = 80,286,720; total 2 x 48000 x 2560 + 24
// layers + 2560 = 2,172,643,840 (its 4.35 GB of bf16 weights).
TEST(DenseFamilies, SmolLm3AndHeliumCountByHand) {
  EXPECT_EQ(count_params(parse(R"({"model_type": "smollm3", "hidden_size": 2048,
      "num_hidden_layers": 36, "num_attention_heads": 16, "num_key_value_heads": 4,
      "intermediate_size": 11008, "vocab_size": 128256, "no_rope_layer_interval": 4})"))
                .total,
            3'075'098'624);
  EXPECT_EQ(count_params(parse(R"({"model_type": "helium", "hidden_size": 2560,
      "num_hidden_layers": 24, "num_attention_heads": 20, "num_key_value_heads": 20,
      "intermediate_size": 7040, "vocab_size": 48000})"))
                .total,
            2'172'643'840);
  EXPECT_NE(refusal(R"({"model_type": "helium", "hidden_size": 2048, "num_hidden_layers": 2,
      "num_attention_heads": 8, "intermediate_size": 64, "vocab_size": 10})")
                .find("o_proj is hidden -> hidden"),
            std::string::npos);
}

// Arcee (AFM), Hunyuan dense and Granite on a small config, by hand: hidden 256, 2 layers, 4
// heads and 2 key/value heads of 64, MLP 512, vocabulary 1000, untied.
// - Llama's layer: attention 2 x 256^2 + 2 x 256 x 128 = 196,608; gated MLP 3 x 256 x 512 =
//   393,216; two norms 512: 590,336; total 2 x 256,000 + 2 layers + 256 = 1,692,928 (Granite);
// - Arcee's MLP is up/down only: 262,144 a layer, total 1,692,928 - 2 x 131,072 = 1,430,784;
// - Hunyuan adds q/k norms of 64 each: 1,692,928 + 2 x 128 = 1,693,184.
TEST(DenseFamilies, ArceeHunyuanGraniteOnASmallConfig) {
  const std::string body = R"("hidden_size": 256, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512,
      "vocab_size": 1000, "tie_word_embeddings": false})";
  EXPECT_EQ(count_params(parse(R"({"model_type": "granite", )" + body)).total, 1'692'928);
  const ModelArchitecture arcee = parse(R"({"model_type": "arcee", )" + body);
  EXPECT_FALSE(arcee.mlp.gated);
  EXPECT_EQ(count_params(arcee).total, 1'430'784);
  EXPECT_EQ(count_params(parse(R"({"model_type": "hunyuan_v1_dense", )" + body)).total, 1'693'184);
}

// OLMo 2 7B (olmo2, OLMo-2-1124-7B): hidden 4096, 32 layers, 32 heads, MLP 11008, vocabulary
// 100352, untied; q_norm and k_norm as wide as q and k (4,096 each), two norms after the
// sublayers.
// - a layer 4 x 4096^2 + 2 x 4096 + 3 x 4096 x 11008 + 8,192 = 202,391,552;
// - total 2 x 100352 x 4096 + 32 layers + 4096 = 7,298,617,344 (Ai2's "7B").
// Olmo 3 (olmo3) slides the class's 4,096-token window in three layers of four; with 8 key/value
// heads of 128 the k_norm is 1,024 wide.
TEST(DenseFamilies, Olmo2SevenBCountsByHandAndOlmo3Slides) {
  const std::string body = R"("hidden_size": 4096, "num_hidden_layers": 32,
      "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 100352})";
  const ModelArchitecture olmo2 = parse(R"({"model_type": "olmo2", )" + body);
  EXPECT_EQ(attention_params(olmo2), 4 * 4096LL * 4096 + 2 * 4096);
  EXPECT_EQ(count_params(olmo2).total, 7'298'617'344);
  EXPECT_EQ(attention_span(olmo2, 0, 8192), 8192);
  const ModelArchitecture olmo3 =
      parse(R"({"model_type": "olmo3", "num_key_value_heads": 8, )" + body);
  EXPECT_EQ(attention_params(olmo3), 2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 4096 + 1024);
  EXPECT_EQ(attention_span(olmo3, 0, 8192), 4096);
  EXPECT_EQ(attention_span(olmo3, 3, 8192), 8192);
}

// Qwen-7B (qwen, the remote-code Qwen (1)): hidden 4096, 32 layers, 32 heads of 128, intermediate
// 22016 (w1 and w2 of 11008 each), vocabulary 151936, untied, no_bias.
// - a layer 4096 x 12288 + 12288 (c_attn) + 4096^2 (c_proj) + 3 x 4096 x 11008 + 8,192 =
//   202,395,648;
// - total 2 x 151936 x 4096 + 32 layers + 4096 = 7,721,324,544, the count a FLOPs profiler's
//   table (calflops) and QAnything's start-up line print for the loaded Qwen-7B.
TEST(DenseFamilies, Qwen7BCountsByHandWithItsModuleNames) {
  const ModelArchitecture a = parse(R"({"model_type": "qwen", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "kv_channels": 128,
      "intermediate_size": 22016, "vocab_size": 151936, "no_bias": true,
      "seq_length": 8192, "tie_word_embeddings": false})");
  EXPECT_EQ(count_params(a).total, 7'721'324'544);
  const std::vector<LinearLayer> linears = model_linears(a);
  ASSERT_EQ(linears.size(), 6U);
  EXPECT_EQ(linears[0].path, "attn.c_attn");
  EXPECT_TRUE(linears[0].bias);
  EXPECT_EQ(linears[3].path, "mlp.w2");
  EXPECT_EQ(linears[4].path, "mlp.c_proj");
}

// GPT-J-6B (gptj): n_embd 4096, 28 layers, 16 heads, vocabulary 50400, untied, a biased head.
// - a layer 4 x 4096^2 + (4096 x 16384 + 16384) + (16384 x 4096 + 4096) + 8,192 (ln_1) =
//   201,355,264;
// - total 2 x 50400 x 4096 + 50400 (head bias) + 28 layers + 8,192 (ln_f) = 6,050,882,784.
// EleutherAI's card gives 6,053,381,344: 2,498,560 more, exactly what mesh-transformer-jax's 8
// model-parallel shards hold in copies (7 more of each layer's LayerNorm and fc_out bias,
// 28 x 7 x 3 x 4096; 7 more of the final LayerNorm, 7 x 2 x 4096; one 4096 bias on each of the 8
// one-hot embedding shards), which transformers' GPTJForCausalLM does not have.
TEST(DenseFamilies, GptJ6BCountsByHandAndTheCardsShardCopies) {
  const ModelArchitecture a = parse(R"({"model_type": "gptj", "n_embd": 4096, "n_layer": 28,
      "n_head": 16, "n_positions": 2048, "vocab_size": 50400, "rotary_dim": 64,
      "n_inner": null, "activation_function": "gelu_new", "tie_word_embeddings": false})");
  const std::int64_t total = count_params(a).total;
  EXPECT_EQ(total, 6'050'882'784);
  EXPECT_EQ(total + 28 * 7 * 3 * 4096 + 7 * 2 * 4096 + 8 * 4096, 6'053'381'344);
  const std::vector<LinearLayer> linears = model_linears(a);
  ASSERT_EQ(linears.size(), 7U);
  EXPECT_EQ(linears[3].path, "attn.out_proj");
  EXPECT_EQ(linears[4].path, "mlp.fc_in");
  EXPECT_TRUE(linears[6].bias);  // the head
}

// Apertus 8B (apertus): hidden 4096, 32 layers, 32 heads and 8 key/value heads of 128, a
// non-gated xIELU MLP of 21504, vocabulary 131072, untied.
// - a layer 2 x 4096^2 + 2 x 4096 x 1024 + 256 (q/k norms) + 2 x 4096 x 21504 + 2 (xIELU's
//   alpha_p, alpha_n) + 8,192 = 218,112,258;
// - total 2 x 131072 x 4096 + 32 layers + 4096 = 8,053,338,176, the count a public project's log
//   prints for the loaded Apertus 8B.
TEST(DenseFamilies, Apertus8BCountsByHandWithXieluScalars) {
  const ModelArchitecture a = parse(R"({"model_type": "apertus", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "intermediate_size": 21504, "vocab_size": 131072, "hidden_act": "xielu",
      "tie_word_embeddings": false})");
  EXPECT_EQ(dense_mlp_params(a), 2 * 4096LL * 21504 + 2);
  EXPECT_EQ(count_params(a).total, 8'053'338'176);
}

}  // namespace
}  // namespace tb
