// The inference budget: KV bytes checked by hand for four attention kinds, GGUF sizes against
// llama.cpp's own figures, the decode and prefill arithmetic, and the problems bad input gets.
#include "trainbudget/eval/inference.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_models.hpp"
#include "trainbudget/model/kv_cache.hpp"
#include "trainbudget/model/weight_storage.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/parse_named.hpp"

namespace tb {
namespace {

using testing_models::config;

// Llama 3 8B (and 3.1 8B, same shape): 32 layers x 2 (K, V) x 8 KV heads x head 128 x 2 bytes.
TEST(KvCache, Llama3GqaIsOneHundredTwentyEightKibPerToken) {
  const ModelArchitecture a = config("meta-llama-3-8b.json");
  EXPECT_EQ(kv_values_per_token_layer(a), 2 * 8 * 128);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 32.0 * 2 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 131072.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kFp8).value(), 65536.0);
  // llama.cpp's q8_0 cache: 34 bytes per 32 values.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kQ8_0).value(), 32.0 * 2048 * 34 / 32);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, KvDtype::kBf16, 8192).value(), 131072.0 * 8192);
}

// Mistral 7B v0.1: the same 128 KiB per token, but every layer slides over 4096 tokens, so a
// 32768-token sequence keeps 4096 of them: 512 MiB, not 4 GiB.
TEST(KvCache, MistralSlidingWindowCapsTheSequenceAtTheWindow) {
  const ModelArchitecture a = config("mistral-7b-v0.1.json");
  ASSERT_EQ(a.attention.sliding_window, 4096);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 131072.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, KvDtype::kBf16, 32768).value(), 131072.0 * 4096);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, KvDtype::kBf16, 1000).value(), 131072.0 * 1000);
}

// DeepSeek-V3 MLA: the latent (kv_lora_rank 512) and the rope key (64) per layer, 61 layers,
// no separate value: 61 x 576 x 2 = 70,272 bytes, against 61 x 2 x 128 x 192 x 2 = 5.9 MB that
// the decompressed 128 heads would take.
TEST(KvCache, DeepSeekV3MlaCachesTheLatent) {
  const ModelArchitecture a = config("deepseek-v3.json");
  EXPECT_EQ(kv_values_per_token_layer(a), 576);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 70272.0);
  EXPECT_DOUBLE_EQ(kv_share_per_rank(a, 8), 1.0);  // replicated over tensor-parallel ranks
}

// Gemma 2 9B: 42 layers, 8 KV heads of 256, every other layer slides over 4096 tokens. Per token
// 42 x 2 x 8 x 256 x 2 = 344,064 bytes; at 8192 tokens the 21 global layers hold 8192 and the
// 21 local ones 4096: 21 x 12288 x 8192 bytes.
TEST(KvCache, Gemma2AlternatesLocalAndGlobalLayers) {
  const ModelArchitecture a = config("gemma-2-9b.json");
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, KvDtype::kBf16).value(), 344064.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, KvDtype::kBf16, 8192).value(),
                   21.0 * (8192 + 4096) * 8192.0);
}

TEST(KvCache, TensorParallelSplitsKvHeadsUntilOnePerRank) {
  const ModelArchitecture a = config("meta-llama-3-8b.json");
  EXPECT_DOUBLE_EQ(kv_share_per_rank(a, 4), 0.25);
  EXPECT_DOUBLE_EQ(kv_share_per_rank(a, 16), 1.0 / 8.0);  // vLLM replicates: one head per rank
}

// llama-quant.cpp's use_more_bits: of 32 layers, 0-3, 28-31 and 6, 9, ..., 27 (every third
// from the fourth): 16.
TEST(WeightStorage, GgufMoreBitsLayers) {
  int n = 0;
  for (int i = 0; i < 32; ++i) n += gguf_more_bits(i, 32) ? 1 : 0;
  EXPECT_EQ(n, 16);
  EXPECT_TRUE(gguf_more_bits(6, 32));
  EXPECT_FALSE(gguf_more_bits(7, 32));
}

// File sizes llama.cpp prints: llama-bench for LLaMA-2 7B (discussion #4167, build 8e672ef):
// F16 12.55 GiB, Q8_0 6.67 GiB, Q4_0 3.56 GiB; the quantize tool's help text
// (tools/quantize/quantize.cpp) for LLaMA-v1-7B (same shapes): Q4_K_M 3.80G, Q5_K_M 4.45G,
// Q6_K 5.15G, and for Llama-3-8B: Q4_0 4.34G, Q4_K_M 4.58G, Q5_K_M 5.33G, Q6_K 6.14G,
// Q8_0 7.96G. Rounded to 0.01 GiB: each within 0.01 GiB.
TEST(WeightStorage, GgufSizesMatchLlamaCpp) {
  const ModelArchitecture l2 = config("llama-2-7b-hf.json");
  const ModelArchitecture l3 = config("meta-llama-3-8b.json");
  const auto gib = [](const ModelArchitecture& a, WeightFormat f) {
    return weight_storage(a, f).total.value() / (1024.0 * 1024.0 * 1024.0);
  };
  EXPECT_NEAR(gib(l2, WeightFormat::kFp16), 12.55, 0.01);
  EXPECT_NEAR(gib(l2, WeightFormat::kGgufQ8_0), 6.67, 0.01);
  EXPECT_NEAR(gib(l2, WeightFormat::kGgufQ4_0), 3.56, 0.01);
  EXPECT_NEAR(gib(l2, WeightFormat::kGgufQ4_K_M), 3.80, 0.01);
  EXPECT_NEAR(gib(l2, WeightFormat::kGgufQ5_K_M), 4.45, 0.01);
  EXPECT_NEAR(gib(l2, WeightFormat::kGgufQ6_K), 5.15, 0.01);
  EXPECT_NEAR(gib(l3, WeightFormat::kGgufQ4_0), 4.34, 0.01);
  EXPECT_NEAR(gib(l3, WeightFormat::kGgufQ4_K_M), 4.58, 0.01);
  EXPECT_NEAR(gib(l3, WeightFormat::kGgufQ5_K_M), 5.33, 0.01);
  EXPECT_NEAR(gib(l3, WeightFormat::kGgufQ6_K), 6.14, 0.01);
  EXPECT_NEAR(gib(l3, WeightFormat::kGgufQ8_0), 7.96, 0.02);
}

// Hand-derived: Q4_0 LLaMA-2 7B stores the 32 x (4 x 4096^2 + 3 x 4096 x 11008) decoder weights
// at 4.5 bits, the 32000 x 4096 token table at Q4_0, output.weight at Q6_K (6.5625 bits) and
// 65 norms of 4096 in F32; a decode step reads all but the token table.
TEST(WeightStorage, Q4_0ByHand) {
  const ModelArchitecture a = config("llama-2-7b-hf.json");
  const double decoder = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
  const double table = 32000.0 * 4096;
  const double expected =
      decoder * 4.5 / 8 + table * 4.5 / 8 + table * 6.5625 / 8 + 65.0 * 4096 * 4;
  const WeightStorage w = weight_storage(a, WeightFormat::kGgufQ4_0);
  EXPECT_DOUBLE_EQ(w.total.value(), expected);
  EXPECT_DOUBLE_EQ(w.always_read.value(), expected - table * 4.5 / 8);
}

// AutoGPTQ 4-bit, group 128: per linear in x out/2 bytes of codes, (in/128) x out x 2.5 bytes
// of fp16 scales and 4-bit zeros, 4 x in bytes of g_idx; embeddings and head stay bf16.
TEST(WeightStorage, GptqGroupsByHand) {
  const ModelArchitecture a = config("llama-2-7b-hf.json");
  const auto linear = [](double in, double out) {
    return in * out / 2 + (in / 128) * out * 2.5 + 4 * in;
  };
  const double layer = 4 * linear(4096, 4096) + 2 * linear(4096, 11008) + linear(11008, 4096);
  const double expected = 32 * layer + 2 * 2.0 * 32000 * 4096 + 65.0 * 4096 * 2;
  EXPECT_DOUBLE_EQ(weight_storage(a, WeightFormat::kGptqInt4).total.value(), expected);
}

TEST(WeightStorage, MixtralRoutedExpertsAreReadOnlyWhenPicked) {
  const ModelArchitecture a = config("mixtral-8x7b-v0.1.json");
  const WeightStorage w = weight_storage(a, WeightFormat::kBf16);
  EXPECT_EQ(w.moe_layers, 32);
  EXPECT_EQ(w.experts, 8);
  // 32 layers x 8 experts x 3 x 4096 x 14336 x 2 bytes.
  EXPECT_DOUBLE_EQ(w.routed_experts.value(), 32.0 * 8 * 3 * 4096 * 14336 * 2);
  EXPECT_DOUBLE_EQ(experts_touched(8, 2, 1.0), 2.0);
  EXPECT_NEAR(experts_touched(8, 2, 64.0), 8.0, 1e-6);
  // Uniform routing: E (1 - (1 - k/E)^B); B = 2: 8 (1 - 0.5625) = 3.5.
  EXPECT_DOUBLE_EQ(experts_touched(8, 2, 2.0), 3.5);
}

// tensor_type_fallback: Qwen2.5 0.5B's 896-wide rows are not whole 256-value super-blocks.
TEST(WeightStorage, GgufKTypesFallBackOnRowsThatAreNotSuperBlocks) {
  EXPECT_EQ(gguf_fallback(GgufType::kQ4_K, 896), GgufType::kQ5_0);
  EXPECT_EQ(gguf_fallback(GgufType::kQ5_K, 896), GgufType::kQ5_1);
  EXPECT_EQ(gguf_fallback(GgufType::kQ6_K, 896), GgufType::kQ8_0);
  EXPECT_EQ(gguf_fallback(GgufType::kQ4_K, 4096), GgufType::kQ4_K);
  EXPECT_EQ(gguf_fallback(GgufType::kQ4_0, 100), GgufType::kF16);
}

TEST(WeightFormats, ParseSuggestsTheNearestName) {
  EXPECT_EQ(parse_named<WeightFormat>("weights", "q4_k_m"), WeightFormat::kGgufQ4_K_M);
  try {
    (void)parse_named<WeightFormat>("weights", "q4km");
    FAIL() << "accepted q4km";
  } catch (const InvalidRequest& e) {
    ASSERT_EQ(e.problems().size(), 1U);
    EXPECT_EQ(e.problems()[0].field, "weights");
    EXPECT_NE(e.problems()[0].message.find("q4_k_m"), std::string::npos);
  }
}

Device test_device(double capacity, double bandwidth, double tflops) {
  Device d;
  d.id = "test";
  d.vendor = "nvidia";
  d.category = "datacenter-gpu";
  d.memory_capacity = Bytes{capacity};
  d.memory_bandwidth = BytesPerSecond{bandwidth};
  d.memory_bandwidth_kind = RateKind::kMeasured;  // used as it is: fraction 1
  ComputeRate r;
  r.dtype = DType::kBf16;
  r.dense = FlopsPerSecond{tflops * 1e12};
  r.kind = RateKind::kMeasured;
  d.rates.push_back(r);
  return d;
}

// Decode by hand: one step reads the weights (all but the token table) and the sequence's KV at
// the context; at batch 1 that is memory-bound, tokens/s = bandwidth / bytes.
TEST(Serving, DecodeIsBytesOverBandwidth) {
  ServingJob job;
  job.model.architecture = config("meta-llama-3-8b.json");
  job.setup.context = 4096;
  job.setup.prompt = 512;
  const Device d = test_device(80e9, 2e12, 500.0);
  const ServingEstimate e = serving_estimate(job, {MachineChoice{&d, std::nullopt, nullptr}});
  ASSERT_EQ(e.machines.size(), 1U);
  const ServingMachine& m = e.machines[0];
  const double weights = e.weights.always_read.value();
  const double bytes = weights + 131072.0 * 4096;
  EXPECT_DOUBLE_EQ(m.step_bytes.value(), bytes);
  EXPECT_DOUBLE_EQ(m.decode_tokens_per_s, 2e12 / bytes);
  EXPECT_EQ(m.bound, Bound::kMemory);
  EXPECT_TRUE(m.fits);
  // A measured rate is used at GEMM efficiency 1: prefill = its FLOPs over the rate.
  EXPECT_DOUBLE_EQ(m.prefill.count(), e.prefill_flops / 500e12);
  // Concurrency: what the weights and a one-sequence workspace leave, over 512 MiB a sequence.
  EXPECT_GT(m.max_concurrency, 100);
  EXPECT_LT(m.max_concurrency, 130);
  // At 4096 tokens each sequence reads 512 MiB of cache per step, more time than its 17 GFLOP
  // take: decode never turns compute-bound.
  EXPECT_EQ(m.compute_bound_batch, 0);
}

// At a short context it does, from the batch B where B f / R >= (W + B kv) / bw:
// B = ceil((W / bw) / (f / R - kv / bw)).
TEST(Serving, ComputeBoundBatchByHand) {
  ServingJob job;
  job.model.architecture = config("meta-llama-3-8b.json");
  job.setup.context = 256;
  job.setup.prompt = 128;
  const Device d = test_device(80e9, 2e12, 500.0);
  const ServingEstimate e = serving_estimate(job, {MachineChoice{&d, std::nullopt, nullptr}});
  const double w = e.weights.always_read.value() / 2e12;
  const double per_seq = e.decode_flops_per_token / 500e12 - 131072.0 * 256 / 2e12;
  ASSERT_GT(per_seq, 0.0);
  EXPECT_EQ(e.machines[0].compute_bound_batch, static_cast<std::int64_t>(std::ceil(w / per_seq)));
}

TEST(Serving, ConcurrencyPastMemoryDoesNotFit) {
  ServingJob job;
  job.model.architecture = config("meta-llama-3-8b.json");
  job.setup.context = 8192;
  job.setup.concurrency = 100;  // 100 x 1 GiB of cache
  const Device d = test_device(80e9, 2e12, 500.0);
  const ServingEstimate e = serving_estimate(job, {MachineChoice{&d, std::nullopt, nullptr}});
  EXPECT_FALSE(e.machines[0].fits);
  EXPECT_GT(e.machines[0].max_concurrency, 0);
  EXPECT_LT(e.machines[0].max_concurrency, 100);
}

// A cache far past any pipeline (a million sequences of 128k tokens of a Llama 3 8B on 80 GB):
// more stages than its 32 layers would be needed, so no number of devices serves it, said as 0
// devices and 0 stages -- never an overflowed count (issue: counts in 64 bits).
TEST(Serving, PastOneLayerAStageServesOnNoNumberOfDevices) {
  ServingJob job;
  job.model.architecture = config("meta-llama-3-8b.json");
  job.setup.context = 131072;
  job.setup.concurrency = 1000000;
  const Device d = test_device(80e9, 2e12, 500.0);
  const ServingSize s = serving_size(job, MachineChoice{&d, std::nullopt, nullptr});
  EXPECT_EQ(s.devices, 0);
  EXPECT_EQ(s.pp, 0);
  EXPECT_FALSE(s.fits);
}

TEST(Serving, BadInputNamesTheField) {
  ServingJob job;
  job.model.architecture = config("meta-llama-3-8b.json");
  const auto problem_field = [&](const ServingJob& j) {
    try {
      validate(j);
    } catch (const InvalidRequest& e) {
      return e.problems().front().field;
    }
    return std::string{"none"};
  };
  ServingJob j = job;
  j.setup.prompt = 9000;
  j.setup.context = 4096;
  EXPECT_EQ(problem_field(j), "prompt");
  j = job;
  j.setup.tp = 3;  // 32 heads
  EXPECT_EQ(problem_field(j), "tp");
  j = job;
  j.setup.concurrency = 0;
  EXPECT_EQ(problem_field(j), "concurrency");
  // A width that is not a multiple of AWQ's group of 128 inputs.
  j = job;
  j.model.architecture->hidden = 4000;
  j.setup.weights = WeightFormat::kAwqInt4;
  EXPECT_EQ(problem_field(j), "weights");
  j.setup.weights = WeightFormat::kGgufQ4_K_M;  // llama.cpp falls back instead
  EXPECT_EQ(problem_field(j), "none");
  EXPECT_EQ(problem_field(job), "none");
}

}  // namespace
}  // namespace tb
