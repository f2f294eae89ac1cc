// verl's RL trainer config (docs/configs.md, "verl"): the PPO-trainer YAML a run resolves
// (verl/trainer/config/_generated_ppo_trainer.yaml at b178a3c, Hydra's .hydra/config.yaml of a
// run), or a YAML of the dotted overrides a run script passes (actor_rollout_ref.rollout.n: 8),
// read as the online RL fields it means. verl's own defaults stand for the keys a file leaves
// out; every other key is listed by section, nothing is dropped silently.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "verl_reader.hpp"

namespace tb::api::config_detail {
namespace {

// The advantage estimators onto trainers: GRPO's step (G completions a prompt, no critic), RLOO's,
// and GAE's critic as PPO's value model. Every estimator but GAE runs without a critic
// (trainer/ppo/utils.py need_critic) and computes its advantages from the rewards alone
// (trainer/ppo/core_algos.py at b178a3c: OPO, GPG, pass@k GRPO, the optimal token baselines and
// the vectorized forms), so it costs GRPO's step; ReMax also generates a greedy response a prompt
// for its baseline (ray_trainer.py), not priced, so refused.
std::string trainer_of(const std::string& estimator) {
  for (const std::string_view grpo :
       {"grpo", "reinforce_plus_plus", "reinforce_plus_plus_baseline", "opo", "grpo_passk", "gpg",
        "grpo_vectorized", "optimal_token_baseline", "tir_optimal_token_baseline"}) {
    if (estimator == grpo) return "grpo";
  }
  // ReMax: a baseline from a greedy completion per prompt (greedy_baseline, read_verl) instead of
  // the group's mean; the step is GRPO's.
  if (estimator == "remax") return "grpo";
  if (estimator == "rloo" || estimator == "rloo_vectorized") return "rloo";
  // GAE: a critic (the value model) trained beside the actor, PPO's four roles.
  if (estimator == "gae") return "ppo";
  return "";
}

// The FSDP actor: transformers' model (flash_attention_2 unless overridden, fsdp_workers.py)
// under FSDP over every GPU, its adapters, checkpointing and offload.
void read_fsdp_actor(VerlReader& r, std::int64_t gpus) {
  r.set("framework", "hf", "actor_rollout_ref.actor.strategy (transformers' model)");
  // The actor's parameters in model_dtype (fp32 unless set), computed in bf16 (fsdp_workers.py).
  const std::string model_dtype = r.text("actor_rollout_ref.actor.fsdp_config.model_dtype", "fp32");
  if (model_dtype == "fp32" || model_dtype == "float32") {
    r.set("recipe", "fsdp-fp32-params",
          "actor_rollout_ref.actor.fsdp_config.model_dtype (fp32, verl's default for the actor)");
  }
  const std::string attention =
      r.text("actor_rollout_ref.model.override_config.attn_implementation", "flash_attention_2");
  r.set("attention", attention == "eager" ? "eager" : "flash",
        "actor_rollout_ref.model.override_config.attn_implementation");
  if (gpus > 1) r.set("zero", "3", "actor_rollout_ref.actor.strategy (FSDP full shard)");
  const std::int64_t rank =
      static_cast<std::int64_t>(r.number("actor_rollout_ref.model.lora_rank", 0));
  if (rank > 0) {
    r.set("method", "lora", "actor_rollout_ref.model.lora_rank");
    r.set("lora_rank", std::to_string(rank), "actor_rollout_ref.model.lora_rank");
    r.set("lora_targets", r.text("actor_rollout_ref.model.target_modules", "all-linear"),
          "actor_rollout_ref.model.target_modules");
  }
  r.set("recompute",
        r.flag("actor_rollout_ref.model.enable_gradient_checkpointing", true) ? "full" : "none",
        "actor_rollout_ref.model.enable_gradient_checkpointing");
  // Padding removed (HFModelConfig's default): the actor's and the reference's passes run on the
  // responses unpadded (dp_actor.py, `if self.use_remove_padding`); without it, on every
  // response padded to response_length.
  r.set("pack_sequences",
        r.flag("actor_rollout_ref.model.use_remove_padding", true) ? "true" : "false",
        "actor_rollout_ref.model.use_remove_padding");
  if (r.flag("actor_rollout_ref.model.use_liger", false)) {
    r.set("use_liger_kernel", "true", "actor_rollout_ref.model.use_liger");
  }
  // verl moves the actor's parameters and optimizer states to the host after each phase and
  // back before the next (fsdp_workers.py: offload_fsdp_model_to_cpu / load_fsdp_model_to_gpu,
  // offload_fsdp_optimizer / load_fsdp_optimizer), not layer by layer as FSDP's CPUOffload does:
  // the update runs with them on the device. Parameters without the optimizer's states are
  // counted with them.
  const bool params = r.flag("actor_rollout_ref.actor.fsdp_config.param_offload", false);
  if (params) {
    r.set("offload_between_phases", "params",
          "actor_rollout_ref.actor.fsdp_config.param_offload (between phases)");
  } else if (r.flag("actor_rollout_ref.actor.fsdp_config.optimizer_offload", false)) {
    r.set("offload_between_phases", "optimizer",
          "actor_rollout_ref.actor.fsdp_config.optimizer_offload (between phases)");
  }
  if (r.count("actor_rollout_ref.actor.ulysses_sequence_parallel_size", 1) > 1) {
    r.unmodelled(
        "actor_rollout_ref.actor.ulysses_sequence_parallel_size (Ulysses sequence parallelism "
        "is not modelled: counted as 1)");
  }
}

}  // namespace

// verl at b178a3c: verl/trainer/config/_generated_ppo_trainer.yaml for the defaults,
// verl/workers/fsdp_workers.py for the batch arithmetic (ppo_mini_batch_size x rollout.n over the
// data-parallel ranks), verl/trainer/ppo/ray_trainer.py for the phases (old log-probs recomputed
// every step unless algorithm.rollout_correction.bypass_mode; the reference when use_kl_loss or
// use_kl_in_reward, the actor with its adapters off under LoRA).
void read_verl(const json& cfg, TrainingConfig& out) {
  VerlReader r{cfg, out};
  const std::string estimator = r.text("algorithm.adv_estimator", "gae");
  const std::string trainer = trainer_of(estimator);
  if (trainer.empty()) {
    throw VerlReader::bad(
        "algorithm.adv_estimator", fmt::format("'{}' is not modelled", excerpt(estimator)),
        "gae|grpo|rloo|remax|reinforce_plus_plus|reinforce_plus_plus_baseline|opo|"
        "grpo_passk|gpg|grpo_vectorized|rloo_vectorized|optimal_token_baseline|"
        "tir_optimal_token_baseline");
  }
  r.set("trainer", trainer, "algorithm.adv_estimator");
  // ReMax: GRPO's step, with the greedy baseline's generation (ray_trainer.py, gen_max).
  if (estimator == "remax") r.set("greedy_baseline", "true", "algorithm.adv_estimator (remax)");
  // ppo_megatron_trainer.yaml (a script's --config-name, an overlay's defaults) sets the actor's
  // strategy to megatron; ppo_trainer.yaml to fsdp.
  const std::string strategy =
      r.text("actor_rollout_ref.actor.strategy", megatron_defaults(cfg) ? "megatron" : "fsdp");
  if (strategy != "fsdp" && strategy != "fsdp2" && strategy != "megatron") {
    throw VerlReader::bad("actor_rollout_ref.actor.strategy",
                          fmt::format("'{}' is not modelled", excerpt(strategy)),
                          "fsdp|fsdp2|megatron");
  }
  const bool megatron = strategy == "megatron";
  if (const json* path = r.at("actor_rollout_ref.model.path")) {
    r.set("model", text_of(*path), "actor_rollout_ref.model.path");
  }

  // Devices and the batch: a step generates data.train_batch_size prompts x rollout.n
  // completions over every GPU, and trains on them in mini-batches of ppo_mini_batch_size
  // prompts (one optimizer step each), ppo_epochs times.
  const std::int64_t gpus = r.count("trainer.n_gpus_per_node", 8) * r.count("trainer.nnodes", 1);
  r.set("devices", std::to_string(gpus), "trainer.n_gpus_per_node x trainer.nnodes");
  // Megatron's batch splits over the data-parallel ranks, tp x pp x cp GPUs each
  // (workers/megatron_workers.py normalises ppo_mini_batch_size by the dp size).
  const std::int64_t model_parallel = megatron ? read_megatron_layout(r, gpus) : 1;
  const std::int64_t devices = gpus / model_parallel;
  const std::int64_t n = r.count("actor_rollout_ref.rollout.n", 1);
  r.set("num_generations", std::to_string(n), "actor_rollout_ref.rollout.n");
  const std::int64_t prompt = r.count("data.max_prompt_length", 512);
  const std::int64_t response = r.count("data.max_response_length", 512);
  r.set("max_prompt_length", std::to_string(prompt), "data.max_prompt_length");
  r.set("max_completion_length", std::to_string(response), "data.max_response_length");
  const std::int64_t batch = r.count("data.train_batch_size", 1024) * n;
  const std::int64_t mini = r.count("actor_rollout_ref.actor.ppo_mini_batch_size", 256) * n;
  if (batch % devices != 0 || mini % devices != 0 || batch % mini != 0) {
    throw VerlReader::bad(
        "data.train_batch_size",
        fmt::format("x rollout.n = {} completions a step, in mini-batches of {}, does not split "
                    "over {} data-parallel ranks",
                    batch, mini, devices),
        "train_batch_size a multiple of ppo_mini_batch_size, both x n a multiple of the "
        "data-parallel ranks");
  }
  // DAPO's dynamic sampling (recipe/dapo's trainer; main_ppo's dataloader takes the same key,
  // ppo/ray_trainer.py): each generation batch of data.gen_batch_size prompts, the groups whose
  // rewards all agree dropped (algorithm.filter_groups) until train_batch_size remain. How many
  // such batches a step takes is the run's (num_gen_batches): one is priced.
  if (r.at("data.gen_batch_size") != nullptr) {
    const double generated = static_cast<double>(r.count("data.gen_batch_size", 1));
    r.set("generation_batch_multiplier",
          text_of(std::max(1.0, generated * static_cast<double>(n) / static_cast<double>(batch))),
          "data.gen_batch_size / data.train_batch_size");
  }
  (void)r.flag("algorithm.filter_groups.enable", false);
  std::int64_t micro = 0;
  std::string micro_from = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu";
  if (r.flag("actor_rollout_ref.actor.use_dynamic_bsz", false)) {
    // Token-budget micro-batches: as many whole sequences as ppo_max_token_len_per_gpu holds.
    const std::int64_t budget = r.count("actor_rollout_ref.actor.ppo_max_token_len_per_gpu", 16384);
    micro = std::max<std::int64_t>(1, budget / (prompt + response));
    micro_from = "actor_rollout_ref.actor.ppo_max_token_len_per_gpu / (prompt + response)";
  } else if (r.at(micro_from) != nullptr) {
    micro = r.count(micro_from, 1);
  } else if (r.at("actor_rollout_ref.actor.ppo_micro_batch_size") != nullptr) {
    micro = std::max<std::int64_t>(
        1, r.count("actor_rollout_ref.actor.ppo_micro_batch_size", 1) / devices);
    micro_from = "actor_rollout_ref.actor.ppo_micro_batch_size / GPUs";
  } else {
    throw VerlReader::bad(micro_from, "is not set (verl needs it unless use_dynamic_bsz)",
                          "a micro-batch of completions per GPU");
  }
  const std::int64_t mini_per_device = mini / devices;
  micro = std::min(micro, mini_per_device);
  if (r.flag("actor_rollout_ref.actor.use_dynamic_bsz", false) && mini_per_device % micro != 0) {
    // verl splits a mini-batch into ceil(tokens / budget) micro-batches of unequal counts
    // (utils/seqlen_balancing.py rearrange_micro_batches: no divisibility asked). Equal
    // micro-batches within the budget: its largest divisor that the budget holds.
    const std::int64_t held = micro;
    while (mini_per_device % micro != 0) --micro;
    micro_from = fmt::format(
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu / (prompt + response) = {} at the "
        "longest, the largest divisor of the {} completions a GPU's mini-batch holds (verl's "
        "token-budget micro-batches differ in count)",
        held, mini_per_device);
  }
  if (mini_per_device % micro != 0) {
    throw VerlReader::bad(micro_from,
                          fmt::format("{} does not divide the {} completions of a mini-batch on "
                                      "each GPU",
                                      micro, mini_per_device),
                          "a divisor of ppo_mini_batch_size x n / GPUs");
  }
  r.set("micro_batch", std::to_string(micro), micro_from);
  r.set("grad_accum", std::to_string(mini_per_device / micro),
        "actor_rollout_ref.actor.ppo_mini_batch_size x n / GPUs / micro-batch");
  r.set("steps_per_generation", std::to_string(batch / devices / micro),
        "data.train_batch_size x n / GPUs / micro-batch");
  r.set("num_iterations", std::to_string(r.count("actor_rollout_ref.actor.ppo_epochs", 1)),
        "actor_rollout_ref.actor.ppo_epochs");
  if (r.at("trainer.total_training_steps") != nullptr) {
    const double tokens = static_cast<double>(r.count("trainer.total_training_steps", 1)) *
                          static_cast<double>(batch * (prompt + response));
    r.set("tokens", fmt::format("{:.0f}", tokens),
          "trainer.total_training_steps x train_batch_size x n x (prompt + response)");
  }

  // The rollout: verl's hybrid engine colocates vLLM (or SGLang or TensorRT-LLM, priced as vLLM)
  // with the actor, asleep while the actor trains when free_cache_engine (TensorRT-LLM's rollout
  // releases and resumes its memory the same way: verl/workers/rollout/trtllm_rollout/
  // trtllm_async_rollout.md at b178a3c, "hybrid engine colocate mode ... resume()/release()").
  if (r.at("actor_rollout_ref.rollout.name") == nullptr) {
    out.unknown.push_back(
        "actor_rollout_ref.rollout.name (not set; verl requires it: vllm assumed)");
  }
  const std::string engine = r.text("actor_rollout_ref.rollout.name", "vllm");
  if (engine == "hf") {
    r.set("rollout_engine", "generate", "actor_rollout_ref.rollout.name");
  } else if (engine == "vllm" || engine == "sglang" || engine == "trtllm") {
    const bool off = one_step_off_defaults(cfg);
    if (off) {
      // The one-step off-policy trainer: the rollout on devices of its own (rollout.nnodes x
      // rollout.n_gpus_per_node, one_step_off_ppo_trainer.yaml's 1 x 8) generating the next
      // batch while the actor trains on the last (docs/advance/one_step_off.md: "step =
      // wait_prev_gen + old_log_prob + update_actor"); its cache stays (free_cache_engine must be
      // False there).
      const std::string entry = "verl/experimental/one_step_off_policy/main_ppo.py";
      r.set("rollout_engine", "server", entry);
      r.set("off_policy_steps", "1", entry);
      const std::int64_t server =
          r.count("rollout.n_gpus_per_node", 8) * r.count("rollout.nnodes", 1);
      r.set("vllm_server_devices", std::to_string(server),
            "rollout.n_gpus_per_node x rollout.nnodes");
      r.set("vllm_server_gpu_memory_utilization",
            text_of(r.number("actor_rollout_ref.rollout.gpu_memory_utilization", 0.5)),
            "actor_rollout_ref.rollout.gpu_memory_utilization");
      (void)r.flag("actor_rollout_ref.rollout.free_cache_engine", false);
    } else {
      r.set("rollout_engine", "colocate", "actor_rollout_ref.rollout.name");
      r.set("vllm_gpu_memory_utilization",
            text_of(r.number("actor_rollout_ref.rollout.gpu_memory_utilization", 0.5)),
            "actor_rollout_ref.rollout.gpu_memory_utilization");
      r.set("vllm_enable_sleep_mode",
            r.flag("actor_rollout_ref.rollout.free_cache_engine", true) ? "true" : "false",
            "actor_rollout_ref.rollout.free_cache_engine");
    }
    r.set("vllm_tensor_parallel_size",
          std::to_string(r.count("actor_rollout_ref.rollout.tensor_model_parallel_size", 2)),
          "actor_rollout_ref.rollout.tensor_model_parallel_size");
    // The actor's forward computes logits over the whole (packed) sequence and slices the
    // response's log-probs after (workers/actor/dp_actor.py: `[:, -response_length - 1 : -1]`).
    r.set("completion_logits", "false",
          "verl's actor (logits over prompt and response, the response's log-probs sliced)");
    // ray_trainer.py recomputes the old policy's log-probs for every batch unless bypassed; the
    // one-step off-policy config bypasses by default (the rollout's own log-probs,
    // calculate_log_probs True).
    const bool bypass = r.flag("algorithm.rollout_correction.bypass_mode", off);
    r.set("vllm_importance_sampling_correction", bypass ? "false" : "true",
          "algorithm.rollout_correction.bypass_mode (verl recomputes old log-probs unless set)");
  } else {
    throw VerlReader::bad("actor_rollout_ref.rollout.name",
                          fmt::format("'{}' is not modelled", excerpt(engine)),
                          "vllm|sglang|trtllm|hf");
  }

  // The reference: loaded for a KL loss or a KL reward.
  const bool kl_loss = r.flag("actor_rollout_ref.actor.use_kl_loss", false);
  const bool kl_reward = r.flag("algorithm.use_kl_in_reward", false);
  const double coef = kl_loss ? r.number("actor_rollout_ref.actor.kl_loss_coef", 0.001)
                              : r.number("algorithm.kl_ctrl.kl_coef", 0.001);
  if (kl_loss || kl_reward) {
    r.set("beta", text_of(coef > 0.0 ? coef : 0.001),
          kl_loss ? "actor_rollout_ref.actor.use_kl_loss, kl_loss_coef"
                  : "algorithm.use_kl_in_reward, kl_ctrl.kl_coef");
  } else {
    r.set("beta", "0", "actor_rollout_ref.actor.use_kl_loss, algorithm.use_kl_in_reward (off)");
  }

  if (megatron) {
    read_megatron_actor(r);
  } else {
    read_fsdp_actor(r, gpus);
  }
  if (trainer == "ppo") {
    // PPO (gae): the critic, a value model of its own (critic.model.path; the actor's
    // architecture with a score head by default), and the reward: a model's forward
    // (reward_model.enable, reward_model.model.path) or a function of the response (verl's
    // rule-based reward, no model).
    const std::string actor = r.text("actor_rollout_ref.model.path", "");
    const std::string critic = r.text("critic.model.path", actor);
    if (!critic.empty() && critic != actor) r.set("value_model", critic, "critic.model.path");
    if (r.flag("reward_model.enable", false)) {
      const std::string reward = r.text("reward_model.model.path", "");
      if (!reward.empty()) r.set("reward_model", reward, "reward_model.model.path");
    } else {
      r.set("reward_model", "function", "reward_model.enable (off: verl's rule-based reward)");
    }
  } else if (r.flag("reward_model.enable", false)) {
    out.unknown.push_back(
        "reward_model.enable (a reward model's forward is not priced for grpo or rloo)");
  }
  r.list_the_rest();
}

}  // namespace tb::api::config_detail
