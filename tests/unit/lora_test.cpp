// LoRA adapter counts against PEFT's print_trainable_parameters, and QLoRA's NF4 base.
#include "trainbudget/model/lora.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

ModelArchitecture fixture(const char* name) {
  return io::load_hf_config(std::filesystem::path(TB_TEST_DIR) / "data" / "hf_configs" / name);
}

LoraSpec spec(std::int64_t rank, const char* targets) {
  return LoraSpec{rank, parse_lora_targets(targets)};
}

TEST(Lora, Llama2QvRank8MatchesPeft) {
  // PEFT print_trainable_parameters for meta-llama/Llama-2-7b-hf, LoraConfig(r=8,
  // target_modules=["q_proj","v_proj"]): "trainable params: 4,194,304 || all params:
  // 6,742,609,920" (= 6,738,415,616 base + adapters). Hand check: 8 x (4096 + 4096) x 2 x 32.
  const ModelArchitecture a = fixture("llama-2-7b-hf.json");
  EXPECT_EQ(lora_trainable_params(a, spec(8, "q,v")), 4194304);
  EXPECT_EQ(count_params(a).total + lora_trainable_params(a, spec(8, "q,v")), 6742609920);
}

TEST(Lora, MistralAllLinearRank16MatchesPeft) {
  // PEFT on mistralai/Mistral-7B-v0.1, r=16, all seven projections (or "all-linear"):
  // "trainable params: 41,943,040" (widely reported; the printed "all params" varies between
  // reports with the quantization used, so we check base + adapters against the exact base).
  const ModelArchitecture a = fixture("mistral-7b-v0.1.json");
  EXPECT_EQ(lora_trainable_params(a, spec(16, "q,k,v,o,gate,up,down")), 41943040);
  EXPECT_EQ(lora_trainable_params(a, spec(16, "all-linear")), 41943040);
  EXPECT_EQ(count_params(a).total + 41943040, 7283675136);
}

TEST(Lora, Llama3AllProjectionsRank16MatchesPeft) {
  // PEFT on Meta-Llama-3-8B, r=16, q,k,v,o,gate,up,down: "trainable params: 41,943,040 ||
  // all params: 8,072,204,288".
  const ModelArchitecture a = fixture("meta-llama-3-8b.json");
  EXPECT_EQ(lora_trainable_params(a, spec(16,
                                          "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,"
                                          "down_proj")),
            41943040);
  EXPECT_EQ(count_params(a).total + 41943040, 8072204288);
}

TEST(Lora, Gpt2FusedAttentionGetsOneAdapter) {
  // PEFT's GPT-2 default target c_attn, r=8: 8 x (768 + 2304) x 12 = 294,912
  // ("trainable params: 294,912 || all params: 124,734,720").
  const ModelArchitecture a = fixture("gpt2.json");
  EXPECT_EQ(lora_trainable_params(a, spec(8, "q,v")), 294912);
  EXPECT_EQ(lora_trainable_params(a, spec(8, "c_attn")), 294912);
  EXPECT_EQ(count_params(a).total + 294912, 124734720);
}

TEST(Lora, MixtralExpertsEachGetAnAdapterAndAllLinearIncludesTheRouter) {
  const ModelArchitecture a = fixture("mixtral-8x7b-v0.1.json");
  const std::int64_t h = 4096, f = 14336, r = 8, experts = 8, layers = 32;
  // w1, w3 (h -> f) and w2 (f -> h) in each of 8 experts.
  EXPECT_EQ(lora_trainable_params(a, spec(r, "gate,up,down")), 3 * r * (h + f) * experts * layers);
  EXPECT_EQ(lora_trainable_params(a, spec(r, "w1")), r * (h + f) * experts * layers);
  const std::int64_t attention = r * ((h + h) * 2 + (h + 1024) * 2) * layers;
  const std::int64_t router = r * (h + experts) * layers;
  EXPECT_EQ(lora_trainable_params(a, spec(r, "all-linear")),
            attention + router + 3 * r * (h + f) * experts * layers);
}

TEST(Lora, DeepSeekLatentProjectionsAnswerToQkv) {
  const ModelArchitecture a = fixture("deepseek-v3.json");
  const auto adapters = lora_adapters(a, spec(4, "q"));
  ASSERT_EQ(adapters.size(), 2U);  // q_a_proj and q_b_proj
  EXPECT_EQ(adapters[0].layer.name, "q_a_proj");
  EXPECT_EQ(adapters[1].layer.name, "q_b_proj");
}

// Qwen3-VL (modeling_qwen3_vl.py): linear_fc1 names each vision block's first MLP linear (27) and
// the first linear of the merger and its three deepstack mergers (4 x 4608 -> 4608); the language
// model's MLP is gate/up/down_proj, which it does not reach.
TEST(Lora, QwenThreeVlLinearFc1ReachesTheBlocksAndEveryMerger) {
  const ModelArchitecture a = fixture("qwen3-vl-8b-instruct.json");
  EXPECT_EQ(lora_adapters(a, spec(8, "linear_fc1")).size(), 2U);  // a block's, a merger's
  EXPECT_EQ(lora_trainable_params(a, spec(8, "linear_fc1")),
            27 * 8 * (1152 + 4304) + 4 * 8 * (4608 + 4608));
}

TEST(Lora, AliasesNamingTheSameLayerCountItOnce) {
  const ModelArchitecture a = fixture("phi-3-mini-4k-instruct.json");
  // Phi-3 fuses q, k, v into qkv_proj: naming all three adapts one matrix.
  EXPECT_EQ(lora_trainable_params(a, spec(8, "q,k,v")), lora_trainable_params(a, spec(8, "q")));
}

TEST(Lora, BadTargetsAndRanksNameTheFlag) {
  const ModelArchitecture a = fixture("llama-2-7b-hf.json");
  try {
    (void)lora_trainable_params(a, spec(8, "w1"));
    FAIL();
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("lora_targets: 'w1' matches no linear layer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("q_proj"), std::string::npos) << msg;
  }
  EXPECT_THROW((void)lora_trainable_params(a, spec(0, "q")), InvalidArgument);
  EXPECT_THROW((void)parse_lora_targets("q,,v"), InvalidArgument);
  EXPECT_THROW((void)parse_lora_targets("q, "), InvalidArgument);
  EXPECT_EQ(parse_lora_targets(" q, k ,v"), (std::vector<std::string>{"q", "k", "v"}));
  EXPECT_THROW((void)lora_trainable_params(a, spec(8, "lm_head")), InvalidArgument);
}

// A list written for Llama on a latent-attention model (axolotl's GLM-4.7-Flash examples: q_proj,
// v_proj, k_proj, o_proj): PEFT skips the names the model lacks while o_proj matches, and so do
// the estimate's adapters; a name no family has stays an error, as does a list that matches none.
TEST(Lora, AnotherFamilysModuleNamesAreSkippedWhileOneMatches) {
  const ModelArchitecture a = fixture("deepseek-v3.json");
  EXPECT_EQ(skipped_lora_targets(a, spec(8, "q_proj,v_proj,k_proj,o_proj")),
            (std::vector<std::string>{"q_proj", "v_proj", "k_proj"}));
  EXPECT_TRUE(skipped_lora_targets(a, spec(8, "q_prj,o_proj")).empty());
  EXPECT_THROW((void)lora_trainable_params(a, spec(8, "q_prj,o_proj")), InvalidArgument);
  EXPECT_TRUE(skipped_lora_targets(a, spec(8, "q_proj,v_proj")).empty());
  EXPECT_THROW((void)lora_trainable_params(a, spec(8, "q_proj,v_proj")), InvalidArgument);
  // Llama has them all: nothing skipped.
  EXPECT_TRUE(
      skipped_lora_targets(fixture("llama-2-7b-hf.json"), spec(8, "q_proj,o_proj")).empty());
}

TEST(Qlora, DoubleQuantizationIs0_127BitsPerWeight) {
  // QLoRA §3: 8/64 + 32/(64 x 256) = 0.127 bits per parameter with double quantization,
  // 32/64 = 0.5 bits without.
  const std::int64_t n = 4096LL * 4096LL;
  EXPECT_NEAR(nf4_constant_bytes(n, {}) * 8.0 / static_cast<double>(n), 0.127, 0.0005);
  EXPECT_DOUBLE_EQ(nf4_constant_bytes(n, {64, false, 256}) * 8.0 / static_cast<double>(n), 0.5);
  EXPECT_DOUBLE_EQ(nf4_constant_bytes(65, {64, false, 256}), 8.0);  // two blocks, partial last
}

TEST(Qlora, Llama2BaseIsNf4LinearsPlus16BitEmbeddings) {
  const ModelArchitecture a = fixture("llama-2-7b-hf.json");
  const FrozenBaseBytes b = qlora_base_bytes(a, {}, 2.0);
  // Decoder linears: (4 x 4096^2 + 3 x 4096 x 11008) x 32 = 6,476,005,376 weights in NF4.
  EXPECT_DOUBLE_EQ(b.quantized_weights, 6476005376.0);
  EXPECT_DOUBLE_EQ(b.nf4.value(), 6476005376.0 / 2);
  // Embedding + LM head (2 x 32000 x 4096) + 65 RMSNorms of 4096 stay in bf16.
  EXPECT_DOUBLE_EQ(b.unquantized_params, 2.0 * 32000 * 4096 + 65.0 * 4096);
  // Per 4096^2 tensor: 262,144 absmax bytes + 1,024 fp32 constants; per 4096 x 11008 tensor:
  // 704,512 + 2,752 x 4 bytes.
  const double per_layer = 4 * (262144.0 + 1024 * 4) + 3 * (704512.0 + 2752 * 4);
  EXPECT_DOUBLE_EQ(b.constants.value(), per_layer * 32);
  EXPECT_NEAR(b.total().value(), 3.87e9, 0.01e9);
}

// PEFT matches a string target_modules as a regular expression over each module's full name
// (re.fullmatch; peft/tuners/tuners_utils.py check_target_module_exists), as axolotl's vision
// examples write it (examples/qwen2_5-vl/lora-7b.yaml).
TEST(Lora, ARegularExpressionMatchesFullModuleNamesAsPeftDoes) {
  const ModelArchitecture a = fixture("qwen2.5-vl-7b-instruct.json");
  const LoraSpec language{
      32,
      {"model.language_model.layers.[\\d]+.(mlp|cross_attn|self_attn).(up|down|gate|q|k|v|o)_"
       "proj"}};
  // The language model's seven projections only: 32 x (7,168 + 4,096 + 4,096 + 7,168 + 3 x
  // 22,528) a layer, 28 layers; the aliases would also adapt the encoder's gate/up/down_proj.
  EXPECT_EQ(lora_trainable_params(a, language), 32LL * 90112 * 28);
  // The older naming, and the encoder's fused qkv by its own path (32 blocks, 1,280 -> 3,840).
  EXPECT_EQ(lora_trainable_params(a, LoraSpec{32, {"model\\.layers\\.\\d+\\.self_attn\\.q_proj"}}),
            32LL * 7168 * 28);
  EXPECT_EQ(lora_trainable_params(a, LoraSpec{8, {".*visual\\.blocks\\.\\d+\\.attn\\.qkv"}}),
            8LL * (1280 + 3840) * 32);
  EXPECT_THROW((void)lora_trainable_params(a, LoraSpec{8, {"model.layers.(q_proj"}}),
               InvalidRequest);
  EXPECT_THROW((void)lora_trainable_params(a, LoraSpec{8, {"^lm_head$"}}), InvalidRequest);
}

TEST(Lora, GptOssExpertsAreParametersNotLinears) {
  // OpenAI's cookbook "Fine-tuning with gpt-oss and Hugging Face Transformers" (LoraConfig r 8,
  // target_modules "all-linear", target_parameters: mlp.experts.gate_up_proj and down_proj of
  // layers 7, 15 and 23) prints "trainable params: 15,040,512 || all params: 20,929,797,696".
  // "all-linear" reaches q/k/v/o only (the router and experts are not nn.Linear):
  // 8 x (6,976 + 3,392 + 3,392 + 6,976) x 24 = 3,981,312; one layer's experts by name:
  // 32 x 8 x ((2,880 + 5,760) + (2,880 + 2,880)) = 3,686,400.
  const ModelArchitecture a = fixture("gpt-oss-20b.json");
  const std::int64_t linear = lora_trainable_params(a, spec(8, "all-linear"));
  EXPECT_EQ(linear, 3981312);
  const std::int64_t experts = lora_trainable_params(a, spec(8, "gate_up_proj,down_proj"));
  EXPECT_EQ(experts, 3686400LL * 24);
  EXPECT_EQ(linear + experts / 24 * 3, 15040512);
  EXPECT_EQ(count_params(a).total + 15040512, 20929797696);
  // The aliases name nn.Linear modules: "gate" finds none here.
  EXPECT_THROW((void)lora_trainable_params(a, spec(8, "gate")), InvalidRequest);
}

TEST(Lora, PhiNamesItsOutputDense) {
  // microsoft/phi-2: q/k/v_proj and dense (2560 -> 2560, biased), fc1/fc2. PEFT's usual Phi-2
  // targets q_proj, k_proj, v_proj, dense at r 16: 16 x (2 x 2560) x 4 x 32 = 10,485,760.
  const ModelArchitecture a = fixture("phi-2.json");
  EXPECT_EQ(lora_trainable_params(a, spec(16, "q_proj,k_proj,v_proj,dense")), 10485760);
  EXPECT_EQ(lora_trainable_params(a, spec(16, "q,k,v,o")), 10485760);
  // fc1 / fc2 answer to up / down; "gate" finds nothing in a non-gated MLP.
  EXPECT_EQ(lora_trainable_params(a, spec(8, "up,down")), 8LL * 2 * (2560 + 10240) * 32);
  EXPECT_THROW((void)lora_trainable_params(a, spec(8, "gate")), InvalidRequest);
}

TEST(Lora, FalconsFusedQkvMatchesPeftsPrintout) {
  // tiiuae/falcon-7b in 4 bits, LoRA r 16 on query_key_value (4,544 -> 4,672): PEFT printed
  // "4,718,592 out of 3,613,463,424 total parameters", bitsandbytes' packed linears counting
  // half their elements: 32 layers x (4,544 x 4,672 + 4,544^2 + 2 x 4,544 x 18,176) linear
  // weights at half, the embedding and LayerNorms whole, plus the adapters.
  const ModelArchitecture a = fixture("falcon-7b.json");
  const std::int64_t adapters = lora_trainable_params(a, spec(16, "query_key_value"));
  EXPECT_EQ(adapters, 16LL * (4544 + 4672) * 32);
  EXPECT_EQ(adapters, 4718592);
  const std::int64_t linears = 32LL * (4544 * 4672 + 4544 * 4544 + 2 * 4544 * 18176);
  EXPECT_EQ(count_params(a).total - linears / 2 + adapters, 3613463424);
  EXPECT_EQ(lora_trainable_params(a, spec(16, "q,k,v")), adapters);
}

// PEFT's modules_to_save (axolotl's lora_modules_to_save: [embed_tokens, lm_head], its Llama 3
// LoRA example): a trained copy of each module beside the frozen original. On Meta-Llama-3-8B
// (vocabulary 128256, hidden 4096, untied) each is 525,336,576 parameters, so with rank-16
// adapters on every projection (41,943,040, above) PEFT's trainable count is 1,092,616,192.
TEST(Lora, ModulesToSaveTrainACopyOfTheEmbeddingAndTheHead) {
  const ModelArchitecture a = fixture("meta-llama-3-8b.json");
  LoraSpec s = spec(16, "q,k,v,o,gate,up,down");
  s.modules_to_save = {"embed_tokens", "lm_head"};
  EXPECT_EQ(modules_to_save_params(a, s), 2 * 128256LL * 4096);
  EXPECT_EQ(lora_trainable_params(a, s), 41943040 + 2 * 128256LL * 4096);
  EXPECT_TRUE(saves_head(s));
  // One module named twice (a reward model's score added beside lm_head) trains once.
  s.modules_to_save = {"lm_head", "score"};
  EXPECT_EQ(modules_to_save_params(a, s), 128256LL * 4096);
  s.modules_to_save = {"embed_tokens"};
  EXPECT_FALSE(saves_head(s));
  s.modules_to_save = {"norm"};
  try {
    (void)lora_trainable_params(a, s);
    ADD_FAILURE() << "'norm' was accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string{e.what()}.find("lora_modules_to_save"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tb
