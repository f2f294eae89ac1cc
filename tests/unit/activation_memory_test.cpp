// Activation memory against Korthikanti et al. 2022 (eq. 1, Table 2, sec. 4.3) and against
// hand-derived counts for GQA, MoE, MLA, q/k norms and adapters.
#include "trainbudget/eval/activation_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"

namespace tb {
namespace {

using testing_models::config;
using testing_models::gpt3_175b;

// The paper's assumptions: 16-bit activations, dropout (1-byte masks), no fused attention,
// statistics of the norms not counted.
TrainingSetup paper_setup(std::int64_t b, std::int64_t s) {
  TrainingSetup setup;
  setup.micro_batch = b;
  setup.seq_len = s;
  setup.attention = AttentionImpl::kEager;
  setup.dropout = 0.1;
  return setup;
}

const ActivationOptions kPaper{.norm_statistics = false, .adapters = {}, .lora = {}};

double module_bytes(const std::vector<ActivationTerm>& terms, const std::string& module) {
  double sum = 0.0;
  for (const ActivationTerm& t : terms) {
    if (t.module == module) sum += t.bytes().value();
  }
  return sum;
}

bool has(const std::vector<ActivationTerm>& terms, const std::string& name) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const ActivationTerm& t) { return t.name == name; });
}

// The term called `name`; throws (failing the test) when there is none.
const ActivationTerm& find(const std::vector<ActivationTerm>& terms, const std::string& name) {
  for (const ActivationTerm& t : terms) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("no activation term " + name);
}

TEST(ActivationMemory, ReproducesKorthikantiEquationOneExactly) {
  // Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
  // (arXiv:2205.05198), eq. 1: activations per layer = sbh(34 + 5as/h) bytes.
  for (auto [b, s] : {std::pair<std::int64_t, std::int64_t>{1, 2048}, {4, 2048}, {2, 512}}) {
    const ModelArchitecture arch = gpt3_175b();
    const double sd = static_cast<double>(s), bd = static_cast<double>(b);
    const double h = 12288.0, a = 96.0;
    const std::vector<ActivationTerm> terms =
        decoder_layer_activation_terms(arch, paper_setup(b, s), DType::kBf16, false, kPaper);
    EXPECT_DOUBLE_EQ(total_bytes(terms).value(), sd * bd * h * (34.0 + 5.0 * a * sd / h));
    // Sec. 4.1's split: attention 11sbh + 5as^2b, MLP 19sbh, the two LayerNorms 4sbh.
    EXPECT_DOUBLE_EQ(module_bytes(terms, "attention"), 11.0 * sd * bd * h + 5.0 * a * sd * sd * bd);
    EXPECT_DOUBLE_EQ(module_bytes(terms, "mlp"), 19.0 * sd * bd * h);
    EXPECT_DOUBLE_EQ(module_bytes(terms, "norms"), 4.0 * sd * bd * h);
  }
}

TEST(ActivationMemory, Gpt3PerLayerFigureAndRecomputeReductions) {
  // GPT-3 175B, s = 2048, b = 1: sbh(34 + 5as/h) = 25,165,824 x 114 = 2,868,903,936 bytes.
  const ModelArchitecture arch = gpt3_175b();
  TrainingSetup setup = paper_setup(1, 2048);
  const ActivationEstimate none = estimate_activations(arch, setup, DType::kBf16, kPaper);
  ASSERT_EQ(none.layer_kinds.size(), 1U);
  EXPECT_DOUBLE_EQ(none.layer_kinds[0].per_layer.value(), 2868903936.0);
  EXPECT_EQ(none.layer_kinds[0].layers, 96);
  // Table 2: selective recomputation keeps 34sbh per layer; the 5as^2b it drops (70 % of the
  // layer for GPT-3, sec. 5) exists again only during that layer's backward.
  setup.recompute = Recompute::kSelective;
  const ActivationEstimate selective = estimate_activations(arch, setup, DType::kBf16, kPaper);
  EXPECT_DOUBLE_EQ(selective.layer_kinds[0].per_layer.value(), 34.0 * 2048 * 12288);
  EXPECT_DOUBLE_EQ(selective.layer_kinds[0].recompute_transient.value(),
                   5.0 * 96 * 2048.0 * 2048.0);
  EXPECT_NEAR(1.0 - selective.layer_kinds[0].per_layer / none.layer_kinds[0].per_layer, 0.70,
              0.005);
  // Table 2: full recomputation keeps 2sbh per layer.
  setup.recompute = Recompute::kFull;
  const ActivationEstimate full = estimate_activations(arch, setup, DType::kBf16, kPaper);
  EXPECT_DOUBLE_EQ(full.layer_kinds[0].per_layer.value(), 2.0 * 2048 * 12288);
  EXPECT_DOUBLE_EQ(full.layer_kinds[0].recompute_transient.value(), 2868903936.0);
  EXPECT_DOUBLE_EQ(full.layers_total.value(), 96 * 2.0 * 2048 * 12288);
}

TEST(ActivationMemory, HeadTermsMatchKorthikantiSection43) {
  // Sec. 4.3 (p = t = 1): embedding dropout sbh, final LayerNorm 2sbh, output projection 2sbh,
  // fp32 cross-entropy logits 4sbv; the last three are 4sbh(1 + v/h). We also keep the 16-bit
  // logits (the model's returned output) and the int64 token ids, which the paper leaves out.
  const ModelArchitecture arch = gpt3_175b();
  const std::vector<ActivationTerm> head =
      head_activation_terms(arch, paper_setup(1, 2048), DType::kBf16, kPaper);
  const double s = 2048, h = 12288, v = 51200;
  EXPECT_DOUBLE_EQ(find(head, "embedding_dropout_mask").bytes().value(), s * h);
  EXPECT_DOUBLE_EQ(find(head, "final_norm_input").bytes().value() +
                       find(head, "lm_head_input").bytes().value() +
                       find(head, "loss_buffer").bytes().value(),
                   4.0 * s * h * (1.0 + v / h));
  EXPECT_DOUBLE_EQ(find(head, "logits").bytes().value(), 2.0 * s * v);
  EXPECT_DOUBLE_EQ(find(head, "token_ids").bytes().value(), 8.0 * s);
}

TEST(ActivationMemory, NormStatisticsAddFp32PerToken) {
  // Each LayerNorm keeps fp32 mean and rstd per token: 2 norms x 8 bytes x b*s per layer.
  const ModelArchitecture arch = gpt3_175b();
  const TrainingSetup setup = paper_setup(2, 1024);
  const Bytes without =
      total_bytes(decoder_layer_activation_terms(arch, setup, DType::kBf16, false, kPaper));
  const Bytes with = total_bytes(decoder_layer_activation_terms(arch, setup, DType::kBf16, false));
  EXPECT_DOUBLE_EQ((with - without).value(), 2.0 * 8.0 * 2 * 1024);
}

TEST(ActivationMemory, Llama2FlashLayerHandDerived) {
  // Llama-2-7B, flash attention, no dropout, bf16, b = 1, s = 4096 (h = 4096, a = 32,
  // i = 11008). Norms: 2 inputs x 2sbh + 2 x 4sb (RMS rstd). Attention: q/k/v input, q, k, v,
  // output = 5 x 2sbh, logsumexp 4as. MLP: input 2sbh, 4 x 2sbi.
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  TrainingSetup setup;
  setup.seq_len = 4096;
  const std::vector<ActivationTerm> t =
      decoder_layer_activation_terms(arch, setup, DType::kBf16, false);
  const double s = 4096, h = 4096, a = 32, i = 11008;
  EXPECT_DOUBLE_EQ(module_bytes(t, "norms"), 4.0 * s * h + 8.0 * s);
  EXPECT_DOUBLE_EQ(module_bytes(t, "attention"), 10.0 * s * h + 4.0 * a * s);
  EXPECT_DOUBLE_EQ(module_bytes(t, "mlp"), 2.0 * s * h + 8.0 * s * i);
  for (const ActivationTerm& term : t) EXPECT_NE(term.bytes_per_element, 1.0) << term.name;
  // Eager attention replaces the logsumexp by the softmax output 2as^2.
  setup.attention = AttentionImpl::kEager;
  const std::vector<ActivationTerm> eager =
      decoder_layer_activation_terms(arch, setup, DType::kBf16, false);
  EXPECT_DOUBLE_EQ(module_bytes(eager, "attention"), 10.0 * s * h + 2.0 * a * s * s);
  // fp32 activations double every activation-dtype tensor; statistics stay fp32.
  setup.attention = AttentionImpl::kFlash;
  const std::vector<ActivationTerm> fp32 =
      decoder_layer_activation_terms(arch, setup, DType::kFp32, false);
  EXPECT_DOUBLE_EQ(module_bytes(fp32, "mlp"), 2.0 * module_bytes(t, "mlp"));
  EXPECT_DOUBLE_EQ(module_bytes(fp32, "norms"), 8.0 * s * h + 8.0 * s);
}

TEST(ActivationMemory, GroupedKeysAreExpandedOnlyByEagerAttention) {
  // Llama-3-8B: 32 query heads, 8 key/value heads of 128.
  const ModelArchitecture arch = config("meta-llama-3-8b.json");
  TrainingSetup setup;
  setup.seq_len = 1024;
  const auto flash = decoder_layer_activation_terms(arch, setup, DType::kBf16, false);
  EXPECT_DOUBLE_EQ(find(flash, "key").bytes().value(), 1024.0 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(find(flash, "value").bytes().value(), 1024.0 * 8 * 128 * 2);
  setup.attention = AttentionImpl::kEager;
  const auto eager = decoder_layer_activation_terms(arch, setup, DType::kBf16, false);
  EXPECT_DOUBLE_EQ(find(eager, "key").bytes().value(), 1024.0 * 32 * 128 * 2);
  EXPECT_EQ(find(eager, "key").formula, "b*s*a*d*e");
}

TEST(ActivationMemory, MixtralRoutesEachTokenThroughTopKExperts) {
  // Mixtral 8x7B: E = 8, k = 2, i_e = 14336, h = 4096. Per token of an MoE layer: router input
  // h, logits E (bf16) and fp32 scores E, then for each of the k experts its gathered input h,
  // four i_e-wide tensors and its output h.
  const ModelArchitecture arch = config("mixtral-8x7b-v0.1.json");
  TrainingSetup setup;
  setup.seq_len = 1;
  const auto t = decoder_layer_activation_terms(arch, setup, DType::kBf16, true);
  const double h = 4096, E = 8, k = 2, i_e = 14336;
  EXPECT_DOUBLE_EQ(module_bytes(t, "moe"), 2 * h + 2 * E + 4 * E + k * (2 * (2 * h) + 4 * 2 * i_e));
  const ActivationEstimate est = estimate_activations(arch, setup, DType::kBf16);
  ASSERT_EQ(est.layer_kinds.size(), 1U);
  EXPECT_TRUE(est.layer_kinds[0].moe);
  EXPECT_EQ(est.layer_kinds[0].layers, 32);
}

TEST(ActivationMemory, MegatronExpertsWeighTokensInTheActivation) {
  // Megatron-Core's TEGroupedMLP (core_v0.15.0) applies the routing weight inside
  // weighted_bias_swiglu_impl, which saves its input [gate|up] and the fp32 weights: per routed
  // token the experts keep their input h, gate and up (2 i_e) and down's input i_e, plus one fp32
  // weight; no act(gate) and no expert output. The dense MLP's bias_swiglu_impl keeps no
  // act(gate) either.
  const ModelArchitecture arch = config("mixtral-8x7b-v0.1.json");
  TrainingSetup setup;
  setup.seq_len = 1;
  setup.framework = Framework::kMegatron;
  const auto t = decoder_layer_activation_terms(arch, setup, DType::kBf16, true);
  const double h = 4096, E = 8, k = 2, i_e = 14336;
  EXPECT_DOUBLE_EQ(module_bytes(t, "moe"), 2 * h + 2 * E + 4 * E + k * (2 * h + 3 * 2 * i_e + 4));
  EXPECT_FALSE(has(t, "expert_outputs"));
  EXPECT_FALSE(has(t, "expert_act_output"));
  const auto dense =
      decoder_layer_activation_terms(config("llama-2-7b-hf.json"), setup, DType::kBf16, false);
  EXPECT_FALSE(has(dense, "act_output"));
  EXPECT_TRUE(has(dense, "down_input"));
}

TEST(ActivationMemory, DeepSeekV3KeepsLatentsAndExpandedHeads) {
  // DeepSeek-V3: 3 dense layers then 58 MoE layers; MLA with r_q = 1536, r_kv = 512, 128 heads
  // of 128 + 64 (query/key) and 128 (value); one shared expert of 2048, 8 of 256 routed.
  const ModelArchitecture arch = config("deepseek-v3.json");
  TrainingSetup setup;
  setup.seq_len = 1;
  const auto t = decoder_layer_activation_terms(arch, setup, DType::kBf16, true);
  EXPECT_DOUBLE_EQ(find(t, "q_latent_norm_input").bytes().value(), 1536.0 * 2);
  EXPECT_DOUBLE_EQ(find(t, "q_latent_up_input").bytes().value(), 1536.0 * 2);
  EXPECT_DOUBLE_EQ(find(t, "kv_latent_up_input").bytes().value(), 512.0 * 2);
  EXPECT_DOUBLE_EQ(find(t, "query").bytes().value(), 128.0 * 192 * 2);
  EXPECT_DOUBLE_EQ(find(t, "key").bytes().value(), 128.0 * 192 * 2);
  EXPECT_DOUBLE_EQ(find(t, "value").bytes().value(), 128.0 * 128 * 2);
  EXPECT_DOUBLE_EQ(find(t, "output_proj_input").bytes().value(), 128.0 * 128 * 2);
  EXPECT_DOUBLE_EQ(find(t, "shared_gate_output").bytes().value(), 2048.0 * 2);
  EXPECT_DOUBLE_EQ(find(t, "expert_down_input").bytes().value(), 8.0 * 2048 * 2);
  const ActivationEstimate est = estimate_activations(arch, setup, DType::kBf16);
  ASSERT_EQ(est.layer_kinds.size(), 2U);
  EXPECT_FALSE(est.layer_kinds[0].moe);
  EXPECT_EQ(est.layer_kinds[0].layers, 3);
  EXPECT_EQ(est.layer_kinds[1].layers, 58);
  EXPECT_FALSE(has(est.layer_kinds[0].terms, "router_logits"));
  EXPECT_DOUBLE_EQ(find(est.layer_kinds[0].terms, "down_input").bytes().value(), 18432.0 * 2);
}

TEST(ActivationMemory, QkNormsAndGemmaPostNormsAreCounted) {
  const auto qwen3 =
      decoder_layer_activation_terms(config("qwen3-8b.json"), TrainingSetup{}, DType::kBf16, false);
  // Qwen3-8B: 32 query + 8 key heads of 128.
  EXPECT_DOUBLE_EQ(find(qwen3, "qk_norm_input").bytes().value(), 2048.0 * 40 * 128 * 2);
  const auto gemma2 = decoder_layer_activation_terms(config("gemma-2-9b.json"), TrainingSetup{},
                                                     DType::kBf16, false);
  EXPECT_TRUE(has(gemma2, "post_attention_norm_input"));
  EXPECT_TRUE(has(gemma2, "post_mlp_norm_input"));
  const auto llama = decoder_layer_activation_terms(config("llama-2-7b-hf.json"), TrainingSetup{},
                                                    DType::kBf16, false);
  EXPECT_FALSE(has(llama, "post_mlp_norm_input"));
  EXPECT_FALSE(has(llama, "qk_norm_input"));
}

// A parallel block from one LayerNorm (Falcon-7B, modeling_falcon.py: attention and MLP both
// read ln_attn's output): one norm's input and statistics, and the MLP's input is the q/k/v
// projections' tensor, kept once. Against the same model read as two norms: per layer, the
// second norm's input (h x 2 B), its mean and rstd (2 x 4 B) and the MLP's input (h x 2 B) a
// token, 2048 tokens: 2048 x (4544 x 4 + 8) bytes fewer.
TEST(ActivationMemory, AParallelBlockFromOneNormSavesItsInputOnce) {
  const ModelArchitecture falcon = config("falcon-7b.json");
  ModelArchitecture two = falcon;
  two.norms_per_layer = 2;
  const auto one_norm =
      decoder_layer_activation_terms(falcon, TrainingSetup{}, DType::kBf16, false);
  const auto two_norms = decoder_layer_activation_terms(two, TrainingSetup{}, DType::kBf16, false);
  EXPECT_FALSE(has(one_norm, "mlp_norm_input"));
  EXPECT_FALSE(has(one_norm, "mlp_input"));
  EXPECT_TRUE(has(one_norm, "qkv_input"));
  EXPECT_TRUE(has(two_norms, "mlp_input"));
  double a = 0.0, b = 0.0;
  for (const ActivationTerm& t : one_norm) a += t.bytes().value();
  for (const ActivationTerm& t : two_norms) b += t.bytes().value();
  EXPECT_DOUBLE_EQ(b - a, 2048.0 * (4544.0 * 4.0 + 8.0));
}

TEST(ActivationMemory, ScalesWithBatchLinearlyAndEagerWithSequenceQuadratically) {
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  TrainingSetup one;
  one.seq_len = 1024;
  TrainingSetup two = one;
  two.micro_batch = 2;
  EXPECT_DOUBLE_EQ(estimate_activations(arch, two, DType::kBf16).saved.value(),
                   2.0 * estimate_activations(arch, one, DType::kBf16).saved.value());
  one.attention = AttentionImpl::kEager;
  TrainingSetup longer = one;
  longer.seq_len = 2048;
  const auto short_terms = decoder_layer_activation_terms(arch, one, DType::kBf16, false);
  const auto long_terms = decoder_layer_activation_terms(arch, longer, DType::kBf16, false);
  EXPECT_DOUBLE_EQ(find(long_terms, "softmax_output").bytes().value(),
                   4.0 * find(short_terms, "softmax_output").bytes().value());
}

TEST(ActivationMemory, AdaptersKeepTheirRankIntermediatePerToken) {
  // LoRA r = 8 on q and v of every Llama-2-7B layer: 64 adapters, 8 values per token each.
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  ActivationOptions options;
  options.adapters = {{4096, 4096, 8, 64}};
  TrainingSetup setup;
  const auto t = decoder_layer_activation_terms(arch, setup, DType::kBf16, false, options);
  EXPECT_DOUBLE_EQ(find(t, "adapter_intermediate").bytes().value(), 2048.0 * 8 * 64 / 32 * 2);
  EXPECT_EQ(find(t, "adapter_intermediate").module, "adapters");
}

TEST(ActivationMemory, EstimateSumsLayersAndHeadAndWorkspaceHoldsTheLargestGradient) {
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  TrainingSetup setup;
  setup.attention = AttentionImpl::kEager;
  const ActivationEstimate est = estimate_activations(arch, setup, DType::kBf16);
  const auto layer = decoder_layer_activation_terms(arch, setup, DType::kBf16, false);
  EXPECT_DOUBLE_EQ(est.layers_total.value(), 32.0 * total_bytes(layer).value());
  EXPECT_DOUBLE_EQ(est.saved.value(), (est.layers_total + est.head_total).value());
  EXPECT_DOUBLE_EQ(est.logits_gradient.value(), 2048.0 * 32000 * 4);
  // Eager: the largest saved tensor is the 2as^2 softmax output.
  EXPECT_DOUBLE_EQ(est.layer_kinds[0].backward_workspace.value(),
                   2.0 * 2048 * 4096 * 2 + 32.0 * 2048 * 2048 * 2);
  EXPECT_EQ(est.layer_kinds[0].recompute_transient.value(), 0.0);
}

}  // namespace
}  // namespace tb
