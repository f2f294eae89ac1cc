// FLOPs per token from the architecture against the closed forms of Megatron-LM (Narayanan et
// al. 2021; Korthikanti et al. 2022, App. A) and PaLM (Chowdhery et al. 2022, App. B).
#include "trainbudget/eval/arch_flops.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

using testing_models::config;
using testing_models::gpt3_175b;

bool has(const ArchFlops& f, const std::string& name) {
  return std::any_of(f.terms.begin(), f.terms.end(),
                     [&](const FlopsTerm& t) { return t.name == name; });
}

// The term called `name`; throws (failing the test) when there is none.
const FlopsTerm& term(const ArchFlops& f, const std::string& name) {
  for (const FlopsTerm& t : f.terms) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("no FLOPs term " + name);
}

TEST(ArchFlops, ModelFlopsEqualKorthikantiAppendixA) {
  // Korthikanti et al. 2022, App. A: model FLOPs per iteration 72BLsh^2(1 + s/6h + V/12hL),
  // i.e. per token 72Lh^2(1 + s/6h + V/12hL).
  const double L = 96, h = 12288, s = 2048, V = 51200;
  FlopsSetup setup;
  setup.attention = AttentionImpl::kEager;
  const ArchFlops f = full_training_flops(gpt3_175b(), setup);
  const double expected = 72.0 * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * L));
  EXPECT_NEAR(f.model_per_token / expected, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(f.hardware_per_token, f.model_per_token);
}

TEST(ArchFlops, FullRecomputeHardwareFlopsEqualNarayananSection51) {
  // Narayanan et al. 2021, sec. 5.1: with activation recomputation F = 96BsLh^2(1 + s/6h +
  // V/16Lh) per iteration (decoder layers run forward twice, the LM head once).
  const double L = 96, h = 12288, s = 2048, V = 51200;
  FlopsSetup setup;
  setup.attention = AttentionImpl::kEager;
  setup.recompute = Recompute::kFull;
  const ArchFlops f = full_training_flops(gpt3_175b(), setup);
  const double expected = 96.0 * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
  EXPECT_NEAR(f.hardware_per_token / expected, 1.0, 1e-12);
  // MFU FLOPs do not count the recomputation.
  EXPECT_NEAR(f.model_per_token / (72.0 * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * L))),
              1.0, 1e-12);
}

TEST(ArchFlops, SelectiveRecomputeAddsOneForwardOfTheAttentionProducts) {
  const double L = 96, h = 12288, s = 2048;
  FlopsSetup setup;
  setup.attention = AttentionImpl::kEager;
  setup.recompute = Recompute::kSelective;
  const ArchFlops f = full_training_flops(gpt3_175b(), setup);
  // QK^T and AV forward: 2 x 2 x s x h per token and layer.
  EXPECT_NEAR(f.hardware_per_token - f.model_per_token, 4.0 * s * h * L, 1.0);
  // FlashAttention's backward recomputes QK^T: half of the products' forward again.
  setup.attention = AttentionImpl::kFlash;
  setup.recompute = Recompute::kNone;
  const ArchFlops flash = full_training_flops(gpt3_175b(), setup);
  EXPECT_NEAR(flash.hardware_per_token - flash.model_per_token, 2.0 * s * h * L, 1.0);
}

TEST(ArchFlops, Llama2AttentionTermMatchesPalmAppendixB) {
  // Chowdhery et al. 2022 (PaLM), App. B: training FLOPs per token 6N + 12LHQT with L layers,
  // H heads, Q head dimension, T sequence length. Llama-2-7B, T = 4096.
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  FlopsSetup setup;
  setup.seq_len = 4096;
  const ArchFlops f = full_training_flops(arch, setup);
  const double attention = 12.0 * 32 * 32 * 128 * 4096;
  EXPECT_DOUBLE_EQ(term(f, "attention_scores").model, attention);
  const double n = static_cast<double>(count_params(arch).total);
  EXPECT_DOUBLE_EQ(f.reference_6n, 6.0 * n);
  // The rest differs from 6N by the input embedding (a lookup, no FLOPs; PaLM's 6N counts it)
  // and the norm weights: 6 x (32000 x 4096 + 65 x 4096) / (6N + 12LHQT) = 1.68 %. Stated
  // tolerance 2 %.
  const double palm = 6.0 * n + attention;
  EXPECT_NEAR(f.model_per_token / palm, 1.0, 0.02);
  EXPECT_LT(f.model_per_token, palm);
  EXPECT_DOUBLE_EQ(palm - f.model_per_token, 6.0 * (32000.0 * 4096 + 65.0 * 4096));
}

TEST(ArchFlops, CausalCountHalvesTheProducts) {
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  FlopsSetup full;
  full.seq_len = 4096;
  FlopsSetup causal = full;
  causal.causal = true;
  EXPECT_DOUBLE_EQ(
      term(full_training_flops(arch, causal), "attention_scores").forward,
      term(full_training_flops(arch, full), "attention_scores").forward * 4097.0 / (2.0 * 4096.0));
}

TEST(ArchFlops, SlidingWindowLayersSeeAtMostTheWindow) {
  // Mistral 7B v0.1: every layer slides over 4096 tokens; at s = 8192 each query sees 4096
  // keys (full count), or causally (4096 x 4097 / 2 + 4096 x 4096) / 8192 on average.
  const ModelArchitecture mistral = config("mistral-7b-v0.1.json");
  FlopsSetup setup;
  setup.seq_len = 8192;
  EXPECT_DOUBLE_EQ(term(full_training_flops(mistral, setup), "attention_scores").forward,
                   2.0 * 32 * 4096 * 256 * 32);
  setup.causal = true;
  const double keys = (4096.0 * 4097 / 2 + 4096.0 * 4096) / 8192;
  EXPECT_DOUBLE_EQ(term(full_training_flops(mistral, setup), "attention_scores").forward,
                   2.0 * 32 * keys * 256 * 32);
  // Below the window nothing changes.
  setup.seq_len = 2048;
  setup.causal = false;
  EXPECT_DOUBLE_EQ(term(full_training_flops(mistral, setup), "attention_scores").forward,
                   2.0 * 32 * 2048 * 256 * 32);
}

TEST(ArchFlops, MixtralCountsTheActiveExpertsOnly) {
  // 2 of 8 experts per token, three 4096 x 14336 matrices each, 32 layers.
  const ModelArchitecture arch = config("mixtral-8x7b-v0.1.json");
  const ArchFlops f = full_training_flops(arch, FlopsSetup{});
  EXPECT_DOUBLE_EQ(term(f, "routed_experts").forward, 2.0 * 2 * 3 * 4096.0 * 14336 * 32);
  EXPECT_DOUBLE_EQ(term(f, "router").forward, 2.0 * 4096 * 8 * 32);
  EXPECT_DOUBLE_EQ(f.reference_6n, 6.0 * static_cast<double>(count_params(arch).active));
  EXPECT_FALSE(has(f, "mlp"));
}

TEST(ArchFlops, LoraFrozenBaseCostsFourPerWeightAndAdaptersSix) {
  // Llama-2-7B with r = 8 on q_proj and v_proj: 64 adapters of 8 x (4096 + 4096).
  const ModelArchitecture arch = config("llama-2-7b-hf.json");
  const std::vector<AdapterShape> adapters{{4096, 4096, 8, 64}};
  const ArchFlops lora = adapter_training_flops(arch, FlopsSetup{}, adapters);
  const ArchFlops full = full_training_flops(arch, FlopsSetup{});
  EXPECT_DOUBLE_EQ(term(lora, "mlp").model, 4.0 * 3 * 4096.0 * 11008 * 32);
  EXPECT_DOUBLE_EQ(term(full, "mlp").model, 6.0 * 3 * 4096.0 * 11008 * 32);
  EXPECT_DOUBLE_EQ(term(lora, "lm_head").model, 4.0 * 4096 * 32000);
  EXPECT_DOUBLE_EQ(term(lora, "attention_scores").model, term(full, "attention_scores").model);
  EXPECT_DOUBLE_EQ(term(lora, "adapters").model, 6.0 * 4194304);
  EXPECT_EQ(lora.reference_6n, full.reference_6n);
}

TEST(ArchFlops, DeepSeekMlaUsesItsOwnHeadDimensions) {
  // 128 heads, q/k head 128 + 64, v head 128, 61 layers.
  const ModelArchitecture arch = config("deepseek-v3.json");
  FlopsSetup setup;
  setup.seq_len = 4096;
  const ArchFlops f = full_training_flops(arch, setup);
  EXPECT_DOUBLE_EQ(term(f, "attention_scores").forward, 2.0 * 128 * 4096 * (192 + 128) * 61);
  EXPECT_TRUE(has(f, "shared_experts"));
}

}  // namespace
}  // namespace tb
