// verl's run scripts and configs read as the fields they mean (docs/configs.md, "verl"): the
// shell words after verl.trainer.main_ppo, verl's batch arithmetic, and its defaults, against
// hand-derived values.
#include <gtest/gtest.h>

#include <string>

#include "config_notes.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

TrainingConfig read(const std::string& text) { return parse_training_config(text, "/nonexistent"); }

using testing_notes::listed;

// 64 prompts x 4 completions over 2 x 2 GPUs: 64 a GPU in micro-batches of 2 (32 per generation
// batch); mini-batches of 16 prompts x 4 over the 4 GPUs are 16 a GPU, 8 micro-batches a step.
TEST(VerlConfig, AScriptsOverridesAreItsFields) {
  const TrainingConfig c = read(
      "#!/usr/bin/env bash\n"
      "set -x\n"
      "python3 -m verl.trainer.main_ppo \\\n"
      "    algorithm.adv_estimator=grpo \\\n"
      "    +actor_rollout_ref.rollout.n=4 \\\n"
      "    data.train_batch_size=64 \\\n"
      "    actor_rollout_ref.actor.ppo_mini_batch_size=16 \\\n"
      "    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
      "    trainer.experiment_name='a run with spaces' \\\n"
      "    trainer.n_gpus_per_node=2 \\\n"
      "    trainer.nnodes=2 # two nodes\n"
      "echo trainer.nnodes=9\n");
  EXPECT_EQ(c.format, "verl");
  EXPECT_EQ(c.values.at("trainer"), "grpo");
  EXPECT_EQ(c.values.at("num_generations"), "4");
  EXPECT_EQ(c.values.at("devices"), "4");
  EXPECT_EQ(c.values.at("micro_batch"), "2");
  EXPECT_EQ(c.values.at("grad_accum"), "8");
  EXPECT_EQ(c.values.at("steps_per_generation"), "32");
  // verl's defaults where the script is silent: 512 + 512 tokens, the colocated vLLM at 0.5 of
  // the device, tp 2, asleep while training, old log-probs recomputed, no reference.
  EXPECT_EQ(c.values.at("max_prompt_length"), "512");
  EXPECT_EQ(c.values.at("rollout_engine"), "colocate");
  EXPECT_EQ(c.values.at("vllm_gpu_memory_utilization"), "0.5");
  EXPECT_EQ(c.values.at("vllm_tensor_parallel_size"), "2");
  EXPECT_EQ(c.values.at("vllm_enable_sleep_mode"), "true");
  EXPECT_EQ(c.values.at("vllm_importance_sampling_correction"), "true");
  EXPECT_EQ(c.values.at("beta"), "0");
  EXPECT_EQ(c.values.at("zero"), "3");
  EXPECT_TRUE(listed(c.no_effect, "trainer.experiment_name"));
  EXPECT_TRUE(listed(c.unknown, "rollout.name"));  // verl requires it; vllm assumed
}

// verl's FSDP actor: fp32 parameters computed in bf16 (model_dtype, fsdp_workers.py), logits over
// the whole sequence (dp_actor.py), and param_offload / optimizer_offload as moves between
// phases, not FSDP's layer-by-layer CPUOffload.
TEST(VerlConfig, TheActorsDtypeLogitsAndOffloadAreVerls) {
  const std::string head =
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
      "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 ";
  const TrainingConfig both = read(head +
                                   "actor_rollout_ref.actor.fsdp_config.param_offload=True "
                                   "actor_rollout_ref.actor.fsdp_config.optimizer_offload=True\n");
  EXPECT_EQ(both.values.at("recipe"), "fsdp-fp32-params");
  EXPECT_EQ(both.values.at("completion_logits"), "false");
  // HFModelConfig removes padding by default; without it every response is padded.
  EXPECT_EQ(both.values.at("pack_sequences"), "true");
  EXPECT_EQ(
      read(head + "actor_rollout_ref.model.use_remove_padding=False\n").values.at("pack_sequences"),
      "false");
  EXPECT_EQ(both.values.at("offload_between_phases"), "params");
  EXPECT_EQ(both.values.count("offload"), 0U);
  const TrainingConfig optimizer =
      read(head + "actor_rollout_ref.actor.fsdp_config.optimizer_offload=True\n");
  EXPECT_EQ(optimizer.values.at("offload_between_phases"), "optimizer");
  const TrainingConfig bf16 = read(head + "actor_rollout_ref.actor.fsdp_config.model_dtype=bf16\n");
  EXPECT_EQ(bf16.values.count("recipe"), 0U);
  EXPECT_EQ(bf16.values.count("offload_between_phases"), 0U);
}

TEST(VerlConfig, AShellVariableLeavesVerlsDefaultAndSaysSo) {
  const TrainingConfig c = read(
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=rloo "
      "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=$N "
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 && echo done\n");
  EXPECT_EQ(c.values.at("trainer"), "rloo");
  EXPECT_EQ(c.values.at("num_generations"), "1");  // verl's default
  EXPECT_TRUE(listed(c.unknown, "actor_rollout_ref.rollout.n (an unresolved"));
}

// A KL term loads the reference: the loss's coefficient, or the reward's.
TEST(VerlConfig, TheReferenceFollowsTheKlTerm) {
  const std::string base =
      "algorithm.adv_estimator: grpo\n"
      "actor_rollout_ref.rollout.name: vllm\n"
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n";
  EXPECT_EQ(read(base + "actor_rollout_ref.actor.use_kl_loss: true\n"
                        "actor_rollout_ref.actor.kl_loss_coef: 0.02\n")
                .values.at("beta"),
            "0.02");
  EXPECT_EQ(read(base + "algorithm.use_kl_in_reward: true\n").values.at("beta"), "0.001");
  // Under LoRA the actor with its adapters off is the reference (ref_in_actor): the method says so.
  const TrainingConfig lora = read(base + "actor_rollout_ref.model.lora_rank: 16\n");
  EXPECT_EQ(lora.values.at("method"), "lora");
  EXPECT_EQ(lora.values.at("lora_targets"), "all-linear");
}

// The Megatron actor (--config-name ppo_megatron_trainer): 1,024 prompts x 5 over 16 GPUs as
// tp 2 x pp 2, so 4 data-parallel ranks; a rank's 1,280 completions in micro-batches of 4 are 320,
// its mini-batch of 256 x 5 / 4 = 320 is 80 of them. The distributed optimizer is ZeRO-1, the
// recompute none unless override_transformer_config sets it, and a defaulted variable whose
// default names another resolves as bash resolves it.
TEST(VerlConfig, TheMegatronActorSplitsOverItsDataParallelRanks) {
  const TrainingConfig c = read(
      "EP=${EP:-$COMMON_EP}\n"
      "COMMON_EP=4\n"
      "ACTOR_EP=${ACTOR_EP:-$COMMON_EP}\n"
      "python3 -m verl.trainer.main_ppo --config-path=config \\\n"
      "    --config-name ppo_megatron_trainer \\\n"
      "    algorithm.adv_estimator=grpo \\\n"
      "    actor_rollout_ref.rollout.n=5 \\\n"
      "    data.train_batch_size=1024 \\\n"
      "    actor_rollout_ref.actor.ppo_mini_batch_size=256 \\\n"
      "    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\\n"
      "    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \\\n"
      "    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 \\\n"
      "    actor_rollout_ref.actor.megatron.expert_model_parallel_size=${ACTOR_EP} \\\n"
      "    trainer.n_gpus_per_node=8 \\\n"
      "    trainer.nnodes=2\n");
  EXPECT_EQ(c.values.at("framework"), "megatron");
  EXPECT_EQ(c.values.at("devices"), "16");
  EXPECT_EQ(c.values.at("tp"), "2");
  EXPECT_EQ(c.values.at("pp"), "2");
  EXPECT_EQ(c.values.at("ep"), "4");
  EXPECT_EQ(c.values.at("sequence_parallel"), "true");
  EXPECT_EQ(c.values.at("zero"), "1");
  EXPECT_EQ(c.values.at("recompute"), "none");
  EXPECT_EQ(c.values.at("micro_batch"), "4");
  EXPECT_EQ(c.values.at("grad_accum"), "80");
  EXPECT_EQ(c.values.at("steps_per_generation"), "320");
  EXPECT_EQ(c.values.at("offload_between_phases"), "none");
  EXPECT_FALSE(c.values.contains("recipe"));
  // The reference is a module on the device (megatron_workers.py), not NeMo RL's swapped state
  // dict; on the host between its passes only with its own param_offload.
  EXPECT_EQ(c.values.at("reference_on_host"), "false");
  EXPECT_EQ(c.values.at("grad_accumulation_kernel"), "add");  // Megatron-Core's default
  EXPECT_EQ(c.values.at("pipeline_pads_packs"), "false");     // variable_seq_lengths
}

// Overrides grouped in bash arrays, as verl's newer examples write them (DATA=( ... ) and
// "${DATA[@]}" in the command): each array's words, quoted parts and comments as bash reads them;
// an array the script does not set gives nothing. The Megatron actor's adapters go on every
// linear by verl's default (linear_qkv, linear_proj, linear_fc1, linear_fc2), or on those named.
TEST(VerlConfig, ArraysOfOverridesAreTheirWords) {
  const std::string head =
      "n=5\n"
      "DATA=(\n"
      "    data.train_batch_size=64 # prompts\n"
      "    data.max_response_length=\"$((1024 * 2))\"\n"
      ")\n"
      "ACTOR=(\n"
      "    # actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=99\n"
      "    actor_rollout_ref.actor.ppo_mini_batch_size=16 actor_rollout_ref.rollout.n=$n\n"
      "    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2'\n"
      "    actor_rollout_ref.model.lora.rank=8\n"
      ")\n";
  const std::string command =
      "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\\n"
      "    algorithm.adv_estimator=grpo \"${DATA[@]}\" \\\n"
      "    \"${ACTOR[@]}\" \"${UNSET[@]}\" \\\n"
      "    trainer.n_gpus_per_node=4 \"$@\"\n";
  const TrainingConfig c = read(head + command);
  EXPECT_EQ(c.values.at("num_generations"), "5");
  EXPECT_EQ(c.values.at("max_completion_length"), "2048");
  EXPECT_EQ(c.values.at("micro_batch"), "2");
  EXPECT_EQ(c.values.at("grad_accum"), "10");            // 16 x 5 / 4 GPUs / 2
  EXPECT_EQ(c.values.at("steps_per_generation"), "40");  // 64 x 5 / 4 / 2
  EXPECT_EQ(c.values.at("lora_targets"), "q,k,v,o,gate,up,down");
  const TrainingConfig some =
      read(head +
           "TARGETS=(\n    actor_rollout_ref.model.lora.target_modules='[linear_qkv,linear_proj]'\n"
           ")\n" +
           command.substr(0, command.size() - 1) + " \"${TARGETS[@]}\"\n");
  EXPECT_EQ(some.values.at("lora_targets"), "q,k,v,o");
  const TrainingConfig ref_offload =
      read(head + "REF=(\n    actor_rollout_ref.ref.megatron.param_offload=True\n)\n" +
           command.substr(0, command.size() - 1) + " \"${REF[@]}\"\n");
  EXPECT_EQ(ref_offload.values.at("reference_on_host"), "true");
  EXPECT_THROW(
      (void)read(head + "X=(\n actor_rollout_ref.model.lora.target_modules='[router]'\n)\n" +
                 command.substr(0, command.size() - 1) + " \"${X[@]}\"\n"),
      InvalidRequest);
  // An array never closed: nothing after it is read as a variable, and no word of it reaches
  // the command.
  EXPECT_THROW((void)read("A=(\n  data.train_batch_size=64\n" + command), InvalidRequest);
}

// verl's token-budget micro-batches need not divide a GPU's mini-batch
// (rearrange_micro_batches): 24,000 tokens hold 15 sequences of 512 + 1,024, and the largest
// divisor of the 160 completions a GPU's mini-batch holds (256 x 5 / 8) within that is 10.
TEST(VerlConfig, TokenBudgetMicroBatchesNeedNotDivide) {
  const TrainingConfig c = read(
      "algorithm.adv_estimator: grpo\n"
      "actor_rollout_ref.rollout.n: 5\n"
      "data.max_prompt_length: 512\n"
      "data.max_response_length: 1024\n"
      "actor_rollout_ref.actor.ppo_mini_batch_size: 256\n"
      "actor_rollout_ref.actor.use_dynamic_bsz: true\n"
      "actor_rollout_ref.actor.ppo_max_token_len_per_gpu: 24000\n");
  EXPECT_EQ(c.values.at("micro_batch"), "10");
  EXPECT_EQ(c.values.at("grad_accum"), "16");
}

// Every estimator but GAE runs without a critic and advantages from the rewards alone: GRPO's
// step (GPG, OPO, the optimal token baseline) or RLOO's; ReMax GRPO's with its greedy baseline's
// generation; an estimator verl does not have is refused.
TEST(VerlConfig, CriticFreeEstimatorsCostGrposStep) {
  const std::string rest = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n";
  for (const char* e : {"gpg", "opo", "grpo_passk", "optimal_token_baseline"}) {
    EXPECT_EQ(read(std::string{"algorithm.adv_estimator: "} + e + "\n" + rest).values.at("trainer"),
              "grpo")
        << e;
  }
  EXPECT_EQ(read("algorithm.adv_estimator: rloo_vectorized\n" + rest).values.at("trainer"), "rloo");
  const TrainingConfig remax = read("algorithm.adv_estimator: remax\n" + rest);
  EXPECT_EQ(remax.values.at("trainer"), "grpo");
  EXPECT_EQ(remax.values.at("greedy_baseline"), "true");
  EXPECT_THROW((void)read("algorithm.adv_estimator: remix\n" + rest), InvalidRequest);
}

TEST(VerlConfig, WhatItCannotPriceIsRefused) {
  EXPECT_THROW((void)read("actor_rollout_ref.rollout.name: vllm\n"), InvalidRequest);  // gae
  EXPECT_THROW((void)read("algorithm.adv_estimator: grpo\n"
                          "actor_rollout_ref.actor.strategy: deepspeed\n"
                          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n"),
               InvalidRequest);
  // Megatron's tp x pp x cp must divide the GPUs.
  EXPECT_THROW((void)read("algorithm.adv_estimator: grpo\n"
                          "actor_rollout_ref.actor.strategy: megatron\n"
                          "actor_rollout_ref.actor.megatron.tensor_model_parallel_size: 3\n"
                          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n"),
               InvalidRequest);
  // No micro-batch and no token budget: verl itself refuses.
  EXPECT_THROW((void)read("algorithm.adv_estimator: grpo\n"), InvalidRequest);
  // A micro-batch that does not divide the mini-batch on each GPU.
  EXPECT_THROW((void)read("algorithm.adv_estimator: grpo\n"
                          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 3\n"),
               InvalidRequest);
  // An engine no profile prices.
  EXPECT_THROW((void)read("algorithm.adv_estimator: grpo\n"
                          "actor_rollout_ref.rollout.name: lmdeploy\n"
                          "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n"),
               InvalidRequest);
}

// TensorRT-LLM's rollout (examples/grpo_trainer/run_qwen2-7b_math_trtllm.sh at b178a3c):
// colocated, releasing its memory while the actor trains, priced as vLLM.
TEST(VerlConfig, TensorRtLlmRolloutIsColocatedAsVllmIs) {
  const TrainingConfig c = read(
      "algorithm.adv_estimator: grpo\n"
      "actor_rollout_ref.rollout.name: trtllm\n"
      "actor_rollout_ref.rollout.gpu_memory_utilization: 0.6\n"
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4\n");
  EXPECT_EQ(c.values.at("rollout_engine"), "colocate");
  EXPECT_EQ(c.values.at("vllm_gpu_memory_utilization"), "0.6");
  EXPECT_EQ(c.values.at("vllm_enable_sleep_mode"), "true");
}

// verl's one-step off-policy trainer (verl/experimental/one_step_off_policy at b178a3c, its
// shell/dapo_7b_math_fsdp2_4_12.sh in short): the rollout on devices of its own, a step ahead;
// the trainer's devices are trainer.*, the server's rollout.*, and the old log-probs are the
// rollout's own unless bypass_mode is turned off.
TEST(VerlConfig, OneStepOffPolicyRunsTheRolloutOnItsOwnDevices) {
  const std::string script =
      "NNODES=2\nn_gpus_rollout=2\nn_gpus_training=$((8 - n_gpus_rollout))\n"
      "python3 -m verl.experimental.one_step_off_policy.main_ppo \\\n"
      "    algorithm.adv_estimator=grpo data.train_batch_size=48 \\\n"
      "    actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.ppo_mini_batch_size=12 \\\n"
      "    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \\\n"
      "    actor_rollout_ref.rollout.name=vllm actor_rollout_ref.hybrid_engine=False \\\n"
      "    actor_rollout_ref.rollout.gpu_memory_utilization=0.80 \\\n"
      "    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\\n"
      "    trainer.nnodes=\"${NNODES}\" trainer.n_gpus_per_node=\"${n_gpus_training}\" \\\n"
      "    rollout.nnodes=\"${NNODES}\" rollout.n_gpus_per_node=\"${n_gpus_rollout}\"\n";
  const TrainingConfig c = read(script);
  EXPECT_EQ(c.values.at("rollout_engine"), "server");
  EXPECT_EQ(c.values.at("off_policy_steps"), "1");
  EXPECT_EQ(c.values.at("devices"), "12");             // 2 nodes x 6
  EXPECT_EQ(c.values.at("vllm_server_devices"), "4");  // 2 nodes x 2
  EXPECT_EQ(c.values.at("vllm_server_gpu_memory_utilization"), "0.8");
  EXPECT_EQ(c.values.at("vllm_tensor_parallel_size"), "2");
  EXPECT_EQ(c.values.at("vllm_importance_sampling_correction"), "false");
  EXPECT_EQ(c.values.count("vllm_enable_sleep_mode"), 0U);
  // Its Megatron twin names both the trainer and the Megatron actor.
  std::string megatron = script;
  megatron.replace(megatron.find("main_ppo") + 8, 0,
                   " --config-name=one_step_off_ppo_megatron_trainer");
  const TrainingConfig m = read(megatron);
  EXPECT_EQ(m.values.at("rollout_engine"), "server");
  EXPECT_EQ(m.values.at("framework"), "megatron");
}

// DAPO's dynamic sampling (recipe/dapo, tests/special_e2e/run_dapo.sh at b178a3c in short):
// generation batches of gen_batch_size prompts for a step of train_batch_size.
TEST(VerlConfig, DapoGenerationBatchIsGenBatchSizeOverTrainBatchSize) {
  const std::string script =
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
      "    data.train_batch_size=32 data.gen_batch_size=96 \\\n"
      "    algorithm.filter_groups.enable=True actor_rollout_ref.rollout.n=16 \\\n"
      "    actor_rollout_ref.actor.ppo_mini_batch_size=32 \\\n"
      "    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
      "    actor_rollout_ref.rollout.name=vllm trainer.n_gpus_per_node=8\n";
  const TrainingConfig c = read(script);
  EXPECT_EQ(c.values.at("generation_batch_multiplier"), "3");
  EXPECT_FALSE(listed(c.unknown, "filter_groups"));
  // Without gen_batch_size, no field.
  const TrainingConfig plain = read(
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=32 "
      "actor_rollout_ref.rollout.n=16 actor_rollout_ref.actor.ppo_mini_batch_size=32 "
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm "
      "trainer.n_gpus_per_node=8\n");
  EXPECT_EQ(plain.values.count("generation_batch_multiplier"), 0U);
}

}  // namespace
}  // namespace tb::api
