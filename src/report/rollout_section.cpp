// The estimate's "Rollout" section for online RL: per machine the generation round's time split
// and the memory of its two phases, with the change that moves the peak.
#include <fmt/format.h>

#include "estimate_sections.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {
namespace {

std::string secs(Seconds s) { return fmt::format("{:.3g} s", s.count()); }
std::string millis(Seconds s) { return fmt::format("{:.3g} ms", s.count() * 1e3); }

std::string engine_words(const RolloutCost& r) {
  switch (r.engine) {
    case RolloutEngine::kGenerate:
      return "the policy's own generate()";
    case RolloutEngine::kColocate:
      return fmt::format("vLLM colocated (tp {})", r.engine_tp);
    case RolloutEngine::kServer:
      return fmt::format("a vLLM server ({} engine{} of tp {})", r.engines,
                         r.engines == 1 ? "" : "s", r.engine_tp);
  }
  return "";
}

}  // namespace

std::optional<Section> rollout_section(const Estimate& e) {
  const Scenario& s = e.primary;
  if (!online_rl(e.job.objective)) return std::nullopt;
  const RolloutSpec& rl = e.job.rollout;
  Section out;
  const std::int64_t spg = generation_steps(rl, s.layout.grad_accum);
  out.title = fmt::format("Rollout -- {} x {} completions of {} + {} tokens per {}",
                          s.layout.micro_batch * spg, s.layout.dp(), rl.max_prompt_length,
                          rl.max_completion_length,
                          spg == s.layout.grad_accum ? "step" : "generation batch");
  for (const MachineEstimate& m : s.machines) {
    if (!m.rollout) continue;
    const RolloutCost& r = *m.rollout;
    out.text(fmt::format(
        "{}: {}, {} completions ({} prompt{} x {}) per engine. One round {} {} generation {} "
        "(prefill {}, decode {} at {:.0f} tokens/s) + log-probs {} ({} pass{}) + update {} "
        "(x{:g} steps) + weight sync {}",
        m.device.id, engine_words(r), r.completions, r.prompts, r.prompts == 1 ? "" : "s",
        rl.num_generations, secs(r.round), r.off_policy_steps > 0 ? "of" : "=", secs(r.generation),
        secs(r.prefill), secs(r.decode), r.decode_tokens_per_s, secs(r.logprobs), r.logprob_passes,
        r.logprob_passes == 1 ? "" : "es", secs(r.update), r.updates, secs(r.sync)));
    if (r.off_policy_steps > 0) {
      out.text(fmt::format(
          "{}: {} step{} off policy: the server generates the next batch while the trainer "
          "trains on the last, so the round is the weight sync and the longer of generation {} "
          "and the trainer's {} (the trainer waits {} for generation)",
          m.device.id, r.off_policy_steps, r.off_policy_steps == 1 ? "" : "s", secs(r.generation),
          secs(r.round - r.sync - r.exposed_generation), secs(r.exposed_generation)));
    }
    if (r.generation_batches > 1 || r.generation_batch_multiplier > 1.0) {
      out.text(fmt::format(
          "{}: dynamic sampling: {} generation batch{} a step, each of {:g} x the step's prompts; "
          "the log-probs and the update run on the step's batch alone",
          m.device.id, r.generation_batches, r.generation_batches == 1 ? "" : "es",
          r.generation_batch_multiplier));
    }
    if (r.rollout_turns > 1) {
      out.text(
          fmt::format("{}: {} turns a completion: its {} observation tokens prefilled ({}) and the "
                      "environment's "
                      "{} on the longest completion's path, in generation",
                      m.device.id, r.rollout_turns, r.observation_tokens,
                      secs(r.observation_prefill), secs(r.environment)));
    }
    if (r.baseline_generation.count() > 0.0) {
      out.text(
          fmt::format("{}: ReMax's greedy baseline: one completion a prompt after the "
                      "sampled batch, {} of the generation",
                      m.device.id, secs(r.baseline_generation)));
    }
    if (r.engine != RolloutEngine::kGenerate && r.decode_steps_run > 0) {
      // The engine's host work between decode steps: its part of the decode and the band's reach.
      const std::string beside =
          r.decode_host_beside.count() > 0.0
              ? fmt::format(", its outputs' {} a step running beside the device's next step",
                            millis(r.decode_host_beside))
              : std::string{};
      out.text(fmt::format(
          "{}: decode runs {} steps, each also waiting {} of the engine's host work ({} in "
          "all{}; generation {} to {} from none to {} a step)",
          m.device.id, r.decode_steps_run, millis(r.decode_host),
          secs(r.decode_host * static_cast<double>(r.decode_steps_run)), beside,
          secs(r.generation_low), secs(r.generation_high), millis(r.decode_host_high)));
    }
    if (r.idle_offload.count() > 0.0) {
      out.text(fmt::format(
          "{}: + the actor's {:.1f} GB to the host and back between phases {} (not on the "
          "device while generating)",
          m.device.id, r.idle_offloaded.value() / 1e9, secs(r.idle_offload)));
    }
    std::string memory =
        fmt::format("{}: memory while generating {}, while training {}: the peak is in the {}",
                    m.device.id, gb(r.generation_peak), gb(r.update_peak), enum_name(r.peak_phase));
    if (r.engine == RolloutEngine::kColocate) {
      memory += fmt::format(
          "; the engine's pool {} ({} of the device) holds its weights {} and {} of KV cache "
          "for the {} the completions need",
          gb(r.pool), percent(rl.vllm_gpu_memory_utilization), gb(r.engine_weights),
          gb(r.kv_capacity), gb(r.kv_needed));
      memory += r.utilization_min <= r.utilization_max
                    ? fmt::format(
                          ". vllm_gpu_memory_utilization from {:.2f} (the engine's "
                          "weights and every completion's cache) to {:.2f} (the "
                          "trainer's room) fits both",
                          r.utilization_min, r.utilization_max)
                    : fmt::format(
                          ". No vllm_gpu_memory_utilization fits both: the engine needs "
                          "{:.2f} of the device, the trainer leaves {:.2f}",
                          r.utilization_min, r.utilization_max);
      if (!rl.vllm_enable_sleep_mode && r.peak_phase == RolloutPhase::kUpdate) {
        memory += fmt::format(
            ". Sleep mode (vllm_enable_sleep_mode) releases the pool while training (peak {})",
            gb(std::max(r.generation_peak, r.update_peak - r.pool)));
      }
    } else if (r.engine == RolloutEngine::kGenerate) {
      memory += fmt::format("; the generation's KV cache {}", gb(r.kv_needed));
    } else {
      memory += fmt::format(
          "; each server device holds {} of weights and {} of KV cache for "
          "the {} its completions need",
          gb(r.engine_weights), gb(r.kv_capacity), gb(r.kv_needed));
    }
    out.text(memory);
    const RolloutLimits& limits = m.rollout_limits;
    if (limits.max_completion_length > 0 || limits.micro_batch > 0) {
      out.text(fmt::format(
          "{}: what fits with the rest as given: completions up to {} tokens "
          "(max_completion_length), or {} completions a micro-batch at {} tokens",
          m.device.id, limits.max_completion_length, limits.micro_batch, rl.max_completion_length));
    } else {
      out.text(fmt::format("{}: no completion length or micro-batch fits with the rest as given",
                           m.device.id));
    }
    if (r.critics) {
      const CriticCost& c = *r.critics;
      const std::string reward =
          rl.reward_function
              ? std::string{"the reward is a function (no model)"}
              : fmt::format("the reward model's frozen weights {}", gb(c.reward_weights));
      const std::string forwards =
          rl.reward_function
              ? fmt::format("the reference and the value model ({})", secs(c.value_forward))
              : fmt::format("the reference, the value model ({}) and the reward model ({})",
                            secs(c.value_forward), secs(c.reward_forward));
      out.text(fmt::format(
          "{}: PPO's value model ({} parameters, a score head) trained beside the policy holds "
          "{} of states and saves {} of activations a micro-batch; {}. Each batch's forwards: "
          "{} a micro-batch{}{}",
          m.device.id, count(c.value_params), gb(c.value_states), gb(c.value_activations), reward,
          forwards, rl.engine != RolloutEngine::kGenerate ? ", the policy's old log-probs" : "",
          r.chunks > 1 ? fmt::format("; generation in {} chunks of {}", r.chunks, kPpoRolloutChunk)
                       : std::string{}));
    }
  }
  return out;
}

}  // namespace tb::report
