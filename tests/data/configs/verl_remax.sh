#!/usr/bin/env bash
# A verl run whose advantage estimator trainbudget does not model (ReMax: a greedy baseline
# rollout beside the sampled ones).
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=remax \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=8
