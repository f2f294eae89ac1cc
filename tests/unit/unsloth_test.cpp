// The unsloth profile (docs/frameworks.md): its defaults, the linear cross-entropy it runs, and
// the longest sequence that fits against unsloth's published context-length tables.
//
// Published (unslothai/unsloth README at c6063669^, added in e3162dc5 of 2025-01-14; the blog
// "Llama 3.3 + Unsloth", December 2024): QLoRA (4-bit) on q, k, v, o, gate, up and down at rank
// 32, batch size 1, every sequence padded to the length shown; Llama 3.3 70B "tested on 80GB
// A100". The longest sequence each GPU size trains:
//   Llama 3.1 8B:  8 GB 2,972 | 12 GB 21,848 | 16 GB 40,724 | 24 GB 78,475 | 40 GB 153,977 |
//                  48 GB 191,728 | 80 GB 342,733
//   Llama 3.3 70B: 48 GB 12,106 | 80 GB 89,389
// Unstated and assumed here: bitsandbytes' 8-bit AdamW (unsloth's notebooks' adamw_8bit), LoRA
// dropout 0 (get_peft_model's default), and a GPU of exactly that many GiB. The search is --fit's:
// the allocated peak with its 3 % allocator floor and the CUDA context within the GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "trainbudget/api/session.hpp"
#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/plan/fit_search.hpp"

namespace tb::api {
namespace {

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

FieldMap unsloth_qlora(const char* model, std::int64_t seq_len) {
  return {{"framework", "unsloth"},     {"model", model},
          {"machine", "a100-sxm-80gb"}, {"method", "qlora"},
          {"lora_rank", "32"},          {"lora_targets", "all-linear"},
          {"lora_dropout", "0"},        {"recipe", "adam-8bit"},
          {"micro_batch", "1"},         {"seq_len", std::to_string(seq_len)}};
}

// The longest sequence (a multiple of 128) whose allocated peak fits a GPU of `gib` GiB.
std::int64_t longest_fitting(const char* model, double gib) {
  const Scenario s = session().estimate(unsloth_qlora(model, 4096)).estimate.primary;
  const Bytes capacity =
      (Bytes{gib * 1073741824.0} - cuda_runtime_bytes(1)) / (1.0 + kReservedFractionLow);
  const PeakOfLayout peak = [&](const Layout& l) {
    return evaluate(s.profile, l, ClusterProfile{}).memory;
  };
  return longest_sequence(s.layout, capacity, peak, std::int64_t{1} << 21).value;
}

struct Row {
  const char* model;
  double gib;
  double published;
  double modeled;  // this model's longest fitting sequence, for the record
};

// Within 10 % (issue 44) on 8 of the 9 rows: +4.9, +0.9, -1.5, -2.7, -2.9, -3.3 % (8B, 12-80
// GB) and -3.8, -4.9 % (70B). Before the dequantised NF4 weight (dequantized_weight.hpp) and
// the 3 % allocator floor of --fit: +14.8 ... -0.0 % and +32.1 / +2.4 %.
TEST(Unsloth, TheLongestSequenceMatchesUnslothsTablesWithinTenPerCent) {
  for (const Row r :
       {Row{"llama-3.1-8b", 12, 21848, 22912}, Row{"llama-3.1-8b", 16, 40724, 41088},
        Row{"llama-3.1-8b", 24, 78475, 77312}, Row{"llama-3.1-8b", 40, 153977, 149888},
        Row{"llama-3.1-8b", 48, 191728, 186112}, Row{"llama-3.1-8b", 80, 342733, 331264},
        Row{"llama-3.3-70b", 48, 12106, 11648}, Row{"llama-3.3-70b", 80, 89389, 84992}}) {
    const auto got = static_cast<double>(longest_fitting(r.model, r.gib));
    EXPECT_NEAR(got, r.published, 0.10 * r.published) << r.model << " at " << r.gib << " GiB";
    EXPECT_NEAR(got, r.modeled, 128.0) << r.model << " at " << r.gib << " GiB";
  }
}

// In tokens the 8 GiB row is outside: the sequence is what is left after about 7.4 GB of
// weights, adapters, optimizer states and the CUDA context, and 0.44 GB (5 % of the GPU)
// separates 4,864 tokens from the published 2,972 (+63.7 %). Not placed: the table names no GPU,
// so neither its display use nor its context size is known.
TEST(Unsloth, AtEightGigabytesTheFixedMemoryDecidesAndReadsLong) {
  const auto got = static_cast<double>(longest_fitting("llama-3.1-8b", 8));
  EXPECT_NEAR(got, 4864.0, 128.0);
  EXPECT_GT(got / 2972.0 - 1.0, 0.10);
}

// The device memory --fit counts (the allocated peak over the 3 % floor, and the CUDA context)
// at the published length, in GiB.
double memory_at(const char* model, std::int64_t seq_len) {
  const Scenario s = session().estimate(unsloth_qlora(model, seq_len)).estimate.primary;
  const Bytes peak = evaluate(s.profile, s.layout, ClusterProfile{}).memory;
  return (peak * (1.0 + kReservedFractionLow) + cuda_runtime_bytes(1)).value() / 1073741824.0;
}

// The tables are VRAM for a length, so the same rows read as memory: the estimate's memory at
// each published length against the GPU's size. The 8B column is exactly linear in the GPU's
// size (4,719 tokens a GB from 8 to 80 GB), a line through unsloth's measurements whose intercept,
// 7.37 GB held before the first token (the estimate holds 6.92), is what the 8 GB row measures; in
// memory it reads -5.3 % where its token count reads +63.7 %. All nine within 10 %: 8B -5.3, -2.2,
// -0.6, +1.0, +2.2, +2.5, +3.2 % (8-80 GB), 70B +0.3, +2.4 %.
TEST(Unsloth, TheMemoryAtEachPublishedLengthMatchesTheGpuWithinTenPerCent) {
  for (const Row r : {Row{"llama-3.1-8b", 8, 2972, 0}, Row{"llama-3.1-8b", 12, 21848, 0},
                      Row{"llama-3.1-8b", 16, 40724, 0}, Row{"llama-3.1-8b", 24, 78475, 0},
                      Row{"llama-3.1-8b", 40, 153977, 0}, Row{"llama-3.1-8b", 48, 191728, 0},
                      Row{"llama-3.1-8b", 80, 342733, 0}, Row{"llama-3.3-70b", 48, 12106, 0},
                      Row{"llama-3.3-70b", 80, 89389, 0}}) {
    const double got = memory_at(r.model, static_cast<std::int64_t>(r.published));
    EXPECT_NEAR(got, r.gib, 0.10 * r.gib) << r.model << " at " << r.published << " tokens";
  }
}

// get_peft_model's use_gradient_checkpointing="unsloth" by default: every layer recomputed, its
// input in host memory; a recompute the user gives wins, and so does a cleared offload.
TEST(Unsloth, ItsDefaultIsOffloadedGradientCheckpointing) {
  const TrainingJob& job = session().estimate(unsloth_qlora("llama-3.1-8b", 4096)).estimate.job;
  EXPECT_EQ(job.setup.recompute, Recompute::kFull);
  EXPECT_TRUE(job.setup.offload_activations);
  EXPECT_EQ(resolved_setup(job.setup, 0).loss, (LossSpec{LossImpl::kLinear, 1}));
  FieldMap plain = unsloth_qlora("llama-3.1-8b", 4096);
  plain["recompute"] = "none";
  const TrainingJob& none = session().estimate(plain).estimate.job;
  EXPECT_EQ(none.setup.recompute, Recompute::kNone);
  EXPECT_FALSE(none.setup.offload_activations);
  FieldMap on_device = unsloth_qlora("llama-3.1-8b", 4096);
  on_device["offload_activations"] = "false";
  const TrainingJob& kept = session().estimate(on_device).estimate.job;
  EXPECT_EQ(kept.setup.recompute, Recompute::kFull);
  EXPECT_FALSE(kept.setup.offload_activations);
}

// A linear cross-entropy keeps the log-sum-exp (b x s fp32) where a fused one keeps the fp32
// softmax (b x s x V): Llama 3.1 8B at b 1, s 4096, V 128,256.
TEST(Unsloth, TheLinearLossKeepsNoLogits) {
  FieldMap linear = unsloth_qlora("llama-3.1-8b", 4096);
  FieldMap fused = linear;
  fused["loss"] = "fused";
  const Scenario a = session().estimate(linear).estimate.primary;
  const Scenario b = session().estimate(fused).estimate.primary;
  const StepCost ca = evaluate(a.profile, a.layout, ClusterProfile{});
  const StepCost cb = evaluate(b.profile, b.layout, ClusterProfile{});
  EXPECT_NEAR((cb.head_saved - ca.head_saved).value(), 4096.0 * 128256.0 * 4.0 - 4096.0 * 4.0, 1.0);
  EXPECT_NEAR(ca.logits_gradient.value(), 0.0, 1e-9);
}

}  // namespace
}  // namespace tb::api
