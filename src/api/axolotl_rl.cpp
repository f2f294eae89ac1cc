// axolotl's online RL in --config: `rl: grpo` and `rl: ebft` with the `trl` section, as axolotl's
// own code hands them to TRL (src/axolotl at 067b021c8: core/trainers/grpo/__init__.py,
// set_training_args_kwargs; core/builders/rl.py for beta; core/trainers/ebft/trainer.py).
#include <fmt/format.h>

#include <array>
#include <string_view>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// trl keys that change neither memory nor time here: sampling, the loss's clipping and scaling,
// rewards, logging, the server's address, the reference's resync.
constexpr std::array<std::string_view, 22> kTrlBookkeeping{"temperature",
                                                           "top_p",
                                                           "top_k",
                                                           "min_p",
                                                           "repetition_penalty",
                                                           "epsilon",
                                                           "epsilon_high",
                                                           "scale_rewards",
                                                           "loss_type",
                                                           "log_completions",
                                                           "num_completions_to_print",
                                                           "reward_funcs",
                                                           "reward_weights",
                                                           "mask_truncated_completions",
                                                           "vllm_server_host",
                                                           "vllm_server_port",
                                                           "vllm_server_timeout",
                                                           "vllm_guided_decoding_regex",
                                                           "generation_kwargs",
                                                           "chat_template_kwargs",
                                                           "sync_ref_model",
                                                           "importance_sampling_level"};

}  // namespace

namespace {

// EBFT's mode: "structured" (GRPOTrainer with feature-matching rewards) unless ebft.mode says
// "strided" (rollouts generated inside the trainer with block masks, ebft/strided.py).
std::string ebft_mode(const json& cfg) {
  const auto ebft = cfg.find("ebft");
  return ebft != cfg.end() && ebft->is_object() ? text_at(*ebft, "mode", "structured")
                                                : "structured";
}

}  // namespace

bool axolotl_online_rl(const json& cfg) {
  const std::string rl = text_at(cfg, "rl", "");
  return rl == "grpo" || rl == "gdpo" || (rl == "ebft" && ebft_mode(cfg) == "structured");
}

// GDPO runs GRPO's trainer with each reward normalized apart before the sum
// (core/builders/rl.py: multi_objective_aggregation normalize_then_sum): GRPO's step.
void read_axolotl_online_rl(const json& cfg, const std::string& rl, TrainingConfig& out) {
  if (rl == "ebft" && ebft_mode(cfg) != "structured") {
    throw InvalidRequest(
        "config",
        fmt::format("axolotl key ebft.mode '{}' (rollouts inside the trainer) is not modelled",
                    excerpt(ebft_mode(cfg))),
        "structured");
  }
  out.values["trainer"] = fmt::format("grpo");
  out.mapped.push_back(rl == "ebft"   ? "rl (ebft: GRPO with feature-matching rewards) -> trainer"
                       : rl == "gdpo" ? "rl (gdpo: GRPO's trainer, rewards normalized apart) -> "
                                        "trainer"
                                      : "rl -> trainer");
  const json& trl =
      cfg.contains("trl") && cfg.at("trl").is_object() ? cfg.at("trl") : json::object();
  // use_vllm false: the policy's generate(); true: vllm_mode, TRL's "server" by default.
  const bool vllm =
      trl.contains("use_vllm") && trl.at("use_vllm").is_boolean() && trl.at("use_vllm").get<bool>();
  const std::string engine = vllm ? text_at(trl, "vllm_mode", "server") : "generate";
  out.values["rollout_engine"] = engine;
  out.mapped.emplace_back("trl.use_vllm, trl.vllm_mode -> rollout_engine");
  for (const auto& item : trl.items()) {
    const std::string& key = item.key();
    const json& v = item.value();
    const std::size_t before = out.mapped.size();
    if (read_grpo_key(key, v, engine, out)) {
      if (out.mapped.size() > before) out.mapped.back() = fmt::format("trl.{}", out.mapped.back());
    } else if (key == "vllm_enable_sleep_mode" || one_of(key, kTrlBookkeeping)) {
      out.no_effect.push_back(fmt::format("trl.{}", key));
    } else {
      out.unknown.push_back(fmt::format("trl.{}", key));
    }
  }
  if (!trl.contains("beta") && cfg.contains("rl_beta") && given(cfg.at("rl_beta"))) {
    out.values["beta"] = text_of(cfg.at("rl_beta"));
    out.mapped.emplace_back("rl_beta -> beta");
  }
  const auto beta = out.values.find("beta");
  const bool no_beta =
      beta == out.values.end() || beta->second.find_first_not_of("0.") == std::string::npos;
  if (rl == "ebft" && no_beta) {
    // The frozen feature network (EBFTMixin: the adapters disabled under PEFT, else a deep copy)
    // runs a forward over every completion, as a reference model does: priced as one (beta > 0).
    out.values["beta"] = fmt::format("{}", 1);
    out.mapped.emplace_back("ebft (its frozen feature network's forward) -> beta");
  }
}

// axolotl's reward_model: AxolotlRewardTrainer, TRL's RewardTrainer, on pairs through a score head
// (core/builders/causal.py; the examples load AutoModelForSequenceClassification with
// num_labels 1). A process reward model scores every step's token (TRL's PRMTrainer): not
// modelled.
bool read_axolotl_reward(const json& cfg, const std::string& key, const json& v, Reader& r) {
  if (key == "reward_model" || key == "process_reward_model") {
    if (r.flag(v) && key == "reward_model") {
      r.out.values["trainer"] = "rm";
      r.out.mapped.push_back("reward_model -> trainer");
    } else if (r.flag(v)) {
      r.unknown(fmt::format("{}=true (a token classifier's training: not modelled)", key));
    } else {
      r.none(key);
    }
    return true;
  }
  if (key == "num_labels") {
    // The score head's outputs: one for a reward model (trainer rm's head).
    const auto rm = cfg.find("reward_model");
    if (rm != cfg.end() && r.flag(*rm) && v.is_number_integer() && v.get<std::int64_t>() == 1) {
      r.none(key);
    } else {
      r.unknown(fmt::format("{}={}", key, excerpt(text_of(v))));
    }
    return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
