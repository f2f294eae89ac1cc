// torchtune's PPO recipe configs (recipes/ppo_full_finetune_single_device.py and its configs,
// torchtune at bd2a0fc) read as --trainer ppo (docs/configs.md, "torchtune").
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/rollout.hpp"

namespace tb::api::config_detail {
namespace {

// A whole number above 0, else 0.
std::int64_t count_of(const json& v) {
  return v.is_number_integer() && v.get<std::int64_t>() > 0 ? v.get<std::int64_t>() : 0;
}

// The loss (torchtune.rlhf.loss.PPOLoss), the KL penalty's coefficient (the reference runs
// whatever it is), sampling, reward shaping and GAE change no memory or time; the three extra
// checkpointers load the reference, value and reward weights.
constexpr std::array<std::string_view, 14> kPpoBookkeeping{"loss",
                                                           "kl_coeff",
                                                           "temperature",
                                                           "top_k",
                                                           "min_response_length",
                                                           "penalise_no_eos",
                                                           "reward_penalty",
                                                           "stop_token_ids",
                                                           "whiten_rewards",
                                                           "gamma",
                                                           "lmbda",
                                                           "ref_policy_checkpointer",
                                                           "value_checkpointer",
                                                           "reward_checkpointer"};

}  // namespace

bool torchtune_ppo_key(const std::string& key) {
  constexpr std::array<std::string_view, 11> kRead{"policy_model",
                                                   "reward_and_value_model",
                                                   "batch_size",
                                                   "ppo_batch_size",
                                                   "gradient_accumulation_steps",
                                                   "ppo_epochs",
                                                   "max_generated_tokens",
                                                   "num_steps",
                                                   "tokenizer",
                                                   "forward_batch_size",
                                                   "enable_kv_cache"};
  return one_of(key, kRead) || one_of(key, kPpoBookkeeping);
}

void read_torchtune_ppo(const json& cfg, const std::string& policy_preset, Reader& r) {
  TrainingConfig& out = r.out;
  out.values["trainer"] = "ppo";
  out.mapped.push_back("(policy_model, a PPO recipe) -> trainer");
  // The recipe collects batch_size trajectories (generated forward_batch_size at a time), then
  // for each of ppo_epochs takes ppo_batch_size of them per optimizer step, in
  // gradient_accumulation_steps backward passes of ppo_batch_size / gradient_accumulation_steps
  // (its _ppo_backward_batch_size): TRL's PPOTrainer's shape, so micro_batch, grad_accum and
  // steps_per_generation as --trainer ppo counts them, and ppo_epochs as num_iterations.
  const std::int64_t batch = count_of(cfg.value("batch_size", json()));
  const std::int64_t mini = count_of(cfg.value("ppo_batch_size", json()));
  const json accum_v = cfg.value("gradient_accumulation_steps", json(1));
  const std::int64_t accum = count_of(accum_v);
  if (batch > 0 && mini > 0 && accum > 0 && mini % accum == 0 && batch % mini == 0) {
    const std::int64_t micro = mini / accum;
    out.values["micro_batch"] = std::to_string(micro);
    out.values["grad_accum"] = std::to_string(accum);
    out.values["steps_per_generation"] = std::to_string(batch / micro);
    out.mapped.push_back(
        "batch_size, ppo_batch_size, gradient_accumulation_steps -> micro_batch, grad_accum, "
        "steps_per_generation");
  } else {
    r.unknown(fmt::format(
        "batch_size={}, ppo_batch_size={}, gradient_accumulation_steps={} (torchtune asserts "
        "that each divides the one before it)",
        excerpt(text_of(cfg.value("batch_size", json()))),
        excerpt(text_of(cfg.value("ppo_batch_size", json()))), excerpt(text_of(accum_v))));
  }
  if (cfg.contains("ppo_epochs")) r.set("num_iterations", cfg["ppo_epochs"], "ppo_epochs");
  if (cfg.contains("max_generated_tokens")) {
    r.set("max_completion_length", cfg["max_generated_tokens"], "max_generated_tokens");
  }
  // num_steps counts trajectories: num_steps / batch_size rounds (the recipe's _total_steps),
  // each batch_size / ppo_batch_size optimizer steps a pass over it.
  if (const std::int64_t trajectories = count_of(cfg.value("num_steps", json()));
      trajectories > 0 && batch > 0 && mini > 0 && batch % mini == 0 && trajectories >= batch) {
    out.values["steps"] = std::to_string(trajectories / batch * (batch / mini));
    out.mapped.push_back(
        "num_steps (trajectories) / batch_size x batch_size / ppo_batch_size -> steps");
  } else if (cfg.contains("num_steps")) {
    r.unknown(fmt::format("num_steps={} (torchtune's trajectories, at least batch_size)",
                          excerpt(text_of(cfg["num_steps"]))));
  }
  // The tokenizer truncates each prompt to max_seq_len; the trained sequence is prompt +
  // generation.
  const json tokenizer = cfg.value("tokenizer", json::object());
  if (tokenizer.is_object() && tokenizer.contains("max_seq_len")) {
    r.set("max_prompt_length", tokenizer["max_seq_len"], "tokenizer.max_seq_len");
  } else if (cfg.contains("tokenizer")) {
    r.none("tokenizer");
  }
  // The value and reward models: one classifier (torchtune.modules.classifier_model, a score
  // head of num_classes outputs) over the base builder it names; the estimate's default for
  // both is the policy's architecture with a one-output score head.
  if (cfg.contains("reward_and_value_model")) {
    const json& m = cfg["reward_and_value_model"];
    const std::string base = m.is_object() ? text_at(m, "base_model_path", "") : "";
    const std::string builder = base.substr(base.rfind('.') + 1);
    const bool classifier = m.is_object() &&
                            text_at(m, "_component_", "") == "torchtune.modules.classifier_model" &&
                            text_at(m, "num_classes", "") == "1";
    // Or the generic llama2_classifier with the policy's own dimensions (torchtune_llama2.cpp).
    const bool generic =
        m.is_object() &&
        text_at(m, "_component_", "") == "torchtune.models.llama2.llama2_classifier" &&
        text_at(m, "num_classes", "") == "1" &&
        torchtune_llama2_config(m) == std::optional{policy_preset};
    if (generic || (classifier && !policy_preset.empty() &&
                    torchtune_preset(builder) == std::string_view{policy_preset})) {
      out.mapped.push_back(
          "reward_and_value_model (a one-output classifier on the policy's builder) -> "
          "value_model, reward_model (their default, the policy's architecture)");
    } else {
      r.unknown(
          fmt::format("reward_and_value_model={} (a value and reward model other than a "
                      "one-output classifier on the policy's builder: give "
                      "value_model and reward_model)",
                      excerpt(base.empty() ? text_of(m) : base)));
    }
  }
  // Generation: the estimate's PPO decodes TRL's chunks of 64 rollouts with a KV cache.
  if (cfg.contains("forward_batch_size")) {
    if (count_of(cfg["forward_batch_size"]) == kPpoRolloutChunk) {
      r.none("forward_batch_size");
    } else {
      r.unknown(
          fmt::format("forward_batch_size={} (torchtune generates and scores that many "
                      "trajectories at once; the estimate's PPO takes TRL's {})",
                      excerpt(text_of(cfg["forward_batch_size"])), kPpoRolloutChunk));
    }
  }
  if (cfg.contains("enable_kv_cache")) {
    if (r.flag(cfg["enable_kv_cache"])) {
      r.none("enable_kv_cache");
    } else {
      r.unknown("enable_kv_cache=False (generation recomputing every position: not modelled)");
    }
  }
  for (const std::string_view key : kPpoBookkeeping) {
    if (cfg.contains(key)) r.none(std::string{key});
  }
}

}  // namespace tb::api::config_detail
