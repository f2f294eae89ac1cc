// The rollout block: the generation round's memory by phase and its time split.
#include "rollout_json.hpp"

namespace tb::report {

using nlohmann::ordered_json;

namespace {

// PPO's value and reward models on one training device.
ordered_json critics_json(const std::optional<CriticCost>& c) {
  if (!c) return nullptr;
  return ordered_json{{"value_model_params", c->value_params},
                      {"reward_model_params", c->reward_params},
                      {"value_states_bytes", c->value_states.value()},
                      {"value_activations_bytes", c->value_activations.value()},
                      {"reward_weights_bytes", c->reward_weights.value()},
                      {"value_forward_seconds", c->value_forward.count()},
                      {"reward_forward_seconds", c->reward_forward.count()},
                      {"value_step_seconds", c->value_step.count()}};
}

// Which length priced what: the passes after generation at the mean where they are packed, at
// the longest where the batch is padded.
ordered_json lengths_json(const RolloutCost& r) {
  const bool packed = r.passes_length < r.decode_length;
  ordered_json at_mean = ordered_json::array({"kv_cache", "decode_context"});
  ordered_json at_longest = ordered_json::array({"decode_steps", "memory"});
  for (const char* pass : {"logprobs", "update"}) (packed ? at_mean : at_longest).push_back(pass);
  return ordered_json{{"decode_steps", r.decode_length},
                      {"mean_completion", r.mean_length},
                      {"passes_completion", r.passes_length},
                      {"priced_at_mean", at_mean},
                      {"priced_at_longest", at_longest}};
}

}  // namespace

ordered_json rollout_json(const MachineEstimate& m) {
  if (!m.rollout) return nullptr;
  const RolloutCost& r = *m.rollout;
  return ordered_json{
      {"engine", enum_name(r.engine)},
      {"completions_per_engine", r.completions},
      {"prompts_per_engine", r.prompts},
      {"engine_tensor_parallel", r.engine_tp},
      {"engines", r.engines},
      {"generation_chunks", r.chunks},
      {"lengths", lengths_json(r)},
      {"limits",
       {{"max_completion_length", m.rollout_limits.max_completion_length},
        {"micro_batch", m.rollout_limits.micro_batch}}},
      {"critics", critics_json(r.critics)},
      {"memory",
       {{"kv_needed_bytes", r.kv_needed.value()},
        {"pool_bytes", r.pool.value()},
        {"engine_weights_bytes", r.engine_weights.value()},
        {"kv_capacity_bytes", r.kv_capacity.value()},
        {"kv_fits", r.kv_fits},
        {"engine_fits", r.engine_fits},
        {"peak_phase", enum_name(r.peak_phase)},
        {"vllm_gpu_memory_utilization_range",
         r.engine == RolloutEngine::kColocate
             ? ordered_json{{"min", r.utilization_min}, {"max", r.utilization_max}}
             : ordered_json(nullptr)},
        {"phases",
         ordered_json::array({{{"phase", "generation"}, {"peak_bytes", r.generation_peak.value()}},
                              {{"phase", "update"}, {"peak_bytes", r.update_peak.value()}}})}}},
      {"time",
       {{"round_seconds", r.round.count()},
        {"off_policy_steps", r.off_policy_steps},
        {"exposed_generation_seconds", r.exposed_generation.count()},
        {"generation_batches", r.generation_batches},
        {"generation_batch_multiplier", r.generation_batch_multiplier},
        {"rollout_turns", r.rollout_turns},
        {"observation_tokens", r.observation_tokens},
        {"observation_prefill_seconds", r.observation_prefill.count()},
        {"environment_seconds", r.environment.count()},
        {"baseline_generation_seconds", r.baseline_generation.count()},
        {"generation_seconds", r.generation.count()},
        {"generation_low_seconds", r.generation_low.count()},
        {"generation_high_seconds", r.generation_high.count()},
        {"prefill_seconds", r.prefill.count()},
        {"decode_seconds", r.decode.count()},
        {"decode_host_seconds_per_step", r.decode_host.count()},
        {"decode_host_beside_seconds_per_step", r.decode_host_beside.count()},
        {"decode_steps", r.decode_steps_run},
        {"logprob_passes", r.logprob_passes},
        {"generation_steps", r.generation_steps},
        {"updates_per_round", r.updates},
        {"logprob_seconds", r.logprobs.count()},
        {"update_seconds", r.update.count()},
        {"sync_seconds", r.sync.count()},
        {"sync_gather_seconds", r.sync_gather.count()},
        {"idle_offload_seconds", r.idle_offload.count()},
        {"idle_offloaded_bytes", r.idle_offloaded.value()},
        {"reference_swap_seconds", r.reference_swap.count()},
        {"reference_swapped_bytes", r.reference_swapped.value()},
        {"decode_tokens_per_second", r.decode_tokens_per_s}}}};
}

}  // namespace tb::report
