// Training-job names and validation.
#include "trainbudget/spec/job.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parse_named.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {

Method parse_method(std::string_view text) {
  if (const auto m = enum_from_name<Method>(text)) return *m;
  throw InvalidRequest(
      "method",
      fmt::format("unknown method '{}'{}", excerpt(text), did_you_mean(text, names_of<Method>())),
      enum_choices<Method>());
}

JobKind parse_job_kind(std::string_view text) {
  if (const auto k = enum_from_name<JobKind>(text)) return *k;
  throw InvalidRequest(
      "job_kind",
      fmt::format("unknown kind '{}'{}", excerpt(text), did_you_mean(text, names_of<JobKind>())),
      enum_choices<JobKind>());
}

int rows_per_example(Objective objective) noexcept {
  switch (objective) {
    case Objective::kDpo:
    case Objective::kIpo:
    case Objective::kOrpo:
    case Objective::kSimpo:
    case Objective::kCpo:
    case Objective::kRm:
      return 2;
    case Objective::kSft:
    case Objective::kKto:
    case Objective::kGrpo:
    case Objective::kRloo:
    case Objective::kPpo:
      return 1;
  }
  return 1;
}

bool reference_forward(const TrainingJob& job) noexcept {
  // GRPO and RLOO load a reference only for a KL term (TRL: "If 0.0, the reference model is not
  // loaded").
  // TRL's PPOTrainer (generate()) always does: it computes the reference's log-probs every
  // batch, whatever kl_coef (trl/experimental/ppo/ppo_trainer.py at f2cd577: ref_model, or the
  // policy with its adapters disabled under PEFT). PPO with a vLLM engine (verl, OpenRLHF) loads
  // it for a KL term only (verl: use_kl_loss or use_kl_in_reward; OpenRLHF: init_kl_coef > 0).
  if (job.objective == Objective::kPpo) {
    return job.rollout.engine == RolloutEngine::kGenerate || job.rollout.beta > 0.0;
  }
  if (online_rl(job.objective)) return job.rollout.beta > 0.0;
  return job.objective == Objective::kDpo || job.objective == Objective::kIpo ||
         job.objective == Objective::kKto;
}

bool reference_on_host(const TrainingJob& job) noexcept {
  if (!online_rl(job.objective) || !reference_forward(job) || uses_adapters(job.method)) {
    return false;
  }
  return job.rollout.reference_on_host.value_or(job.setup.framework == Framework::kMegatron);
}

bool reference_weights(const TrainingJob& job) noexcept {
  return reference_forward(job) && !job.precompute_ref_log_probs && !uses_adapters(job.method) &&
         !reference_on_host(job);
}

JobKind job_kind(const TrainingJob& job) noexcept {
  if (job.kind) return *job.kind;
  // Preference and RL objectives tune a trained model.
  if (job.objective != Objective::kSft) return JobKind::kFineTuning;
  return job.method == Method::kFull && job.tokens >= kPretrainingTokensPerParam * job.params
             ? JobKind::kPretraining
             : JobKind::kFineTuning;
}

void validate(const TrainingJob& job) {
  const auto positive_finite = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!positive_finite(job.params)) {
    throw InvalidRequest("params", fmt::format("{} must be a positive finite count", job.params));
  }
  if (!positive_finite(job.tokens)) {
    throw InvalidRequest("tokens", fmt::format("{} must be a positive finite count", job.tokens));
  }
  if (!std::isfinite(job.trainable_fraction) || job.trainable_fraction <= 0.0 ||
      job.trainable_fraction > 1.0) {
    throw InvalidRequest("trainable_fraction",
                         fmt::format("{} is out of range", job.trainable_fraction), "(0, 1]");
  }
  if (job.utilization &&
      (!std::isfinite(*job.utilization) || *job.utilization <= 0.0 || *job.utilization > 1.0)) {
    throw InvalidRequest("utilization", fmt::format("{} is out of range", *job.utilization),
                         "(0, 1]");
  }
  if (job.devices < 1) {
    throw InvalidRequest("devices", fmt::format("{} must be at least 1", job.devices));
  }
  if (job.zero_stage < 0 || job.zero_stage > 3) {
    throw InvalidRequest("zero", fmt::format("{} is not a ZeRO stage", job.zero_stage), "0|1|2|3");
  }
  (void)find_recipe(job.recipe_id);  // throws naming the recipe field
  if (job.lora.rank < 1) {
    throw InvalidRequest("lora_rank", fmt::format("{} must be at least 1", job.lora.rank));
  }
  validate(job.setup);
}

TrainingSetup job_setup(const TrainingJob& job, std::int64_t max_positions) {
  TrainingSetup out = resolved_setup(job.setup, max_positions);
  if (online_rl(job.objective) && !job.setup.logits_dtype) {
    // Under transformers' Trainer, accelerate's native AMP wraps the model's forward in
    // convert_outputs_to_fp32 (accelerator.py, prepare_model: `if self.native_amp`), so TRL's
    // log-softmax gets fp32 logits; DeepSpeed's engine keeps its own precision (native_amp off).
    const bool accelerate_amp = out.framework == Framework::kHf && job.recipe_id != "deepspeed";
    out.logits_dtype = accelerate_amp ? LogitsDtype::kFp32 : LogitsDtype::kActivation;
  }
  // TRL's GRPOTrainer with use_liger_kernel computes its loss with Liger's chunked fused-linear
  // GRPO loss (grpo_trainer.py: LigerFusedLinearGRPOLoss, compute_liger_loss): the logits are
  // computed row by row and never kept whole, a linear cross-entropy's footprint.
  if (job.objective == Objective::kGrpo && out.framework == Framework::kHf && out.liger &&
      !job.setup.loss) {
    out.loss = LossSpec{LossImpl::kLinear, 1};
  }
  return out;
}

}  // namespace tb
