#!/usr/bin/env bash
# A verl GRPO run on the Megatron actor, in the form of verl's
# examples/grpo_trainer/run_qwen2-7b_math_megatron.sh and run_qwen3moe-30b_megatron_96gb.sh
# (written here): Hydra's --config-name picks ppo_megatron_trainer, the layout's sizes are
# defaulted variables whose defaults name other variables.
COMMON_TP=${COMMON_TP:-2}
COMMON_PP=${COMMON_PP:-2}
ACTOR_TP=${ACTOR_TP:-$COMMON_TP}
ACTOR_PP=${ACTOR_PP:-$COMMON_PP}

python3 -m verl.trainer.main_ppo --config-path=config \
    --config-name='ppo_megatron_trainer.yaml' \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    data.max_prompt_length=512 \
    data.max_response_length=1024 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=${ACTOR_TP} \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=${ACTOR_PP} \
    actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
    actor_rollout_ref.rollout.n=5 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 $@
