// Online RL's generation round (docs/rl.md, "Online RL") against hand-derived values: the
// colocated engine's pool and sleep mode, the KV cache the completions need, the reference and
// old-policy log-prob passes, the round's sum, the server's weight broadcast, and the request's
// checks.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "rollout_jobs.hpp"
#include "test_models.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using rollout_jobs::first_key;
using rollout_jobs::grpo;
using rollout_jobs::kKvPerToken;
using rollout_jobs::on;
using rollout_jobs::run;

TEST(Rollout, ColocatedPoolSitsBesideTheStepUnlessAsleep) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  const Estimate e = run(job);
  const MachineEstimate& m = on(e);
  ASSERT_TRUE(m.rollout);
  const RolloutCost& r = *m.rollout;
  // The sequence is prompt + completion: 512 + 256.
  EXPECT_EQ(e.primary.layout.seq_len, 768);
  // 8 completions x 768 tokens x 131,072 bytes.
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 8.0 * 768.0 * kKvPerToken);
  EXPECT_DOUBLE_EQ(r.engine_weights.value(), 2.0 * job.params);
  EXPECT_DOUBLE_EQ(r.pool.value(), 0.3 * m.allocatable.value());
  EXPECT_DOUBLE_EQ(r.kv_capacity.value(), r.pool.value() - r.engine_weights.value());
  EXPECT_TRUE(r.kv_fits);
  // Awake, the pool stays through the update; the peak is the training step's plus the pool.
  EXPECT_EQ(r.peak_phase, RolloutPhase::kUpdate);
  EXPECT_DOUBLE_EQ(m.numbers.allocated.value(), r.update_peak.value());
  // The utilization range: the engine's weights and cache at least, the step's room at most.
  const double cap = m.allocatable.value();
  EXPECT_DOUBLE_EQ(r.utilization_min, (r.engine_weights.value() + r.kv_needed.value()) / cap);
  EXPECT_DOUBLE_EQ(r.utilization_max, (cap - (r.update_peak - r.pool).value()) / cap);
  EXPECT_LT(r.utilization_min, 0.3);
  EXPECT_GT(r.utilization_max, 0.3);
  job.rollout.vllm_enable_sleep_mode = true;
  const RolloutCost asleep = *on(run(job)).rollout;
  EXPECT_DOUBLE_EQ(asleep.update_peak.value(), r.update_peak.value() - r.pool.value());
  EXPECT_DOUBLE_EQ(asleep.generation_peak.value(), r.generation_peak.value());
}

TEST(Rollout, TheRoundIsItsPartsAndTheHoursItsRounds) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kGenerate);
  job.devices = 8;
  job.zero_stage = 3;
  job.rollout.beta = 0.04;
  job.rollout.num_iterations = 2;
  const Estimate e = run(job);  // held: m refers into it
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  // The reference's pass (beta > 0) and the old policy's (mu > 1), each a forward over the
  // generation batch.
  EXPECT_EQ(r.logprob_passes, 2);
  EXPECT_NEAR(r.logprobs.count(), 2.0 * m.time.forward.count(), 1e-12);
  EXPECT_NEAR(r.update.count(), 2.0 * m.time.step.count(), 1e-12);
  EXPECT_NEAR(r.generation.count(), (r.prefill + r.decode).count(), 1e-12);
  EXPECT_NEAR(r.round.count(), (r.generation + r.logprobs + r.update + r.sync).count(), 1e-12);
  EXPECT_NEAR(m.at_utilization.count(), r.round.count() * m.time.steps, 1e-6);
  // generate(): every row prefills its own prompt; no engine, no sync.
  EXPECT_EQ(r.sync.count(), 0.0);
  // ZeRO-3 gathers the whole bf16 weights for generate(): 7/8 of them come from the others.
  EXPECT_GT(r.generation_peak.value(), r.kv_needed.value() + 2.0 * job.params * 7.0 / 8.0);
}

TEST(Rollout, TheReferenceIsLoadedOnlyForAKlTerm) {
  TrainingJob full = grpo(Method::kFull, RolloutEngine::kGenerate);
  const double without = run(full).primary.memory.total.value();
  EXPECT_EQ(on(run(full)).rollout->logprob_passes, 0);
  full.rollout.beta = 0.001;
  // A full policy's reference: a bf16 copy of the base.
  EXPECT_DOUBLE_EQ(run(full).primary.memory.total.value(), without + 2.0 * full.params);
  // LoRA: the base with its adapters off is the reference; one pass, no copy.
  TrainingJob lora = grpo(Method::kLora, RolloutEngine::kGenerate);
  const double lora_without = run(lora).primary.memory.total.value();
  lora.rollout.beta = 0.001;
  EXPECT_DOUBLE_EQ(run(lora).primary.memory.total.value(), lora_without);
  EXPECT_EQ(on(run(lora)).rollout->logprob_passes, 1);
}

// A mean completion below the longest (issue 39, item 2): decode still runs
// max_completion_length steps, while the cache and the passes after generation follow the mean,
// and the memory the step of the longest (768). The cache holds at most 8 x 512 tokens: with a
// rate of about 1/64 a token, each completion's chance of running on falls faster than its cache
// grows (512 / 64 > 1), so the held tokens S(t)(512 + t) peak at the first step.
TEST(Rollout, DecodeRunsToTheLongestAndTheRestFollowsTheMean) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  const Estimate longest = run(job);
  job.rollout.mean_completion_length = 64;
  const Estimate e = run(job);
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  EXPECT_EQ(r.decode_length, 256);
  EXPECT_EQ(r.decode_steps_run, 256);
  EXPECT_EQ(r.mean_length, 64);
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 8.0 * 512.0 * kKvPerToken);
  EXPECT_EQ(e.primary.layout.seq_len, 768);
  EXPECT_DOUBLE_EQ(r.update_peak.value(), on(longest).rollout->update_peak.value());
  TrainingJob shorter = grpo(Method::kLora, RolloutEngine::kColocate);
  shorter.rollout.max_completion_length = 64;
  const Estimate s = run(shorter);
  EXPECT_NEAR(r.update.count(), on(s).rollout->update.count(), 1e-12);
  EXPECT_NEAR(r.logprobs.count(), on(s).rollout->logprobs.count(), 1e-12);
  EXPECT_LT(r.update.count(), on(longest).rollout->update.count());
  // 256 decode steps, each waiting 5 ms for the engine's host work; the device's part is less
  // than the run where all 8 completions go the whole way (the batch narrows as they end; at 8
  // sequences the weights' read dominates a step, so by a few per cent).
  const RolloutCost& full = *on(longest).rollout;
  EXPECT_DOUBLE_EQ(r.decode_host.count(), 5e-3);
  EXPECT_GT(r.decode.count(), 256.0 * 5e-3);
  EXPECT_LT(r.decode.count(), full.decode.count());
  // The dataset's tokens hold 576 a sequence where the step counts 768: 4/3 as many rounds.
  EXPECT_NEAR(m.at_utilization.count(), r.round.count() * m.time.steps * 768.0 / 576.0,
              1e-6 * m.at_utilization.count());
}

// The round's band: generation from no host work between decode steps (overlapped) to 13 ms of
// it (RFC #6854's high end), 5 ms in the estimate; the update and the log-probs move with the
// step's band; the estimate inside.
TEST(Rollout, TheBandTakesTheEnginesHostWork) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  const Estimate e = run(job);
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  EXPECT_NEAR(r.generation_low.count(), r.generation.count() - 256.0 * 5e-3, 1e-12);
  EXPECT_NEAR(r.generation_high.count(), r.generation.count() + 256.0 * 8e-3, 1e-12);
  ASSERT_TRUE(m.time_band.present);
  EXPECT_LE(m.time_band.low.count(), r.round.count() - 256.0 * 5e-3 + 1e-12);
  EXPECT_GE(m.time_band.high.count(), r.round.count() + 256.0 * 8e-3 - 1e-12);
  // generate() has no engine: its generation is as priced at both ends.
  job.rollout.engine = RolloutEngine::kGenerate;
  const Estimate g = run(job);
  EXPECT_DOUBLE_EQ(on(g).rollout->generation_low.count(), on(g).rollout->generation.count());
  EXPECT_DOUBLE_EQ(on(g).rollout->generation_high.count(), on(g).rollout->generation.count());
}

// vLLM 0.6 and 0.7 (V0's async output processing): a decode step waits for scheduling and the
// inputs, 13.2 of WukLab's 20.8 ms, and takes the longer of the device's work and the outputs'
// 7.6; before 0.6 and from 0.8 (V1 in the trainer's process), every stage waits, as unset.
TEST(Rollout, V0sAsyncOutputProcessingRunsBesideTheDevice) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  const RolloutCost serial = *on(run(job)).rollout;
  EXPECT_DOUBLE_EQ(serial.decode_host.count(), 5e-3);
  EXPECT_DOUBLE_EQ(serial.decode_host_beside.count(), 0.0);
  EXPECT_DOUBLE_EQ(serial.decode_host_high.count(), 13e-3);
  for (const std::array<int, 2> version :
       {std::array{0, 5}, std::array{0, 8}, std::array{0, 11}, std::array{1, 0}}) {
    job.rollout.vllm_version = version;
    EXPECT_DOUBLE_EQ(on(run(job)).rollout->decode.count(), serial.decode.count());
  }
  job.rollout.vllm_version = std::array{0, 7};
  const RolloutCost v0 = *on(run(job)).rollout;
  const double waits = 5e-3 * 13.2 / 20.8;
  const double beside = 5e-3 * 7.6 / 20.8;
  EXPECT_NEAR(v0.decode_host.count(), waits, 1e-15);
  EXPECT_NEAR(v0.decode_host_beside.count(), beside, 1e-15);
  EXPECT_NEAR(v0.decode_host_high.count(), 13e-3 * 13.2 / 20.8, 1e-15);
  // The device's step (the band's low end has no host work) is longer than the outputs'
  // processing here, so the step is the device's plus the waiting share: 256 steps of it.
  const double device = (v0.generation_low - v0.prefill).count();
  ASSERT_GT(device / 256.0, beside);
  EXPECT_DOUBLE_EQ(v0.generation_low.count(), serial.generation_low.count());
  EXPECT_NEAR(v0.decode.count(), device + 256.0 * waits, 1e-9);
  EXPECT_NEAR(serial.decode.count() - v0.decode.count(), 256.0 * (5e-3 - waits), 1e-9);
  // NeMo RL's async_engine (vLLM's AsyncLLM, its engine core in a process of its own): the same
  // split whatever the release.
  job.rollout.vllm_version = std::nullopt;
  job.rollout.vllm_async_engine = true;
  const RolloutCost async = *on(run(job)).rollout;
  EXPECT_DOUBLE_EQ(async.decode.count(), v0.decode.count());
  EXPECT_DOUBLE_EQ(async.decode_host_beside.count(), v0.decode_host_beside.count());
}

// The generation batch is per data-parallel rank (NeMo RL's vllm_generation.py shards it by the
// data-parallel axis; verl's dispatch into dp chunks): 8 devices at tp 2 x pp 2 are 2 ranks of
// 8 completions, 16 over 8 engines of one device, 2 each; at dp 8, 8 each.
TEST(Rollout, ColocatedEnginesShareTheDataParallelRanksCompletions) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  job.devices = 8;
  job.zero_stage = 1;
  const Estimate flat = run(job);
  EXPECT_EQ(on(flat).rollout->completions, 8);
  job.parallel.tp = 2;
  job.parallel.pp = 2;
  job.setup.grad_accumulation = 2;
  const Estimate split = run(job);
  ASSERT_TRUE(on(split).rollout);
  // 8 x 2 micro-batches x 2 ranks = 32 completions over 8 engines.
  EXPECT_EQ(on(split).rollout->completions, 4);
  EXPECT_EQ(on(split).rollout->engines, 8);
  job.rollout.vllm_tensor_parallel_size = 2;
  const Estimate wide = run(job);
  EXPECT_EQ(on(wide).rollout->completions, 8);
  EXPECT_EQ(on(wide).rollout->engines, 4);
}

// steps_per_generation (TRL >= 0.18): a generation batch of micro_batch x spg completions per
// process, trained on as spg / grad_accum optimizer steps; when it spans more than one step the
// samples come from an earlier policy and the old policy's log-probs are computed
// (gradient_accumulation_steps % (spg x num_iterations) != 0, grpo_trainer.py at f2cd577).
TEST(Rollout, AGenerationBatchCanFeedSeveralOptimizerSteps) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kGenerate);
  job.setup.grad_accumulation = 2;
  const Estimate e1 = run(job);
  const MachineEstimate& one = on(e1);
  EXPECT_EQ(one.rollout->generation_steps, 2);
  EXPECT_DOUBLE_EQ(one.rollout->updates, 1.0);
  EXPECT_EQ(one.rollout->logprob_passes, 0);
  EXPECT_EQ(one.rollout->completions, 16);  // 8 x 2 on the one process
  job.rollout.steps_per_generation = 8;     // four optimizer steps per generation batch
  const Estimate e4 = run(job);
  const MachineEstimate& four = on(e4);
  const RolloutCost& r = *four.rollout;
  EXPECT_EQ(r.completions, 64);  // 8 x 8
  EXPECT_DOUBLE_EQ(r.updates, 4.0);
  EXPECT_EQ(r.logprob_passes, 1);  // 2 % (8 x 1) != 0: the old policy's pass
  EXPECT_NEAR(r.logprobs.count(), 8.0 * four.time.forward.count(), 1e-12);
  EXPECT_NEAR(r.update.count(), 4.0 * four.time.step.count(), 1e-12);
  // The dataset passes once through generation: a quarter as many rounds as optimizer steps.
  EXPECT_NEAR(four.at_utilization.count(), r.round.count() * four.time.steps / 4.0, 1e-6);
  // Half a step's micro-batches per generation batch: two rounds an optimizer step, aligned, no
  // old-policy pass.
  job.rollout.steps_per_generation = 1;
  const Estimate eh = run(job);
  const RolloutCost& half = *on(eh).rollout;
  EXPECT_DOUBLE_EQ(half.updates, 0.5);
  EXPECT_EQ(half.logprob_passes, 0);
  EXPECT_NEAR(on(eh).at_utilization.count(), half.round.count() * on(eh).time.steps * 2.0, 1e-6);
}

// With vLLM, TRL >= 0.23 recomputes the old policy's log-probs for every generation batch to
// weigh vLLM's sampling against the trainer's (vllm_importance_sampling_correction, default
// True); TRL before 0.23 (false here) did not when the batch is used once.
TEST(Rollout, VllmImportanceSamplingAddsTheOldPolicysPass) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  const Estimate with = run(job);
  EXPECT_EQ(on(with).rollout->logprob_passes, 1);
  EXPECT_NEAR(on(with).rollout->logprobs.count(), on(with).time.forward.count(), 1e-12);
  job.rollout.vllm_importance_sampling_correction = false;
  const Estimate without = run(job);
  EXPECT_EQ(on(without).rollout->logprob_passes, 0);
  EXPECT_NEAR((on(with).rollout->round - on(without).rollout->round).count(),
              on(with).time.forward.count(), 1e-9);
  // generate() has no vLLM sampling to correct.
  TrainingJob plain = grpo(Method::kLora, RolloutEngine::kGenerate);
  EXPECT_EQ(on(run(plain)).rollout->logprob_passes, 0);
}

TEST(Rollout, ServerModeBroadcastsTheWeightsAndHoldsNoPool) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kServer);
  job.rollout.vllm_server_devices = 2;
  const Estimate e = run(job);  // held: m refers into it
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  EXPECT_EQ(r.pool.value(), 0.0);
  EXPECT_EQ(r.engines, 2);
  // One training device's 8 completions spread over two engines.
  EXPECT_EQ(r.completions, 4);
  EXPECT_EQ(r.peak_phase, RolloutPhase::kUpdate);
  EXPECT_GT(r.sync.count(), 0.0);
}

// generate() runs the policy eagerly: a decode step is no shorter than the host's time to issue
// the forward pass's kernels (the class's eager dispatch, 7 us on Hopper); vLLM replays CUDA
// graphs, and its steps wait for the engine's own host work instead (5 ms, added).
TEST(Rollout, GenerateDecodesNoFasterThanTheHostIssuesItsKernels) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kGenerate);
  job.rollout.max_completion_length = 128;
  const Estimate e = run(job);
  const MachineEstimate& m = on(e);
  const RolloutCost& r = *m.rollout;
  ASSERT_GT(m.time.kernels_forward, 100.0);
  EXPECT_NEAR(r.decode_host.count(), m.time.kernels_forward * 7.0e-6, 1e-12);
  // The step is the larger of the engine's and the host's: at least the host's, 128 times.
  EXPECT_GE(r.decode.count(), 128.0 * r.decode_host.count() * (1.0 - 1e-12));
  // The same job on a colocated vLLM engine: 5 ms of host work after each of the 128 steps.
  job.rollout.engine = RolloutEngine::kColocate;
  const Estimate v = run(job);
  EXPECT_DOUBLE_EQ(on(v).rollout->decode_host.count(), 5e-3);
  EXPECT_GT(on(v).rollout->decode.count(), 128.0 * 5e-3);
}

TEST(Rollout, ACacheTooSmallForTheBatchDecodesInWaves) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  job.setup.micro_batch = 256;
  job.rollout.max_completion_length = 4096;
  job.rollout.vllm_gpu_memory_utilization = 0.3;
  const Estimate e = run(job);  // held: r refers into it
  const RolloutCost& r = *on(e).rollout;
  EXPECT_FALSE(r.kv_fits);
  EXPECT_TRUE(r.engine_fits);
  // 256 x (512 + 4096) x 131,072 bytes = 154.6 GB against the pool's room.
  EXPECT_DOUBLE_EQ(r.kv_needed.value(), 256.0 * 4608.0 * kKvPerToken);
  job.rollout.max_completion_length = 256;
  job.setup.micro_batch = 8;
  const Estimate held = run(job);
  const RolloutCost& fits = *on(held).rollout;
  EXPECT_TRUE(fits.kv_fits);
}

api::EstimateRequest parse(api::FieldMap values) { return api::parse_estimate_request(values); }

TEST(RolloutRequest, EachRowIsCheckedAgainstTheTrainerAndEngine) {
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"}, {"num_generations", "4"}}), "num_generations");
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"}, {"trainer", "grpo"}, {"seq_len", "1024"}}),
            "seq_len");
  EXPECT_EQ(
      first_key(
          {{"model", "llama-3.1-8b"}, {"trainer", "grpo"}, {"vllm_gpu_memory_utilization", "0.5"}}),
      "vllm_gpu_memory_utilization");
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"}, {"trainer", "grpo"}, {"micro_batch", "3"}}),
            "num_generations");
  EXPECT_EQ(first_key({{"trainer", "grpo"}, {"params", "7e9"}}), "trainer");
  EXPECT_EQ(
      first_key(
          {{"model", "llama-3.1-8b"}, {"trainer", "grpo"}, {"fit", "true"}, {"micro_batch", "8"}}),
      "fit");
  // The correction is vLLM's; steps_per_generation is GRPOConfig's, not PPO's; the generation
  // batch micro_batch x steps_per_generation x devices must hold whole groups.
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"},
                       {"trainer", "grpo"},
                       {"vllm_importance_sampling_correction", "false"}}),
            "vllm_importance_sampling_correction");
  // PPO's mini-batches: whole accumulations of micro-batches (Ppo.MiniBatchesShareOne...).
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"},
                       {"trainer", "ppo"},
                       {"grad_accum", "2"},
                       {"steps_per_generation", "3"}}),
            "steps_per_generation");
  EXPECT_EQ(
      first_key({{"model", "llama-3.1-8b"}, {"trainer", "ppo"}, {"steps_per_generation", "2"}}),
      "");
  EXPECT_EQ(first_key({{"model", "llama-3.1-8b"},
                       {"trainer", "grpo"},
                       {"micro_batch", "4"},
                       {"steps_per_generation", "3"}}),
            "num_generations");
  EXPECT_EQ(parse({{"model", "llama-3.1-8b"},
                   {"trainer", "grpo"},
                   {"micro_batch", "4"},
                   {"steps_per_generation", "4"}})
                .job.rollout.steps_per_generation,
            4);
  const api::EstimateRequest ok = parse({{"model", "llama-3.1-8b"},
                                         {"trainer", "rloo"},
                                         {"micro_batch", "16"},
                                         {"max_prompt_length", "256"},
                                         {"max_completion_length", "1024"}});
  EXPECT_EQ(ok.job.setup.seq_len, 1280);
}

}  // namespace
}  // namespace tb

namespace tb {
namespace {

// TRL's GRPO asks the model for the completion's logits alone (logits_to_keep = completion + 1,
// grpo_trainer.py): the head's saved rows, its GEMM's FLOPs and the logits' gradient scale by
// (completion + 1) / (prompt + completion); the final norm and the decoder layers do not.
TEST(Rollout, CompletionLogitsScaleTheHeadAlone) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kGenerate);
  job.setup.framework = Framework::kHf;  // F.cross_entropy's rows: log_probs is one of them
  job.rollout.max_prompt_length = 512;
  job.rollout.max_completion_length = 1024;
  const Estimate kept = run(job);
  EXPECT_EQ(kept.primary.layout.logits_positions, 1025);
  EXPECT_DOUBLE_EQ(kept.primary.layout.logits_share(), 1025.0 / 1536.0);
  job.rollout.completion_logits = false;
  const Estimate all = run(job);
  EXPECT_EQ(all.primary.layout.logits_positions, 0);
  EXPECT_DOUBLE_EQ(all.primary.layout.logits_share(), 1.0);
  ASSERT_TRUE(kept.primary.step && all.primary.step);
  const auto head_row = [](const Estimate& e, std::string_view name) {
    for (const ActivationTerm& t : e.primary.step->activations.head) {
      if (t.name == name) return t.bytes();
    }
    return Bytes{-1.0};
  };
  // Llama 3 8B: V = 128,256, h = 4,096; b = 8; under the Trainer the logits reach the loss in
  // fp32 (accelerate's convert_outputs_to_fp32).
  EXPECT_DOUBLE_EQ(head_row(kept, "log_probs").value(), 8.0 * 1025.0 * 128256.0 * 4.0);
  EXPECT_DOUBLE_EQ(head_row(all, "log_probs").value(), 8.0 * 1536.0 * 128256.0 * 4.0);
  EXPECT_DOUBLE_EQ(head_row(kept, "lm_head_input").value(), 8.0 * 1025.0 * 4096.0 * 2.0);
  EXPECT_DOUBLE_EQ(head_row(kept, "final_norm_input").value(),
                   head_row(all, "final_norm_input").value());
  // The LM head's FLOPs per token: 2hV forward, x3 with its backward, on 1025 of 1536 tokens.
  const auto lm_head = [](const Estimate& e) {
    for (const FlopsTerm& t : e.primary.step->flops.terms) {
      if (t.name == "lm_head") return t.model;
    }
    return -1.0;
  };
  EXPECT_NEAR(lm_head(all), 6.0 * 4096.0 * 128256.0, 1.0);
  EXPECT_NEAR(lm_head(kept), 6.0 * 4096.0 * 128256.0 * 1025.0 / 1536.0, 1.0);
  // Fewer logits: less memory and a shorter step, the layers' share unchanged.
  EXPECT_LT(on(kept).numbers.allocated.value(), on(all).numbers.allocated.value());
  EXPECT_LT(on(kept).time.step.count(), on(all).time.step.count());
}

// Without logits_dtype, online RL's log-softmax runs in the logits' dtype (TRL's
// selective_log_softmax on bf16 logits), which under the Trainer's native AMP is fp32
// (accelerate's convert_outputs_to_fp32) and under DeepSpeed's engine the activations'; a given
// logits_dtype still applies.
TEST(Rollout, OnlineRlLogSoftmaxKeepsTheLogitsDtype) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kGenerate);
  job.setup.framework = Framework::kHf;
  const auto bytes_of = [](const TrainingJob& j) {
    const Estimate e = run(j);
    for (const ActivationTerm& t : e.primary.step->activations.head) {
      if (t.name == "log_probs") return t.bytes_per_element;
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(bytes_of(job), 4.0);
  job.setup.logits_dtype = LogitsDtype::kActivation;
  EXPECT_DOUBLE_EQ(bytes_of(job), 2.0);
  job.setup.logits_dtype.reset();
  job.recipe_id = "deepspeed";
  EXPECT_DOUBLE_EQ(bytes_of(job), 2.0);
  job.recipe_id = "amp-adam";
  job.setup.framework = Framework::kPytorch;
  EXPECT_DOUBLE_EQ(bytes_of(job), 2.0);
}

}  // namespace
}  // namespace tb

namespace tb {
namespace {

// A pool that holds part of the batch decodes it by continuous batching (vLLM's scheduler admits
// a waiting sequence when another frees its blocks): as many running as their KV fits, for the
// steps the batch's tokens take at that width, or the longest completion's when more.
TEST(Rollout, AFullPoolQueuesCompletionsInsteadOfRepeatingTheDecode) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  job.rollout.steps_per_generation = 32;  // 8 x 32 = 256 completions on the one engine
  job.setup.grad_accumulation = 32;
  job.rollout.num_generations = 8;
  const Estimate e = run(job);
  const RolloutCost& r = *on(e).rollout;
  EXPECT_EQ(r.completions, 256);
  EXPECT_FALSE(r.kv_fits);
  // 512 + 256 tokens a sequence at 131,072 bytes a token.
  const double per_sequence = 768.0 * kKvPerToken;
  const auto running = static_cast<std::int64_t>(r.kv_capacity.value() / per_sequence);
  const std::int64_t steps = std::max<std::int64_t>(
      256, static_cast<std::int64_t>(std::ceil(256.0 * 256.0 / static_cast<double>(running))));
  const Note* queued = nullptr;
  for (const Note& n : r.assumptions) {
    if (n.code == NoteCode::kKvQueued) queued = &n;
  }
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->n[0], 256);
  EXPECT_EQ(queued->n[1], running);
  EXPECT_EQ(queued->n[2], steps);
  EXPECT_LT(running, 256);
  // Each of those steps decodes `running` sequences: shorter than a step of all 256, which a pool
  // large enough for the batch runs for the longest completion's 256 steps.
  job.rollout.vllm_gpu_memory_utilization = 0.9;
  const Estimate roomy_estimate = run(job);  // held: roomy refers into it
  const RolloutCost& roomy = *on(roomy_estimate).rollout;
  ASSERT_TRUE(roomy.kv_fits);
  const double narrow_step = r.decode.count() / static_cast<double>(steps);
  const double whole_step = roomy.decode.count() / 256.0;
  EXPECT_LT(narrow_step, whole_step);
  EXPECT_GT(narrow_step, 0.0);
}

}  // namespace
}  // namespace tb

namespace tb {
namespace {

// verl's actor offload between phases: the states it names wait on the host while the engine
// generates (the generation's peak loses exactly them), the update keeps them on the device (its
// peak unchanged), and the round adds both moves over the host link.
TEST(Rollout, OffloadBetweenPhasesFreesTheGenerationNotTheUpdate) {
  TrainingJob job = grpo(Method::kFull, RolloutEngine::kColocate);
  job.devices = 8;
  job.zero_stage = 3;
  job.rollout.vllm_gpu_memory_utilization = 0.5;
  job.rollout.vllm_enable_sleep_mode = true;
  const Estimate kept = run(job, "h100-sxm");
  job.rollout.offload_between_phases = Offload::kParams;
  const Estimate moved = run(job, "h100-sxm");
  const RolloutCost& a = *on(kept).rollout;
  const RolloutCost& b = *on(moved).rollout;
  // Full fine-tune under ZeRO-3 on 8: weights, master and Adam states over 8 (the recipe's
  // 2 + 4 + 8 bytes a parameter), the gradients (freed by zero_grad) not among them.
  const double states = (2.0 + 4.0 + 8.0) * job.params / 8.0;
  EXPECT_NEAR(b.idle_offloaded.value(), states, 1e-6 * states);
  EXPECT_NEAR((a.generation_peak - b.generation_peak).value(), states, 1e-6 * states);
  EXPECT_DOUBLE_EQ(a.update_peak.value(), b.update_peak.value());
  EXPECT_DOUBLE_EQ(a.idle_offload.count(), 0.0);
  EXPECT_GT(b.idle_offload.count(), 0.0);
  EXPECT_NEAR((b.round - a.round).count(), b.idle_offload.count(), 1e-9);
}

}  // namespace
}  // namespace tb
