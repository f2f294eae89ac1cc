// PPO's value and reward models (docs/rl.md, "PPO"), as TRL's PPOTrainer holds them
// (trl/experimental/ppo/ppo_trainer.py at f2cd577): the value model is a full model of its own
// (AutoModelForSequenceClassification, num_labels=1), wrapped with the policy in
// PolicyAndValueWrapper under one optimizer, so its states sit beside the policy's and its
// forward runs in every micro-batch's forward and backward; the reward model is frozen and
// prepared like the reference (ZeRO-3 when the job shards weights, a whole copy otherwise:
// models/utils.py prepare_deepspeed). verl and OpenRLHF run the same four roles with a vLLM
// engine generating; verl's reward is often a function (rollout.reward_function), no model.
#include "trainbudget/eval/rollout.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/model/score_head.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {
namespace {

// The job a critic would be on its own: its model (the policy's with a score head when none is
// given), fully trained, supervised.
TrainingJob critic_job(const TrainingJob& job, const ModelSource& given) {
  TrainingJob c = job;
  c.model = given.architecture ? given : with_score_head(job.model);
  const ModelSource& model = c.model;
  c.params = static_cast<double>(model.counts->total);
  c.method = Method::kFull;
  c.objective = Objective::kSft;
  c.lora = LoraSpec{};
  c.value_model = ModelSource{};
  c.reward_model = ModelSource{};
  return c;
}

}  // namespace

CriticCost ppo_critics(const TrainingJob& job, const Recipe& recipe, const Layout& layout,
                       const ClusterProfile& cluster) {
  CriticCost out;
  const TrainingJob value = critic_job(job, job.value_model);
  const StepCost v = evaluate(make_profile(value, recipe), layout, cluster);
  out.value_params = value.params;
  out.value_states = v.states;
  out.value_gradients = v.gradients;
  out.value_activations = v.saved;
  out.value_forward = v.time.forward;
  out.value_step = v.time.step;

  // A reward function (verl's rule-based reward) loads and runs no model.
  if (job.rollout.reward_function) return out;
  const TrainingJob reward = critic_job(job, job.reward_model);
  const StepCost r = evaluate(make_profile(reward, recipe), layout, cluster);
  out.reward_params = reward.params;
  const double shards = layout.zero_stage >= 3 ? static_cast<double>(layout.zero_shards()) : 1.0;
  out.reward_weights = Bytes{reward.params * recipe.frozen_weight_bytes / shards};
  out.reward_forward = r.time.forward;
  return out;
}

}  // namespace tb
