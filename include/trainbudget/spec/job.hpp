// What the user wants to train: the inputs of an estimate, validated at construction.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/lora_spec.hpp"
#include "trainbudget/spec/model_source.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/rollout.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

// full: every weight trained. lora: adapters on a frozen 16-bit base. qlora: adapters on a base
// stored in NF4 (Dettmers et al. 2023). freeze: only the top fraction of the network trained.
enum class Method { kFull, kLora, kQlora, kFreeze };

template <>
struct EnumNames<Method> {
  static constexpr std::array<std::pair<Method, std::string_view>, 4> kNames{
      {{Method::kFull, "full"},
       {Method::kLora, "lora"},
       {Method::kQlora, "qlora"},
       {Method::kFreeze, "freeze"}}};
};

// "full" | "lora" | "qlora" | "freeze"; throws InvalidRequest naming the method field otherwise.
[[nodiscard]] Method parse_method(std::string_view text);

// What the training is for: training a model from scratch on a corpus, or adapting a trained one.
// It decides the words ("pretraining", "full fine-tune"), whether a LoRA alternative or a method
// change is offered, and the planner's default global batch.
enum class JobKind { kPretraining, kFineTuning };

template <>
struct EnumNames<JobKind> {
  static constexpr std::array<std::pair<JobKind, std::string_view>, 2> kNames{
      {{JobKind::kPretraining, "pretraining"}, {JobKind::kFineTuning, "fine-tuning"}}};
};

// The training objective, beside the method (the parameter-efficiency axis): supervised
// fine-tuning, a preference objective, or online RL with generated completions, as TRL names
// them (docs/rl.md). PPO (a value and a reward model) is not modelled yet.
enum class Objective { kSft, kDpo, kIpo, kKto, kOrpo, kSimpo, kCpo, kRm, kGrpo, kRloo, kPpo };

template <>
struct EnumNames<Objective> {
  static constexpr std::array<std::pair<Objective, std::string_view>, 11> kNames{
      {{Objective::kSft, "sft"},
       {Objective::kDpo, "dpo"},
       {Objective::kIpo, "ipo"},
       {Objective::kKto, "kto"},
       {Objective::kOrpo, "orpo"},
       {Objective::kSimpo, "simpo"},
       {Objective::kCpo, "cpo"},
       {Objective::kRm, "rm"},
       {Objective::kGrpo, "grpo"},
       {Objective::kRloo, "rloo"},
       {Objective::kPpo, "ppo"}}};
};

// "pretraining" | "fine-tuning"; throws InvalidRequest naming the job_kind field otherwise.
[[nodiscard]] JobKind parse_job_kind(std::string_view text);

// Tokens per parameter from which a full-method job is pretraining when the kind is not given:
// one. Pretraining runs at tens to hundreds (Chinchilla's compute-optimal 20, Hoffmann et al.
// 2022, Table 3; Llama 3 8B at 15T tokens, about 1,900); fine-tunes run a small fraction (the
// seed's 1e9 tokens on 7e9 parameters is 0.14), and continued pretraining of a 70B on 1T tokens
// (14) is pretraining for every decision here (batch, no adapters).
inline constexpr double kPretrainingTokensPerParam = 1.0;

// Published model-FLOPs utilization of large runs, for the views' words: 38-43 % for Llama 3
// 405B on H100 (Dubey et al. 2024, Table 4), 41-48 % for Megatron-Core on H100 (Megatron-LM
// README), 46.2 % for PaLM (Chowdhery et al. 2022). The estimate models its own (docs/scale.md);
// --utilization replaces the model with the user's figure.
inline constexpr double kPublishedMfuLow = 0.38;
inline constexpr double kPublishedMfuHigh = 0.56;

// LoRA's trainable share when only a parameter count is known: the seed document's "2 %".
inline constexpr double kDefaultTrainableFraction = 0.02;

struct TrainingJob {
  double params{7e9};  // parameters of the base model
  ModelSource model;   // where `params` came from; an architecture with --model
  double tokens{1e9};  // training tokens (all epochs)
  Method method{Method::kFull};
  // Given by the user; nullopt: job_kind() derives it.
  std::optional<JobKind> kind;
  // lora: adapter parameters as a fraction of `params` (added on top of the frozen base);
  // freeze: the fraction of `params` that is trained (the rest is frozen below it).
  double trainable_fraction{kDefaultTrainableFraction};
  // lora/qlora with an architecture: exact adapters (rank, targets) instead of the fraction.
  LoraSpec lora;
  QloraOptions qlora;
  // A full fine-tune's GaLore rank (model/galore.hpp): Adam's moments of each attention and MLP
  // weight kept in a rank-r projection of its gradient; 0: plain AdamW.
  std::int64_t galore_rank{0};
  std::string recipe_id{"amp-adam"};
  // The user's MFU, replacing the step-time model; nullopt: model the step (docs/scale.md).
  std::optional<double> utilization;
  int devices{1};
  Parallelism parallel;  // tp, pp, cp, ep, virtual stages, sequence parallel, offload
  // The cluster's terms that are not the device's: the node shape (a system id; empty: the
  // device's default system), a price replacing the catalog's, the facility's PUE, a GEMM
  // efficiency replacing the catalog's measured one, and the overlap of each collective.
  std::string system;
  std::optional<double> price_usd_per_hour;
  double pue{1.0};
  std::optional<double> gemm_efficiency;
  Overlap overlap;
  // ZeRO stage over the `devices` data-parallel ranks: 0 = plain data parallelism (a full
  // replica each), 1 = optimizer states, 2 = + gradients, 3 = + weights partitioned (FSDP's
  // FULL_SHARD is stage 3, SHARD_GRAD_OP stage 2).
  int zero_stage{0};
  // Micro-batch, sequence, attention, recompute, ...: used with an architecture only
  // (activations, peak memory, FLOPs from the architecture; docs/activations.md).
  TrainingSetup setup;
  // A preference objective (docs/rl.md): the micro-batch counts examples (pairs for DPO-style
  // objectives) and `tokens` every sequence's tokens, chosen and rejected alike.
  Objective objective{Objective::kSft};
  bool precompute_ref_log_probs{false};  // TRL's: reference log-probs computed once, before
  // Online RL (GRPO, RLOO): the micro-batch counts completions, each a prompt and its completion
  // (seq_len = max_prompt_length + max_completion_length), `tokens` all of theirs.
  RolloutSpec rollout;
  // PPO (TRL's PPOTrainer): the value model trained beside the policy and the reward model's
  // forward, each an AutoModelForSequenceClassification (a score head of one output); without
  // an architecture of their own they are the policy's (docs/rl.md, "PPO").
  ModelSource value_model;
  ModelSource reward_model;
  // The room a proposal (a fix, an advice line, a plan row) keeps under the allocatable memory,
  // as a fraction of its peak; nullopt: the band's high end or the reserved peak, whichever is
  // larger (eval/memory_margin.hpp).
  std::optional<double> headroom;
  // Host RAM per node, replacing the system's (a measured or given figure); nullopt: the
  // system's, else unknown (offload is then not checked against it).
  std::optional<Bytes> host_memory;
  // The share of wall-clock time spent training (failures, restarts, checkpoints); nullopt:
  // modeled (eval/goodput.hpp).
  std::optional<double> goodput;
};

// GRPO, RLOO or PPO: completions generated every step (eval/rollout.hpp).
[[nodiscard]] constexpr bool online_rl(Objective o) noexcept {
  return o == Objective::kGrpo || o == Objective::kRloo || o == Objective::kPpo;
}

// Rows one example puts through the model: 2 where chosen and rejected are concatenated into one
// batch (TRL DPOTrainer/ORPO/CPO concatenated_forward, SimPO through CPOTrainer), else 1.
[[nodiscard]] int rows_per_example(Objective objective) noexcept;
// Whether the job runs the reference model's forward over its tokens (DPO, IPO and KTO compare
// against a reference; ORPO, SimPO and CPO have none): in every step, or once before training
// with precompute_ref_log_probs (the same forward work over one pass of the data).
[[nodiscard]] bool reference_forward(const TrainingJob& job) noexcept;
// Whether the reference needs weights of its own on the device during training: a full or
// partly frozen policy needs a copy of the base; with LoRA/QLoRA the reference is the base with
// the adapters disabled (TRL: ref_model None under PEFT, null_ref_context); with precomputed
// log-probs it is gone before training starts; NeMo RL's keeps it on the host
// (reference_on_host).
[[nodiscard]] bool reference_weights(const TrainingJob& job) noexcept;
// Whether the reference's weights wait in host memory and are swapped into the policy for its
// pass (online RL, a full policy): RolloutSpec::reference_on_host where given, else under the
// megatron profile, as NeMo RL's Megatron policy keeps the reference state dict on the CPU and
// loads it over the policy's weights for the reference's log-probs, the policy's own saved to the
// host and loaded back after (nemo_rl/models/policy/workers/megatron_policy_worker.py,
// use_reference_model, v0.3.0 to v0.6.0).
[[nodiscard]] bool reference_on_host(const TrainingJob& job) noexcept;

// The job's setup with the framework's defaults filled in (resolved_setup) and the trainer's:
// online RL takes each token's log-prob with TRL's selective_log_softmax, which for bf16/fp16
// logits runs F.log_softmax row by row in their own dtype (trl/trainer/utils.py; the logsumexp
// path is for fp32 logits only), so its logits stay in the activation dtype unless given.
[[nodiscard]] TrainingSetup job_setup(const TrainingJob& job, std::int64_t max_positions);

// Throws InvalidRequest for a field out of range, naming its key.
void validate(const TrainingJob& job);

// The kind given, else pretraining for the full method at kPretrainingTokensPerParam tokens per
// parameter or more, else fine-tuning.
[[nodiscard]] JobKind job_kind(const TrainingJob& job) noexcept;

// LoRA or QLoRA: adapters on a frozen base.
[[nodiscard]] inline bool uses_adapters(Method m) {
  return m == Method::kLora || m == Method::kQlora;
}

}  // namespace tb
