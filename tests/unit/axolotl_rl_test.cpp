// axolotl's online RL in --config (issue 41): rl grpo and ebft with the trl section, as axolotl's
// code hands them to TRL's GRPOConfig (src/axolotl at 067b021c8: core/trainers/grpo/__init__.py,
// core/builders/rl.py, core/trainers/ebft/trainer.py; docs/configs.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

TrainingConfig read(const std::string& text) { return parse_training_config(text, "/none"); }

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// EBFT's structured mode (examples/ebft/qwen35-4b-ebft-structured.yaml, abridged): GRPO on a vLLM
// server, the trl section's lengths and generations, the frozen feature network priced as a
// reference model's forward; sequence_len is not GRPO's length (axolotl drops max_length).
TEST(AxolotlRl, EbftStructuredIsGrpoWithItsFeatureNetwork) {
  const TrainingConfig c = read(
      "base_model: qwen3.5-4b\nrl: ebft\nebft:\n  feature_layers: [0.25, 0.5, 0.75]\n"
      "trl:\n  num_generations: 4\n  max_completion_length: 256\n  temperature: 0.7\n"
      "  use_vllm: true\n  vllm_server_port: 8000\n  epsilon: 0.2\n  odd_key: 1\n"
      "sequence_len: 1024\nmicro_batch_size: 1\ngradient_accumulation_steps: 4\n");
  EXPECT_EQ(c.values.at("trainer"), "grpo");
  EXPECT_EQ(c.values.at("rollout_engine"), "server");
  EXPECT_EQ(c.values.at("num_generations"), "4");
  EXPECT_EQ(c.values.at("max_completion_length"), "256");
  EXPECT_EQ(c.values.at("beta"), "1");
  EXPECT_FALSE(c.values.contains("seq_len"));
  EXPECT_TRUE(has(c.no_effect, "sequence_len (not applied under online RL)"));
  EXPECT_TRUE(has(c.no_effect, "trl.temperature"));
  EXPECT_TRUE(has(c.mapped, "trl.num_generations -> num_generations"));
  EXPECT_TRUE(has(c.unknown, "trl.odd_key"));
  EXPECT_FALSE(has(c.unknown, "trl"));
}

// rl: grpo with a colocated engine and a KL term: the engine's pool read, beta as given.
TEST(AxolotlRl, GrpoReadsTheEngineAndBeta) {
  const TrainingConfig c = read(
      "base_model: qwen3.5-4b\nrl: grpo\ntrl:\n  beta: 0.04\n  use_vllm: true\n"
      "  vllm_mode: colocate\n  vllm_gpu_memory_utilization: 0.5\n");
  EXPECT_EQ(c.values.at("rollout_engine"), "colocate");
  EXPECT_EQ(c.values.at("beta"), "0.04");
  EXPECT_EQ(c.values.at("vllm_gpu_memory_utilization"), "0.5");
  // Without use_vllm the policy generates, and the pool's share is not read.
  const TrainingConfig g =
      read("base_model: qwen3.5-4b\nrl: grpo\ntrl:\n  vllm_gpu_memory_utilization: 0.5\n");
  EXPECT_EQ(g.values.at("rollout_engine"), "generate");
  EXPECT_FALSE(g.values.contains("vllm_gpu_memory_utilization"));
}

// EBFT's strided mode generates inside the trainer: not modelled, so refused in one line naming the
// key, not read as the supervised loss (until December 2026 it answered as SFT, another job), as
// is an rl value axolotl does not have. GDPO is GRPO's trainer with its rewards normalized apart.
TEST(AxolotlRl, WhatItCannotTrainIsRefusedNotReadAsSft) {
  try {
    (void)read("base_model: qwen3.5-4b\nrl: ebft\nebft:\n  mode: strided\nsequence_len: 2048\n");
    ADD_FAILURE() << "accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_NE(std::string{e.what()}.find("ebft.mode 'strided'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read("base_model: qwen3.5-4b\nrl: ppo\n"), InvalidRequest);
  const TrainingConfig g = read("base_model: qwen3.5-4b\nrl: gdpo\ntrl:\n  num_generations: 4\n");
  EXPECT_EQ(g.values.at("trainer"), "grpo");
  EXPECT_EQ(g.values.at("num_generations"), "4");
}

}  // namespace
}  // namespace tb::api
