// Which length and which logits price online RL's passes after generation (docs/rl.md, "Which
// length prices what", "Which positions get logits"): padded or packed by the framework, and the
// logit-sized tensors TRL's in-place temperature division holds, against hand-derived values.
#include <gtest/gtest.h>

#include <algorithm>

#include "rollout_jobs.hpp"

namespace tb {
namespace {

using rollout_jobs::grpo;
using rollout_jobs::kKvPerToken;
using rollout_jobs::on;
using rollout_jobs::run;

// Padded (TRL pads completion_ids to the batch's longest; the hf profile's default), the
// log-prob passes and the update run at the longest, as with no mean at all; the cache and the
// decode still follow the mean. pack_sequences true, or the Megatron-Core (NeMo RL) profile,
// packs them back to the mean.
TEST(Rollout, PaddedPassesRunAtTheLongestPackedAtTheMean) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  job.setup.framework = Framework::kHf;
  const Estimate longest = run(job);
  job.rollout.mean_completion_length = 64;
  const Estimate padded = run(job);
  const RolloutCost& r = *on(padded).rollout;
  const RolloutCost& full = *on(longest).rollout;
  EXPECT_EQ(r.passes_length, 256);
  EXPECT_NEAR(r.update.count(), full.update.count(), 1e-12);
  EXPECT_NEAR(r.logprobs.count(), full.logprobs.count(), 1e-12);
  // The cache's peak, at the first step (rollout_test.cpp, DecodeRunsToTheLongest...).
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 8.0 * 512.0 * kKvPerToken);
  bool said = false;
  for (const Note& n : r.assumptions) said = said || n.code == NoteCode::kPaddedPasses;
  EXPECT_TRUE(said);

  job.rollout.pack_sequences = true;
  const Estimate packed_run = run(job);
  const RolloutCost& packed = *on(packed_run).rollout;
  TrainingJob shorter = grpo(Method::kLora, RolloutEngine::kColocate);
  shorter.setup.framework = Framework::kHf;
  shorter.rollout.max_completion_length = 64;
  const Estimate shorter_run = run(shorter);
  const RolloutCost& at_64 = *on(shorter_run).rollout;
  EXPECT_EQ(packed.passes_length, 64);
  EXPECT_NEAR(packed.update.count(), at_64.update.count(), 1e-12);
  EXPECT_LT(packed.update.count(), r.update.count());

  EXPECT_FALSE(pack_sequences(RolloutSpec{}, Framework::kHf));
  EXPECT_FALSE(pack_sequences(RolloutSpec{}, Framework::kUnsloth));
  EXPECT_TRUE(pack_sequences(RolloutSpec{}, Framework::kMegatron));
  EXPECT_TRUE(pack_sequences(RolloutSpec{}, Framework::kGeneric));
}

// NeMo RL under pipeline parallelism pads every pack to the batch's longest. Prompt 512 and at most
// 256 completion tokens: a micro-batch of 1 packs 768 tokens, and two sequences of the mean (512 +
// 200) overflow it, so each pack holds one and is padded to the longest (256); a micro-batch of 2
// packs 1,536 and holds both (the mean, 200); without the pipeline the packs are never padded.
TEST(Rollout, PipelinePacksRunAtTheLongest) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  job.setup.framework = Framework::kMegatron;
  job.devices = 2;
  job.parallel.pp = 2;
  job.setup.micro_batch = 1;
  job.rollout.mean_completion_length = 200;
  const Estimate one = run(job);
  const RolloutCost& padded = *on(one).rollout;
  EXPECT_EQ(padded.passes_length, 256);
  bool said = false;
  for (const Note& n : padded.assumptions) {
    said = said ||
           (n.code == NoteCode::kPaddedPasses && n.n[0] == 200 && n.n[1] == 256 && n.n[2] == 2);
  }
  EXPECT_TRUE(said);

  job.setup.micro_batch = 2;
  const Estimate two = run(job);
  EXPECT_EQ(on(two).rollout->passes_length, 200);

  // verl's Megatron actor passes each micro-batch at its own length (variable_seq_lengths).
  job.setup.micro_batch = 1;
  job.rollout.pipeline_pads_packs = false;
  EXPECT_EQ(on(run(job)).rollout->passes_length, 200);
  job.rollout.pipeline_pads_packs.reset();

  job.parallel.pp = 1;
  const Estimate flat = run(job);
  EXPECT_EQ(on(flat).rollout->passes_length, 200);
}

// NeMo RL's colocated Megatron policy waits in host memory while its engine generates
// (offload_before_refit, offload_after_refit): params unless the field says otherwise; a server
// engine, or another framework, keeps the states on the device.
TEST(Rollout, NemoRlsColocatedPolicyWaitsOnTheHost) {
  RolloutSpec rl;
  rl.engine = RolloutEngine::kColocate;
  EXPECT_EQ(offload_between_phases(rl, Framework::kMegatron), Offload::kParams);
  EXPECT_EQ(offload_between_phases(rl, Framework::kHf), Offload::kNone);
  rl.offload_between_phases = Offload::kNone;
  EXPECT_EQ(offload_between_phases(rl, Framework::kMegatron), Offload::kNone);
  rl.offload_between_phases.reset();
  rl.engine = RolloutEngine::kServer;
  EXPECT_EQ(offload_between_phases(rl, Framework::kMegatron), Offload::kNone);
}

// NeMo RL's reference waits on the host (use_reference_model): no reference copy among the
// device's states, and its pass adds three moves of the device's bf16 weights (2 bytes a
// parameter on one device) over the host link, shared as the offload's is; LoRA's reference is
// the base with its adapters off, nothing swapped.
TEST(Rollout, NemoRlsReferenceIsSwappedInFromTheHost) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  job.setup.framework = Framework::kMegatron;
  job.rollout.beta = 0.01;
  ASSERT_TRUE(reference_on_host(job));
  EXPECT_FALSE(reference_weights(job));
  const Estimate e = run(job);
  const RolloutCost& r = *on(e).rollout;
  EXPECT_NEAR(r.reference_swapped.value(), 2.0 * job.params, 1e-6 * job.params);
  const MachineChoice h100 = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(job, h100, select_rate(*h100.device, DType::kBf16));
  ASSERT_GT(c.fabric.host.bandwidth.value(), 0.0);
  const double sharing = std::max(1, c.fabric.devices_per_host_link);
  EXPECT_NEAR(r.reference_swap.count(),
              3.0 * r.reference_swapped.value() * sharing / c.fabric.host.bandwidth.value(), 1e-9);
  job.setup.framework = Framework::kHf;
  EXPECT_FALSE(reference_on_host(job));
  EXPECT_TRUE(reference_weights(job));
  EXPECT_EQ(on(run(job)).rollout->reference_swap.count(), 0.0);
  job.setup.framework = Framework::kMegatron;
  job.method = Method::kLora;
  EXPECT_FALSE(reference_on_host(job));
  // verl's Megatron reference is a module of its own on the device unless its param_offload: given
  // false, the megatron profile keeps its weights beside the policy's and swaps nothing; given
  // true under hf, it swaps.
  job.method = Method::kFull;
  job.rollout.reference_on_host = false;
  EXPECT_FALSE(reference_on_host(job));
  EXPECT_TRUE(reference_weights(job));
  const Estimate on_device = run(job);
  EXPECT_EQ(on(on_device).rollout->reference_swap.count(), 0.0);
  EXPECT_GT(on(on_device).rollout->peak.value(), r.peak.value());
  job.setup.framework = Framework::kHf;
  job.rollout.reference_on_host = true;
  EXPECT_TRUE(reference_on_host(job));
  EXPECT_GT(on(run(job)).rollout->reference_swap.count(), 0.0);
}

// TRL's in-place temperature division (logits.div_ on a slice) makes the loss's backward hold
// four logit-sized tensors, the saved log-probs gone: a logits gradient of three where a plain
// loop's is two. Llama 3 8B, 8 completions of 512 + 256 tokens, 257 positions with logits, fp32.
TEST(Rollout, TrlsInPlaceTemperatureHoldsAThirdLogitsGradient) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kGenerate);
  job.setup.framework = Framework::kHf;
  const Estimate trl = run(job);
  job.setup.framework = Framework::kPytorch;
  job.setup.logits_dtype = LogitsDtype::kFp32;
  const Estimate plain = run(job);
  ASSERT_TRUE(trl.primary.step && plain.primary.step);
  const double logits = 8.0 * 257.0 * 128256.0 * 4.0;
  EXPECT_DOUBLE_EQ(trl.primary.step->activations.logits_gradient.value(), 3.0 * logits);
  EXPECT_DOUBLE_EQ(plain.primary.step->activations.logits_gradient.value(), 2.0 * logits);
}

// TRL's GRPOTrainer with use_liger_kernel takes Liger's fused-linear GRPO loss: no logits kept,
// only each position's fp32 log-sum-exp (8 x 257 x 4 bytes), no logits gradient; a given loss
// still wins.
TEST(Rollout, TrlsLigerGrpoLossKeepsNoLogits) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kGenerate);
  job.setup.framework = Framework::kHf;
  job.setup.liger = true;
  const Estimate liger = run(job);
  ASSERT_TRUE(liger.primary.step);
  const auto row = [](const Estimate& e, std::string_view name) {
    for (const ActivationTerm& t : e.primary.step->activations.head) {
      if (t.name == name) return t.bytes().value();
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(row(liger, "loss_lse"), 8.0 * 257.0 * 4.0);
  EXPECT_DOUBLE_EQ(row(liger, "log_probs"), -1.0);
  EXPECT_DOUBLE_EQ(liger.primary.step->activations.logits_gradient.value(), 0.0);
  job.setup.loss = LossSpec{LossImpl::kFull, 1};
  const Estimate full = run(job);
  EXPECT_DOUBLE_EQ(row(full, "log_probs"), 8.0 * 257.0 * 128256.0 * 4.0);
}

}  // namespace
}  // namespace tb
