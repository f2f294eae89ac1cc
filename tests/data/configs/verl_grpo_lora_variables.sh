#!/usr/bin/env bash
# A verl GRPO LoRA run whose sizes are shell variables, in the form of verl's
# examples/tuning/*/*_grpo-lora_*.sh (written here): plain, exported, braced, defaulted and
# $(( )) arithmetic values are resolved; the date is a command substitution and stays unresolved.
export CUDA_VISIBLE_DEVICES=0,1
NOW=$(date +%Y%m%d)
MODEL_PATH=Qwen/Qwen2.5-7B-Instruct
export ADV="grpo"

nproc_per_gpu=16 # 64 ran, 128 ran out of memory
nnodes=1
ngpu_per_node=2
total_procs=$(( nproc_per_gpu * nnodes * ngpu_per_node ))
mini_batch_size=$(( total_procs ))

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=${ADV} \
    data.train_batch_size=${total_procs} \
    data.max_prompt_length=512 \
    data.max_response_length=$((512 * 2)) \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.model.lora_rank=32 \
    actor_rollout_ref.model.lora_alpha=32 \
    actor_rollout_ref.model.target_modules=all-linear \
    actor_rollout_ref.actor.ppo_mini_batch_size=${mini_batch_size} \
    actor_rollout_ref.actor.ppo_micro_batch_size=${mini_batch_size} \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=${ngpu_per_node} \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.25 \
    actor_rollout_ref.rollout.n=5 \
    trainer.experiment_name=run-${NOW} \
    trainer.n_gpus_per_node=$ngpu_per_node \
    trainer.nnodes=${nnodes:-1} $@
