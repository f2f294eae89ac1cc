#!/usr/bin/env bash
# A verl DAPO run in the form of its recipe scripts: generation batches of gen_batch_size prompts,
# the groups whose rewards agree filtered out; TensorRT-LLM as the colocated rollout engine.
set -euo pipefail

train_prompt_bsz=32
gen_prompt_bsz=$((train_prompt_bsz * 3))

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=${train_prompt_bsz} \
    data.gen_batch_size=${gen_prompt_bsz} \
    data.max_prompt_length=1024 \
    data.max_response_length=2048 \
    algorithm.filter_groups.enable=True \
    algorithm.filter_groups.max_num_gen_batches=10 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.rollout.name=trtllm \
    actor_rollout_ref.rollout.n=16 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1
