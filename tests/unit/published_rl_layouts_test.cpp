// The two NeMo RL performance-page rows that could not be written before (docs/rl.md, "Published
// runs"): DAPO on DeepSeek-V3 (dynamic sampling) and the SWE agent on Nemotron 3 Nano 30B-A3B
// (multi-turn rollouts, tp 8 over 2 key/value heads). Each is written as its recipe gives it and
// must estimate; what the page does not publish is named where it is assumed. Their times are not
// checked against the page: the text says why.
#include <gtest/gtest.h>

#include "trainbudget/api/session.hpp"

namespace tb::api {
namespace {

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

// examples/configs/recipes/llm/performance/dapo-deepseek-v3-64n8g.yaml at v0.5.0, over
// grpo_math_1B.yaml: 64 nodes of 8 H100, Megatron tp 8 cp 4 ep 32 pp 8 (7 layers first, 6 last),
// expert_tensor_parallel_size 1, activation checkpointing; 256 prompts x 16 a step, trained in
// global batches of 512 (dp 2: micro-batch 1, 2,048 micro-batches a generation batch, 256 an
// optimizer step); batch_multiplier 3; vLLM tp 64 colocated at 0.6; 1,536 tokens a sequence, at
// most 512 of prompt and 1,024 of response (reward_shaping.max_response_length).
TEST(PublishedRlLayouts, DapoOnDeepSeekV3WithDynamicSampling) {
  const FieldMap dapo{{"model", "deepseek-v3"},
                      {"machine", "h100-sxm"},
                      {"system", "dgx-h100"},
                      {"framework", "megatron"},
                      {"devices", "512"},
                      {"tp", "8"},
                      {"cp", "4"},
                      {"ep", "32"},
                      {"etp", "1"},
                      {"pp", "8"},
                      {"first_stage_layers", "7"},
                      {"last_stage_layers", "6"},
                      {"sequence_parallel", "true"},
                      {"zero", "1"},
                      {"recompute", "full"},
                      {"trainer", "grpo"},
                      {"completion_logits", "false"},
                      {"micro_batch", "1"},
                      {"grad_accum", "256"},
                      {"steps_per_generation", "2048"},
                      {"num_generations", "16"},
                      {"max_prompt_length", "512"},
                      {"max_completion_length", "1024"},
                      {"mean_completion_length", "974"},
                      {"rollout_engine", "colocate"},
                      {"vllm_tensor_parallel_size", "64"},
                      {"vllm_gpu_memory_utilization", "0.6"},
                      {"vllm_enable_sleep_mode", "true"},
                      {"generation_batch_multiplier", "3"}};
  const EstimateResult one = session().estimate(dapo);
  const MachineEstimate& m = one.estimate.primary.machines.front();
  ASSERT_TRUE(m.rollout.has_value());
  // 4,096 completions a step, 3 x as many generated, over 512 / 64 = 8 engines.
  EXPECT_EQ(m.rollout->engines, 8);
  EXPECT_EQ(m.rollout->completions, 3 * 4096 / 8);
  EXPECT_EQ(m.rollout->generation_batches, 1);
  // Two generation batches a step (the run's count, not published) double the generation only.
  FieldMap twice = dapo;
  twice["generation_batches"] = "2";
  const EstimateResult two = session().estimate(twice);
  const RolloutCost& r2 = *two.estimate.primary.machines.front().rollout;
  EXPECT_NEAR(r2.generation.count(), 2.0 * m.rollout->generation.count(), 1e-6);
  EXPECT_NEAR((r2.round - m.rollout->round).count(), m.rollout->generation.count(), 1e-6);
}

// The v0.6 page's GB200 row: SWE (NeMo Gym's agent, tool calls in sandboxes), Nemotron 3 Nano
// 30B-A3B, 1 step off policy, 128 GPUs, generation tp 8, training tp 8 cp 8 ep 8, 512 sequences a
// step of at most 131,072 tokens and 31,599 on average. Not published, so ASSUMED here: half the
// GPUs generate (64 + 64), a 4,096-token prompt, 16 turns with 1,500 observation tokens after
// each but the last and 10 s of the environment each; the model's tokens are the rest.
TEST(PublishedRlLayouts, SweAgentOnNemotron3NanoWithTurnsAndTpBeyondTheKvHeads) {
  const FieldMap swe{{"model", "nemotron-3-nano-30b-a3b"},
                     {"machine", "gb200"},
                     {"system", "gb200-nvl72"},
                     {"framework", "megatron"},
                     {"devices", "64"},
                     {"tp", "8"},
                     {"cp", "8"},
                     {"ep", "8"},
                     {"etp", "1"},
                     {"sequence_parallel", "true"},
                     {"zero", "1"},
                     {"recompute", "full"},
                     {"trainer", "grpo"},
                     {"completion_logits", "false"},
                     {"micro_batch", "1"},
                     {"grad_accum", "512"},
                     {"steps_per_generation", "512"},
                     {"num_generations", "32"},
                     {"max_prompt_length", "4096"},
                     {"max_completion_length", "104476"},
                     {"mean_completion_length", "5003"},
                     {"rollout_turns", "16"},
                     {"observation_tokens", "1500"},
                     {"environment_seconds", "10"},
                     {"rollout_engine", "server"},
                     {"vllm_server_devices", "64"},
                     {"vllm_tensor_parallel_size", "8"},
                     {"vllm_server_gpu_memory_utilization", "0.8"},
                     {"off_policy_steps", "1"}};
  const EstimateResult e = session().estimate(swe);
  // The sequence trained on is the page's maximum: 4,096 + 104,476 + 15 x 1,500.
  EXPECT_EQ(e.estimate.primary.layout.seq_len, 131072);
  const MachineEstimate& m = e.estimate.primary.machines.front();
  ASSERT_TRUE(m.rollout.has_value());
  EXPECT_EQ(m.rollout->observation_tokens, 22500);
  EXPECT_DOUBLE_EQ(m.rollout->environment.count(), 160.0);
  EXPECT_EQ(m.rollout->engines, 8);
  EXPECT_EQ(m.rollout->off_policy_steps, 1);
}

}  // namespace
}  // namespace tb::api
