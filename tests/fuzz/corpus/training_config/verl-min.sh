python3 -m verl.trainer.main_ppo +actor_rollout_ref.rollout.n=2 algorithm.adv_estimator=rloo \
  actor_rollout_ref.actor.use_dynamic_bsz=true data.max_response_length=${LEN} # end
