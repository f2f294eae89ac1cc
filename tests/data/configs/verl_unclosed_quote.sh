#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    trainer.logger='["console"] \
    trainer.n_gpus_per_node=8
