#!/usr/bin/env bash
# A verl PPO run whose models sit under roots the script leaves to the user, in the form of verl's
# examples/ppo_trainer/run_qwen2-7b_rm.sh and grpo_trainer/run_qwen3-8b_npu.sh (written here):
# $HOME is unset, and MODEL_PATH defaults to a path under the unset RAY_DATA_HOME.
MODEL_PATH=${MODEL_PATH:-"${RAY_DATA_HOME}/models/Qwen2.5-3B-Instruct"}

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=gae \
    data.train_batch_size=256 \
    data.max_prompt_length=512 \
    data.max_response_length=512 \
    actor_rollout_ref.model.path=${MODEL_PATH} \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
    critic.model.path="$HOME/models/Qwen2.5-3B-Instruct" \
    critic.ppo_micro_batch_size_per_gpu=8 \
    reward_model.enable=True \
    reward_model.model.path="$HOME/models/Skywork-Reward-V2-Llama-3.2-3B" \
    reward_model.micro_batch_size_per_gpu=16 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 $@
