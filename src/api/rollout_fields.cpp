// The online RL rows of the estimate's field table (GRPO, RLOO, PPO; docs/rl.md): TRL's
// GRPOConfig names, so a user copies them from their config (PPOConfig's response_length and
// num_ppo_epochs are max_completion_length and num_iterations here). Each applies to the online
// RL trainers only (request.cpp says so when one is given with another trainer).
#include <fmt/format.h>

#include <array>
#include <regex>
#include <string>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parse_named.hpp"
#include "trainbudget/spec/quantity_parse.hpp"
#include "trainbudget/spec/rollout.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::flag;
using checks::text;
using checks::whole;

std::string generations() { return "1..1024 completions per prompt"; }
std::string lengths() { return "1..1048576 tokens"; }
std::string betas() { return "a number >= 0 (0: no reference model)"; }
std::string iterations() { return "1..64"; }
std::string generation_steps() { return "1..4096 micro-batches"; }
std::string engines() { return enum_choices<RolloutEngine>(); }
std::string shares() { return "(0, 1]"; }
std::string tp_sizes() { return "1..64"; }
std::string server_devices() { return "1..4096"; }
std::string off_policy() { return "0..64"; }
std::string multipliers() { return "a number in [1, 64]"; }
std::string batch_counts() { return "1..64 generation batches"; }
std::string turn_counts() { return "1..1024 turns"; }
std::string observation_lengths() { return "0..1048576 tokens"; }
std::string environment_waits() { return "a number of seconds in [0, 86400]"; }
std::string vllm_precisions() { return "bf16|fp8"; }
std::string models() { return "a config.json, a folder or a preset id"; }
std::string reward_models() { return "a config.json, a folder, a preset id, or function"; }
std::string versions() { return "a vLLM release, MAJOR.MINOR[.PATCH] (0.7.0, 0.11.2)"; }

// A release as pip prints it (0.7.0, 0.6.3.post1, v0.11.2): its major and minor numbers.
std::array<int, 2> vllm_release(V v) {
  const std::string t = text(v, "vllm_version", "a vLLM release");
  static const std::regex kRelease(R"(^v?([0-9]{1,3})\.([0-9]{1,3})(\.[0-9A-Za-z.+-]*)?$)");
  std::smatch m;
  if (!std::regex_match(t, m, kRelease)) {
    throw InvalidRequest("vllm_version", fmt::format("'{}' is not a release number", excerpt(t)),
                         versions());
  }
  return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

const std::array kRolloutFields{
    Field{"num_generations", FieldType::kInteger, "G", "completions per prompt", "8",
          "grpo, rloo: completions sampled per prompt (TRL num_generations; ppo samples one); "
          "{micro_batch} counts completions",
          generations,
          [](V v, R r) { r.job.rollout.num_generations = whole(v, "num_generations", 1024); },
          "job"},
    Field{
        "max_prompt_length", FieldType::kInteger, "TOKENS", "tokens", "512",
        "grpo, rloo, ppo: prompt tokens per completion; the sequence trained on is prompt + "
        "completion, so {seq_len} is set by these two",
        lengths,
        [](V v, R r) { r.job.rollout.max_prompt_length = whole(v, "max_prompt_length", 1048576); },
        "job"},
    Field{"max_completion_length", FieldType::kInteger, "TOKENS", "tokens", "256",
          "grpo, rloo, ppo: the most tokens a completion generates (PPOConfig's "
          "response_length): decode runs this many steps, and the memory holds sequences this "
          "long",
          lengths,
          [](V v, R r) {
            r.job.rollout.max_completion_length = whole(v, "max_completion_length", 1048576);
          },
          "job"},
    Field{"mean_completion_length", FieldType::kInteger, "TOKENS", "tokens", "",
          "grpo, rloo, ppo: the completions' mean length as the run logs it (TRL "
          "completions/mean_length, verl response_length/mean); the cache follows it, and the "
          "log-prob passes and the update where pack_sequences; default: "
          "{max_completion_length}",
          lengths,
          [](V v, R r) {
            r.job.rollout.mean_completion_length = whole(v, "mean_completion_length", 1048576);
          },
          "job"},
    Field{"beta", FieldType::kNumber, "BETA", "", "0",
          "grpo, rloo, and ppo with a vLLM engine (verl, OpenRLHF): KL coefficient; above 0 a "
          "reference model is loaded (full fine-tunes: weights of its own) and its log-probs "
          "computed every generation batch (ppo under generate(), TRL's, always loads it)",
          betas, [](V v, R r) { r.job.rollout.beta = parse_number_in(v, "beta", 0.0, 1e6, true); },
          "job"},
    Field{"num_iterations", FieldType::kInteger, "MU", "updates per batch", "1",
          "grpo, rloo: times each generation batch is trained on (TRL num_iterations); above 1 "
          "the old policy's log-probs are computed once per batch. ppo: PPOConfig's "
          "num_ppo_epochs (default 4 there)",
          iterations,
          [](V v, R r) { r.job.rollout.num_iterations = whole(v, "num_iterations", 64); }, "job"},
    Field{"steps_per_generation", FieldType::kInteger, "N", "micro-batches", "",
          "grpo, rloo: micro-batches each generation batch feeds (TRL steps_per_generation); "
          "default {grad_accum}, one generation batch per optimizer step; more reuses a batch "
          "over several optimizer steps (and computes the old policy's log-probs); ppo: "
          "{grad_accum} x PPOConfig's num_mini_batches (OpenRLHF: rollout_batch_size x "
          "n_samples_per_prompt / micro_train_batch_size / devices)",
          generation_steps,
          [](V v, R r) {
            r.job.rollout.steps_per_generation = whole(v, "steps_per_generation", 4096);
          },
          "job"},
    Field{"vllm_importance_sampling_correction", FieldType::kChoice, "BOOL", "", "true",
          "colocate, server: TRL's importance-sampling correction between vLLM's and the "
          "trainer's log-probs (TRL >= 0.23, default true): the old policy's log-probs are "
          "computed for every generation batch; false for earlier TRL",
          accepted::booleans,
          [](V v, R r) {
            r.job.rollout.vllm_importance_sampling_correction =
                flag(v, "vllm_importance_sampling_correction");
          },
          "job"},
    Field{"rollout_engine", FieldType::kChoice, "ENGINE", "", "generate",
          "grpo, rloo (ppo: generate only): generate (the policy's own generate(), TRL's use_vllm "
          "False) | colocate "
          "(vLLM in each training process, TRL vllm_mode colocate) | server (a vLLM server on "
          "{vllm_server_devices} devices of its own)",
          engines,
          [](V v, R r) { r.job.rollout.engine = parse_named<RolloutEngine>("rollout_engine", v); },
          "job"},
    Field{"vllm_gpu_memory_utilization", FieldType::kNumber, "FRACTION", "of the device", "0.3",
          "colocate: the share of each device the vLLM engine takes for its weights and KV "
          "cache (TRL's default 0.3)",
          shares,
          [](V v, R r) {
            r.job.rollout.vllm_gpu_memory_utilization =
                parse_number_in(v, "vllm_gpu_memory_utilization", 0.0, 1.0, false);
          },
          "job"},
    Field{"vllm_tensor_parallel_size", FieldType::kInteger, "N", "devices", "1",
          "colocate, server: devices one vLLM engine spans", tp_sizes,
          [](V v, R r) {
            r.job.rollout.vllm_tensor_parallel_size =
                static_cast<int>(whole(v, "vllm_tensor_parallel_size", 64));
          },
          "job"},
    Field{
        "vllm_enable_sleep_mode", FieldType::kFlag, "", "", "",
        "colocate: the engine releases its pool (weights to the host, the KV cache dropped) "
        "while the policy trains",
        accepted::flags,
        [](V v, R r) { r.job.rollout.vllm_enable_sleep_mode = flag(v, "vllm_enable_sleep_mode"); },
        "job"},
    Field{"completion_logits", FieldType::kChoice, "BOOL", "", "",
          "grpo, rloo, ppo: true, the LM head computes logits for the completions' positions "
          "alone (TRL's GRPO and RLOO: logits_to_keep; their default); false, over prompt and "
          "completion (TRL's PPO, verl, NeMo RL; the default for ppo)",
          accepted::booleans,
          [](V v, R r) { r.job.rollout.completion_logits = flag(v, "completion_logits"); }, "job"},
    Field{"pack_sequences", FieldType::kChoice, "BOOL", "", "",
          "grpo, rloo, ppo: true, the log-prob passes and the update run on the completions "
          "unpadded, at mean_completion_length (NeMo RL's sequence_packing, verl's "
          "use_remove_padding); false, on the batch padded to its longest completion, priced at "
          "max_completion_length (TRL's trainers); default: true under megatron and generic, "
          "else false",
          accepted::booleans,
          [](V v, R r) { r.job.rollout.pack_sequences = flag(v, "pack_sequences"); }, "job"},
    Field{"offload_between_phases", FieldType::kChoice, "WHAT", "", "",
          "grpo, rloo, ppo: the actor's states wait in host memory while the engine generates "
          "and come back for the update, which runs with them on the device (verl's "
          "param_offload and optimizer_offload): none, optimizer (its states and master "
          "weights) or params (the weights too); priced as two moves over the host link a "
          "round; default: params for a colocated engine under megatron (NeMo RL), else none",
          accepted::offloads,
          [](V v, R r) {
            r.job.rollout.offload_between_phases =
                parse_named<Offload>("offload_between_phases", v);
          },
          "job"},
    Field{"reference_on_host", FieldType::kChoice, "BOOL", "", "",
          "grpo, rloo, ppo with beta > 0, full fine-tunes: true, the reference's weights wait in "
          "host memory and come onto the device for its pass, three moves of the device's "
          "16-bit weights a round (NeMo RL's use_reference_model); false, they sit on the "
          "device beside the policy's (verl's Megatron reference unless ref param_offload, "
          "TRL); default: true under megatron, else false",
          accepted::booleans,
          [](V v, R r) { r.job.rollout.reference_on_host = flag(v, "reference_on_host"); }, "job"},
    Field{"pipeline_pads_packs", FieldType::kChoice, "BOOL", "", "",
          "grpo, rloo, ppo with packed passes under pp > 1: true, every pack is padded to the "
          "batch's longest, the pipeline passing one shape between stages (NeMo RL); false, each "
          "runs at its own length (Megatron-Core's variable_seq_lengths, which verl sets); "
          "default: true under megatron, else false",
          accepted::booleans,
          [](V v, R r) { r.job.rollout.pipeline_pads_packs = flag(v, "pipeline_pads_packs"); },
          "job"},
    Field{"vllm_version", FieldType::kText, "X.Y.Z", "", "",
          "colocate, server: the vLLM release the engine runs. 0.6 and 0.7 (the V0 engine's "
          "async output processing) process a step's outputs while the device runs the next, so "
          "a decode step waits for 64 % of the engine's host work; before 0.6, and from 0.8 (V1 "
          "in the trainer's process, as TRL and NeMo RL run it), for all of it; default: as "
          "from 0.8",
          versions, [](V v, R r) { r.job.rollout.vllm_version = vllm_release(v); }, "job"},
    Field{"greedy_baseline", FieldType::kFlag, "", "", "",
          "grpo: ReMax's baseline (verl's algorithm.adv_estimator remax): after the sampled "
          "batch, one greedy completion per prompt, generated as a batch of its own and scored, "
          "not trained on",
          accepted::flags,
          [](V v, R r) { r.job.rollout.greedy_baseline = flag(v, "greedy_baseline"); }, "job"},
    Field{"vllm_async_engine", FieldType::kFlag, "", "", "",
          "colocate, server: the engine runs vLLM's AsyncLLM (NeMo RL's vllm_cfg.async_engine), "
          "its V1 core in a process of its own: a decode step waits for scheduling and the "
          "inputs, and the outputs are processed beside the device's next step, as under "
          "{vllm_version} 0.6 and 0.7",
          accepted::flags,
          [](V v, R r) { r.job.rollout.vllm_async_engine = flag(v, "vllm_async_engine"); }, "job"},
    Field{"vllm_precision", FieldType::kChoice, "DTYPE", "", "bf16",
          "colocate, server: the engine's weights: bf16, or fp8 (its linear layers in e4m3, the "
          "embeddings and LM head in bf16: vLLM's fp8 quantization, NeMo RL's "
          "vllm_cfg.precision); the trainer's and the KV cache's are unchanged",
          vllm_precisions,
          [](V v, R r) {
            if (v != "bf16" && v != "fp8") {
              throw InvalidRequest(
                  "vllm_precision",
                  fmt::format("'{}' is not a precision the engine runs", excerpt(v)),
                  vllm_precisions());
            }
            r.job.rollout.vllm_fp8 = v == "fp8";
          },
          "job"},
    Field{"vllm_server_devices", FieldType::kInteger, "N", "devices", "1",
          "server: devices the vLLM server runs on, of the training machine's type (replicas of "
          "{vllm_tensor_parallel_size} devices each); they are not counted in {devices}",
          server_devices,
          [](V v, R r) {
            r.job.rollout.vllm_server_devices =
                static_cast<int>(whole(v, "vllm_server_devices", 4096));
          },
          "job"},
    Field{"vllm_server_gpu_memory_utilization", FieldType::kNumber, "FRACTION", "of the device",
          "0.9",
          "server: the share of each server device the engine takes for its weights and KV "
          "cache (vLLM's gpu_memory_utilization engine argument; NeMo RL's non-colocated "
          "vllm_cfg.gpu_memory_utilization)",
          shares,
          [](V v, R r) {
            r.job.rollout.vllm_server_gpu_memory_utilization =
                parse_number_in(v, "vllm_server_gpu_memory_utilization", 0.0, 1.0, false);
          },
          "job"},
    Field{"off_policy_steps", FieldType::kInteger, "N", "steps", "0",
          "server: how many trainer steps generation may run ahead (NeMo RL's async GRPO, "
          "grpo.async_grpo.max_trajectory_age_steps): 0, generation and training take turns; "
          "N >= 1, the server generates the next batch while the trainer trains on the last, so "
          "a round is the sync and the longer of the two",
          off_policy,
          [](V v, R r) {
            r.job.rollout.off_policy_steps =
                static_cast<int>(checks::whole(v, "off_policy_steps", 0.0, 64.0));
          },
          "job"},
    Field{"generation_batch_multiplier", FieldType::kNumber, "X", "x the step's prompts", "1",
          "grpo: dynamic sampling (DAPO): each generation batch holds this many times the prompts "
          "a step trains on (NeMo RL's grpo.batch_multiplier; verl's data.gen_batch_size over "
          "data.train_batch_size), the groups whose rewards all agree dropped after it",
          multipliers,
          [](V v, R r) {
            r.job.rollout.generation_batch_multiplier =
                parse_number_in(v, "generation_batch_multiplier", 1.0, 64.0, true);
          },
          "job"},
    Field{"generation_batches", FieldType::kInteger, "N", "batches", "1",
          "grpo: dynamic sampling (DAPO): the generation batches a step runs, one after another, "
          "until enough groups have rewards that differ: the mean a run logs (NeMo RL's "
          "dynamic_sampling_num_gen_batches, verl's num_gen_batches); the log-probs and the update "
          "run on the step's batch alone",
          batch_counts,
          [](V v, R r) {
            r.job.rollout.generation_batches =
                static_cast<int>(checks::whole(v, "generation_batches", 1.0, 64.0));
          },
          "job"},
    Field{"rollout_turns", FieldType::kInteger, "N", "turns", "1",
          "grpo, rloo: multi-turn rollouts (an agent calling tools: NeMo RL's "
          "grpo.max_rollout_turns, verl's multi_turn): the turns a completion takes; the "
          "completion lengths count the model's tokens over all of them",
          turn_counts,
          [](V v, R r) {
            r.job.rollout.rollout_turns =
                static_cast<int>(checks::whole(v, "rollout_turns", 1.0, 1024.0));
          },
          "job"},
    Field{"observation_tokens", FieldType::kInteger, "TOKENS", "tokens a turn", "0",
          "grpo, rloo: multi-turn: the tokens the environment returns after each turn but the "
          "last (a tool's output), prefilled into the sequence and trained through, masked from "
          "the loss; the sequence trained on grows by them",
          observation_lengths,
          [](V v, R r) {
            r.job.rollout.observation_tokens =
                checks::whole(v, "observation_tokens", 0.0, 1048576.0);
          },
          "job"},
    Field{"environment_seconds", FieldType::kNumber, "SECONDS", "s a turn", "0",
          "grpo, rloo: the environment's work after each turn on a completion's path (a tool "
          "call, a sandbox running the tests), waited for turn by turn",
          environment_waits,
          [](V v, R r) {
            r.job.rollout.environment_seconds =
                parse_number_in(v, "environment_seconds", 0.0, 86400.0, true);
          },
          "job"},
    Field{"value_model", FieldType::kText, "MODEL", "", "",
          "ppo: the value model trained beside the policy (a config.json, a folder or a preset "
          "id, loaded with a score head of one output); default the policy's model",
          models,
          [](V v, R r) {
            r.value_model = text(v, "value_model", "a config.json, a folder or a preset id");
          },
          "job"},
    Field{"reward_model", FieldType::kText, "MODEL", "", "",
          "ppo: the reward model run over every completion (as {value_model}), or function: "
          "the reward is a function of the completion (verl's rule-based reward), no model; "
          "default the policy's model",
          reward_models,
          [](V v, R r) {
            const std::string m =
                text(v, "reward_model", "a config.json, a folder, a preset id or function");
            r.job.rollout.reward_function = m == "function";
            r.reward_model = m == "function" ? std::string{} : m;
          },
          "job"},
};

}  // namespace

std::span<const Field> rollout_fields() { return kRolloutFields; }

}  // namespace tb::api
