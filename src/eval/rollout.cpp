// The generation round of online RL (docs/rl.md, "Online RL"): TRL's GRPOTrainer as of
// trl/trainer/grpo_trainer.py at 006d32c, with vLLM as its engine.
#include "trainbudget/eval/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/inference.hpp"
#include "trainbudget/eval/refit.hpp"
#include "trainbudget/model/completion_lengths.hpp"
#include "trainbudget/model/kv_cache.hpp"
#include "trainbudget/model/weight_storage.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/training_setup.hpp"
#include "vllm_host.hpp"

namespace tb {
namespace {

// Every weight handed to the engine in 16 bits (TRL loads vLLM in the policy's dtype and
// copies each parameter into it after each update: _move_model_to_vllm / update_named_param).
constexpr double kEngineWeightBytes = 2.0;

// vLLM's decode priced in this many equal spans of its steps, each at the width and context of
// its middle step (the integral of the step time over a shrinking batch, by the midpoint rule).
constexpr int kDecodeSegments = 16;

// The serving model's prefill and decode for one engine: `concurrency` completions, prompts of
// `prompt` tokens, decode timed at `context` tokens a sequence.
ServingMachine serve_one(const TrainingJob& job, const MachineChoice& machine,
                         std::int64_t concurrency, std::int64_t prompt, std::int64_t context,
                         int tp) {
  ServingJob s;
  s.params = job.params;
  s.model = job.model;
  s.system = job.system;
  s.setup.weights = job.rollout.vllm_fp8 ? WeightFormat::kFp8 : WeightFormat::kBf16;
  s.setup.kv = KvDtype::kBf16;
  s.setup.prompt = prompt;
  s.setup.context = std::max<std::int64_t>(prompt + 1, context);
  s.setup.concurrency = std::clamp<std::int64_t>(concurrency, 1, kMaxConcurrency);
  s.setup.tp = tp;
  const ServingEstimate e = serving_estimate(s, {machine});
  return e.machines.front();
}

// The working set of generate()'s prefill, the largest no-grad forward of the rollout: every
// row's prompt at once (no chunking); under no_grad each op's input is freed once used, so per
// token the residual stream and the MLP's two live intermediates (SiLU(gate) beside up, then
// their product) are what is held at once, in the activation dtype; eager attention's scores
// and probabilities; and the last position's fp32 logits (measured: tests/realstep
// --trainer grpo, docs/realstep.md).
Bytes generate_workspace(const ModelArchitecture& a, double rows, double prompt, double e,
                         bool eager) {
  const double ffn = static_cast<double>(a.mlp.intermediate);
  const double per_token = static_cast<double>(a.hidden) + 2.0 * ffn;
  const double scores =
      eager ? 2.0 * rows * static_cast<double>(a.attention.num_heads) * prompt * prompt * e : 0.0;
  return Bytes{rows * prompt * per_token * e + scores + rows * static_cast<double>(a.vocab) * 4.0};
}

// `moves` transfers of `bytes` over this device's host link, shared by the devices behind one
// uplink (they all move at once); none without a host link.
Seconds host_moves(Bytes bytes, double moves, const Fabric& fabric) {
  if (bytes.value() <= 0.0 || fabric.host.bandwidth.value() <= 0.0) return Seconds{0.0};
  const double sharing = std::max(1, fabric.devices_per_host_link);
  return bytes * moves * sharing / fabric.host.bandwidth;
}

// The first pipeline stage's bytes on this device of the state kinds `kept` names.
template <class Kept>
Bytes first_stage_bytes(const ModelProfile& profile, const Layout& layout, Kept kept) {
  const StageSpan first = stage_span(profile, layout, false);
  Bytes out{0.0};
  for (const StateTerm& t : profile.states) {
    if (kept(t.key)) out += state_on_device(profile, layout, t, first).device;
  }
  return out;
}

}  // namespace

RolloutCost rollout_cost(const TrainingJob& job, const Layout& layout,
                         const ClusterProfile& cluster, const MachineChoice& machine,
                         const StepCost& step, const std::optional<CriticCost>& critics,
                         const StepCost* at_mean, Bytes idle_offloaded) {
  const RolloutSpec& rl = job.rollout;
  // The training step at the completions' mean length times the passes over the batch; the
  // step at the longest (the layout's) holds the memory.
  const StepCost& mean_step = at_mean != nullptr ? *at_mean : step;
  RolloutCost out;
  out.engine = rl.engine;
  out.critics = critics;
  const ModelArchitecture& arch = *job.model.architecture;
  const int tp = rl.engine == RolloutEngine::kGenerate ? 1 : rl.vllm_tensor_parallel_size;
  if (arch.attention.num_heads % tp != 0) {
    throw InvalidRequest(
        "vllm_tensor_parallel_size",
        fmt::format("{} does not divide the {} attention heads", tp, arch.attention.num_heads),
        "a divisor of the attention heads");
  }
  // TRL: per_device_train_batch_size x steps_per_generation completions on each process per
  // generation batch (by default steps_per_generation = gradient_accumulation_steps: one
  // generation batch per optimizer step).
  const std::int64_t spg = generation_steps(rl, layout.grad_accum);
  const std::int64_t per_device = layout.micro_batch * spg;
  out.generation_steps = spg;
  // Dynamic sampling: a generation batch of generation_batch_multiplier x the step's prompts.
  const auto generated = static_cast<std::int64_t>(
      std::ceil(static_cast<double>(per_device * layout.dp()) * rl.generation_batch_multiplier));
  // Each generation batch is trained on num_iterations times, as spg / grad_accum optimizer
  // steps each time.
  out.updates = static_cast<double>(rl.num_iterations) * static_cast<double>(spg) /
                static_cast<double>(layout.grad_accum);
  const int dp = layout.dp();
  out.engine_tp = tp;
  switch (rl.engine) {
    case RolloutEngine::kGenerate:
      out.completions = per_device;
      break;
    case RolloutEngine::kColocate:
      // The generation batch is counted per data-parallel rank of the training layout (NeMo RL's
      // vllm_generation.py shards it by the data-parallel axis; verl's rollout dispatch splits
      // it into dp chunks, single_controller/base/decorator.py): dp x per_device completions
      // over the devices' engines of tp each. Without tp x pp, dp is the devices: an engine
      // decodes its tp processes' completions.
      out.engines = std::max(1, layout.devices / tp);
      out.completions = std::max<std::int64_t>(1, (generated + out.engines - 1) / out.engines);
      break;
    case RolloutEngine::kServer:
      out.engines = std::max(1, rl.vllm_server_devices / tp);
      out.completions = std::max<std::int64_t>(1, (generated + out.engines - 1) / out.engines);
      break;
  }
  const std::int64_t prompt = rl.max_prompt_length;
  // Multi-turn: the environment's observations in the sequence, counted as prompt where the
  // cache is held, joining the decode's context as its steps go.
  const std::int64_t observed = observation_total(rl);
  const std::int64_t completion = rl.max_completion_length;
  const std::int64_t mean = mean_completion(rl);
  out.mean_length = mean;
  out.prompts = std::max<std::int64_t>(1, out.completions / rl.num_generations);
  // TRL's PPO generates its batch in chunks (local_rollout_forward_batch_size): one chunk's cache
  // at a time, the chunks decoded one after another. A vLLM engine takes the batch whole.
  std::int64_t batch = out.completions;
  if (critics && rl.engine == RolloutEngine::kGenerate) {
    out.chunks = (out.completions + kPpoRolloutChunk - 1) / kPpoRolloutChunk;
    batch = std::min(out.completions, kPpoRolloutChunk);
  }
  // The lengths between the mean and the cap (CompletionLengths). Decode runs until the longest
  // of the batch ends, priced at the cap: among a generation batch's hundreds of completions one
  // that runs to max_completion_length is the rule in RL training, not the tail the
  // distribution's mean alone would give it. Every pass after generation follows the mean.
  const CompletionLengths lengths(static_cast<double>(mean), static_cast<double>(completion));
  const auto longest = static_cast<double>(completion);
  out.decode_length = completion;

  // The cache, per engine device: vLLM's in bf16 (the engine's dtype), generate()'s in the
  // policy's activation dtype (transformers' DynamicCache keeps the keys and values the
  // attention computed).
  Bytes per_token = kv_bytes_per_token(arch, KvDtype::kBf16);
  if (rl.engine == RolloutEngine::kGenerate) {
    per_token = per_token * (activation_bytes(layout.activation_dtype) / 2.0);
  }
  // vLLM allocates a sequence's cache block by block as it grows and frees it when it ends: the
  // batch holds at most the peak of its live tokens (CompletionLengths::peak_held). generate()
  // pads a finished row and keeps decoding it, so every row's cache grows to the longest. One
  // sequence must fit at its cap.
  const Bytes one_sequence = per_token * static_cast<double>(prompt + completion + observed);
  out.kv_needed =
      rl.engine == RolloutEngine::kGenerate
          ? per_token * (static_cast<double>(prompt) + longest) * static_cast<double>(batch)
          : per_token * lengths.peak_held(batch, static_cast<double>(prompt + observed)) /
                static_cast<double>(tp);
  // In fp8 (vllm_fp8): the linear weights a byte each, the rest in bf16 (weight_storage).
  out.engine_weights =
      rl.vllm_fp8 ? Bytes{weight_storage(arch, WeightFormat::kFp8).total / static_cast<double>(tp)}
                  : Bytes{job.params * kEngineWeightBytes / static_cast<double>(tp)};

  // Training states while generating: no gradients (zero_grad(set_to_none) after each step);
  // PPO's value model's states beside the policy's and the reward model's weights.
  // verl's actor offload between phases: its states wait in host memory while generating.
  Bytes resident = step.states - step.gradients - idle_offloaded;
  out.idle_offloaded = idle_offloaded;
  Bytes beside_step{0.0};  // what PPO adds to the policy's training step
  double gathered_params = job.params;
  if (critics) {
    resident += critics->value_states - critics->value_gradients + critics->reward_weights;
    beside_step = critics->value_states + critics->value_activations + critics->reward_weights;
    // unwrap_model_for_generation gathers the whole PolicyAndValueWrapper under ZeRO-3.
    gathered_params += critics->value_params;
  }
  switch (rl.engine) {
    case RolloutEngine::kGenerate: {
      // model.generate(): the cache in the training process, and under ZeRO-3 the whole
      // weights gathered for it (TRL's ds3_gather_for_generation, default True).
      Bytes gathered{0.0};
      if (layout.zero_stage >= 3 && layout.dp() > 1) {
        gathered = Bytes{gathered_params * kEngineWeightBytes} * (1.0 - 1.0 / dp);
      }
      out.generation_peak =
          resident + gathered + out.kv_needed +
          generate_workspace(arch, static_cast<double>(batch), static_cast<double>(prompt),
                             activation_bytes(layout.activation_dtype),
                             layout.attention == AttentionImpl::kEager);
      out.update_peak = step.memory + beside_step;
      break;
    }
    case RolloutEngine::kColocate:
      out.pool = cluster.capacity * rl.vllm_gpu_memory_utilization;
      out.kv_capacity = Bytes{std::max(0.0, (out.pool - out.engine_weights).value())};
      out.generation_peak = resident + out.pool;
      // Sleep mode: weights to the host and the cache dropped while the policy trains.
      out.update_peak = step.memory + (rl.vllm_enable_sleep_mode ? Bytes{0.0} : out.pool);
      break;
    case RolloutEngine::kServer:
      out.kv_capacity = Bytes{std::max(
          0.0,
          (cluster.capacity * rl.vllm_server_gpu_memory_utilization - out.engine_weights).value())};
      out.generation_peak = resident;
      out.update_peak = step.memory;
      break;
  }
  if (rl.engine != RolloutEngine::kGenerate) {
    out.engine_fits = out.kv_capacity >= one_sequence / static_cast<double>(tp);
    out.kv_fits = out.kv_capacity >= out.kv_needed;
  }
  if (rl.engine == RolloutEngine::kColocate && cluster.capacity.value() > 0.0) {
    const Bytes cap = cluster.capacity;
    out.utilization_min = (out.engine_weights + out.kv_needed) / cap;
    // Awake, the pool sits beside the step's peak; asleep, beside the generation's states.
    const Bytes beside = rl.vllm_enable_sleep_mode ? resident : step.memory;
    out.utilization_max = std::max(0.0, (cap - beside) / cap);
  }
  out.peak_phase =
      out.generation_peak > out.update_peak ? RolloutPhase::kGeneration : RolloutPhase::kUpdate;
  out.peak = std::max(out.generation_peak, out.update_peak);

  // Generation: each prompt prefilled once (vLLM's prefix cache shares it among its G
  // completions; generate() prefills every row), then decode steps until the longest ends.
  const ServingMachine serve = serve_one(job, machine, batch, prompt, prompt + 1, tp);
  const std::int64_t prefills =
      rl.engine == RolloutEngine::kGenerate ? out.completions : out.prompts;
  out.prefill = serve.prefill * static_cast<double>(prefills);
  const auto context_at = [&](double t) {
    return prompt + static_cast<std::int64_t>(t * (1.0 + static_cast<double>(observed) / longest));
  };
  // vLLM's step: the device's work, the host work it waits for, and the host work beside it
  // (the longer of that and the device's). The band prices none of it and RFC #6854's high end.
  struct Host {
    Seconds waits;
    Seconds beside;
  };
  // Measured on x86 hosts; a slower host CPU (cluster.host_cpu_time) takes longer over it.
  const HostSplit split = host_split(rl);
  const Seconds host_step = kVllmHostStep * cluster.host_cpu_time;
  const Seconds host_step_high = kVllmHostStepHigh * cluster.host_cpu_time;
  const Host engine_host{host_step * split.waits, host_step * split.beside};
  const Host host_high{host_step_high * split.waits, host_step_high * split.beside};
  const auto engine_step = [](Seconds device, const Host& h) {
    return std::max(device, h.beside) + h.waits;
  };
  // vLLM replays CUDA graphs and drops a sequence when it ends: the width of step t is the
  // batch's completions still running, rows x P(length > t), each holding prompt + t tokens.
  // Priced in kDecodeSegments equal spans of the steps, each at its middle. Each step also waits
  // for the engine's host work (kVllmHostStep), or for its waiting share, the rest running
  // beside the device's step (host_split).
  struct Decoded {
    Seconds mid{0.0};
    Seconds low{0.0};
    Seconds high{0.0};
  };
  const auto vllm_decode = [&](std::int64_t rows) {
    Decoded d;
    const double span = longest / kDecodeSegments;
    for (int j = 0; j < kDecodeSegments; ++j) {
      const double t = span * (j + 0.5);
      const auto width = std::clamp<std::int64_t>(
          std::llround(static_cast<double>(rows) * lengths.survival(t)), 1, rows);
      const Seconds device = serve_one(job, machine, width, prompt, context_at(t), tp).step;
      d.mid += engine_step(device, engine_host) * span;
      d.low += device * span;
      d.high += engine_step(device, host_high) * span;
    }
    return d;
  };
  // generate()'s decode of `rows` to the longest, each step the longer of the device's (at the
  // middle context, a launch gap a kernel) and the host's issuing (out.decode_host, set below).
  const auto generate_decode = [&](std::int64_t rows) {
    const Seconds at_width =
        serve_one(job, machine, rows, prompt, context_at(longest / 2.0), tp).step +
        Seconds{step.time.kernels_forward * cluster.kernels.launch_gap_s};
    return std::max(at_width, out.decode_host) * longest;
  };
  Seconds decode_low{0.0};
  Seconds decode_high{0.0};
  if (rl.engine != RolloutEngine::kGenerate) {
    out.decode_host = engine_host.waits;
    out.decode_host_beside = engine_host.beside;
    out.decode_host_high = host_high.waits;
  }
  if (rl.engine == RolloutEngine::kGenerate) {
    // generate() decodes every row, finished or not, until the longest ends, and runs the
    // policy eagerly: a step is a forward pass as the clock prices one (docs/time.md, "pass"),
    // the device's work plus a launch gap a kernel (on a CPU the op's own framework cost), or
    // the host's time to issue the kernels one by one when longer (eager PyTorch's dispatch).
    out.decode_host =
        Seconds{step.time.kernels_forward *
                cluster.kernels.dispatch_s[static_cast<std::size_t>(Dispatch::kEager)]};
    out.decode = generate_decode(batch) * static_cast<double>(out.chunks);
    out.decode_steps_run = completion * out.chunks;
  } else {
    const Decoded run = vllm_decode(batch);
    const Seconds decode = run.mid;
    decode_low = run.low;
    decode_high = run.high;
    out.decode = decode * static_cast<double>(out.chunks);
    decode_low *= static_cast<double>(out.chunks);
    decode_high *= static_cast<double>(out.chunks);
    out.decode_steps_run = completion * out.chunks;
  }
  // A cache that holds only part of the batch: vLLM's scheduler runs as many sequences as
  // their blocks fit and admits a waiting one whenever another finishes and frees its blocks
  // (continuous batching; Kwon et al. 2023, "Efficient Memory Management for Large Language
  // Model Serving with PagedAttention", sec. 4.5). The engine decodes `running` sequences a
  // step, for as many steps as its tokens take at that width or, when longer, until the
  // longest completion ends.
  if (!out.kv_fits && out.kv_capacity.value() > 0.0) {
    const Bytes per_sequence = per_token * static_cast<double>(prompt + mean) / tp;
    const auto running = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(out.kv_capacity / per_sequence), 1, batch);
    const double tokens = static_cast<double>(batch * mean);
    const auto steps = std::max<std::int64_t>(
        out.decode_length,
        static_cast<std::int64_t>(std::ceil(tokens / static_cast<double>(running))));
    const Seconds narrower =
        serve_one(job, machine, running, prompt, context_at(static_cast<double>(mean) / 2.0), tp)
            .step;
    const double run = static_cast<double>(steps * out.chunks);
    out.decode = engine_step(narrower, engine_host) * run;
    decode_low = narrower * run;
    decode_high = engine_step(narrower, host_high) * run;
    out.decode_steps_run = steps * out.chunks;
    out.assumptions.push_back(Note::of(NoteCode::kKvQueued, {}, {out.completions, running, steps},
                                       {out.kv_capacity.value(), out.kv_needed.value()}));
  }
  out.generation = out.prefill + out.decode;
  out.generation_low = out.generation;
  out.generation_high = out.generation;
  if (rl.engine != RolloutEngine::kGenerate) {
    out.generation_low = out.prefill + decode_low;
    out.generation_high = out.prefill + decode_high;
  }
  // ReMax's greedy batch: one completion per prompt, prefilled and decoded after the sampled
  // batch, its lengths as the sampled ones'.
  if (rl.greedy_baseline) {
    Decoded greedy;
    if (rl.engine == RolloutEngine::kGenerate) {
      greedy.mid = generate_decode(out.prompts);
      greedy.low = greedy.mid;
      greedy.high = greedy.mid;
    } else {
      greedy = vllm_decode(out.prompts);
    }
    const Seconds prefill =
        out.prefill / static_cast<double>(prefills) * static_cast<double>(out.prompts);
    out.baseline_generation = prefill + greedy.mid;
    out.generation += out.baseline_generation;
    out.generation_low += prefill + greedy.low;
    out.generation_high += prefill + greedy.high;
  }
  // Each observation prefilled into its own sequence (vLLM's prefix cache holds what came
  // before it); the environment's turns and the step's generation batches (finish_generation).
  if (observed > 0) {
    out.observation_prefill =
        serve_one(job, machine, batch, rl.observation_tokens, rl.observation_tokens + 1, tp)
            .prefill *
        static_cast<double>((rl.rollout_turns - 1) * out.completions);
  }
  finish_generation(out, rl);
  out.decode_tokens_per_s = out.decode.count() > 0.0
                                ? static_cast<double>(out.completions * mean) / out.decode.count()
                                : 0.0;
  // Log-probs under no_grad over the whole generation batch (spg micro-batches): the
  // reference's when beta > 0, the old policy's when old_policy_logprobs() says TRL needs them.
  out.logprob_passes =
      (rl.beta > 0.0 ? 1 : 0) + (old_policy_logprobs(rl, layout.grad_accum) ? 1 : 0);
  out.logprobs =
      mean_step.time.forward * static_cast<double>(spg) * static_cast<double>(out.logprob_passes);
  out.update = mean_step.time.step * out.updates;
  if (critics) {
    // PPO: under generate() the old policy's log-probs come from its scores; a vLLM engine's
    // are recomputed by the policy (verl's compute_log_prob, OpenRLHF's actor forward). The
    // reference, the value model and the reward model (not a reward function) each run a
    // forward over every row, and each update trains the value model beside the policy.
    const bool recomputed = rl.engine != RolloutEngine::kGenerate;
    const bool reward_model = !rl.reward_function;
    const int policy_passes = (reference_forward(job) ? 1 : 0) + (recomputed ? 1 : 0);
    out.logprob_passes = policy_passes + 1 + (reward_model ? 1 : 0);
    out.logprobs = (mean_step.time.forward * static_cast<double>(policy_passes) +
                    critics->value_forward + critics->reward_forward) *
                   static_cast<double>(spg);
    out.update = (mean_step.time.step + critics->value_step) * out.updates;
  }
  // The new weights into the engine: a colocated engine takes its tp-split bf16 weights after
  // the trainer's gather (colocated_refit), a server a broadcast from the trainer over the
  // network between them.
  if (rl.engine == RolloutEngine::kColocate) {
    out.sync_gather = refit_gather(job, layout, cluster.fabric);
    out.sync = colocated_refit(job, layout, cluster.fabric, out.engine_weights);
  } else if (rl.engine == RolloutEngine::kServer) {
    const BytesPerSecond link = cluster.fabric.scale_out.bandwidth.value() > 0.0
                                    ? cluster.fabric.scale_out.bandwidth
                                    : cluster.fabric.scale_up.bandwidth;
    if (link.value() > 0.0) out.sync = Bytes{job.params * kEngineWeightBytes} / link;
  }
  // Offloaded between phases: to the host before generating, back before the update, each way
  // over the device's host link (shared by the devices behind one uplink, as they all move at
  // once).
  out.idle_offload = host_moves(idle_offloaded, 2.0, cluster.fabric);
  out.off_policy_steps = rl.engine == RolloutEngine::kServer ? rl.off_policy_steps : 0;
  out.round = round_seconds(out, out.generation);
  if (rl.engine == RolloutEngine::kGenerate) {
    out.assumptions.push_back(Note::of(NoteCode::kGenerateOverheads));
  }
  return out;
}

RolloutCost apply_rollout(const TrainingJob& job, const Recipe& recipe, const ModelProfile& profile,
                          const Layout& layout, const ClusterProfile& cluster,
                          const MachineChoice& machine, StepCost& step) {
  std::optional<CriticCost> critics;
  if (job.objective == Objective::kPpo) critics = ppo_critics(job, recipe, layout, cluster);
  // Below the longest, the passes over the batch are timed at the mean length where the
  // framework packs them; padded, they run at the longest.
  std::optional<StepCost> at_mean;
  const std::int64_t mean = mean_completion(job.rollout);
  const bool packed = pack_sequences(job.rollout, job.setup.framework);
  const bool pipeline_padded =
      packed && packs_padded_to_longest(job.rollout, layout, job.setup.framework);
  if (mean < job.rollout.max_completion_length && packed && !pipeline_padded) {
    Layout shorter = layout;
    const std::int64_t observed = observation_total(job.rollout);
    shorter.seq_len = job.rollout.max_prompt_length + mean + observed;
    if (shorter.logits_positions > 0) shorter.logits_positions = mean + observed + 1;
    at_mean = evaluate(profile, shorter, cluster);
  }
  // What offload_between_phases takes off the device while the engine generates: the first
  // stage's states of the kinds it names (never the gradients, which zero_grad frees).
  const Offload between = offload_between_phases(job.rollout, job.setup.framework);
  const Bytes idle =
      between == Offload::kNone ? Bytes{0.0} : first_stage_bytes(profile, layout, [&](StateKey k) {
        return k != StateKey::kGradients && offloaded(between, k);
      });
  RolloutCost r = rollout_cost(job, layout, cluster, machine, step, critics,
                               at_mean ? &*at_mean : nullptr, idle);
  // NeMo RL's reference waits on the host: for its pass the policy's weights on this device go
  // to the host, the reference's come in, and the policy's come back (reference_on_host).
  if (reference_on_host(job) && cluster.fabric.host.bandwidth.value() > 0.0) {
    r.reference_swapped =
        first_stage_bytes(profile, layout, [](StateKey k) { return k == StateKey::kWeights; });
    r.reference_swap = host_moves(r.reference_swapped, 3.0, cluster.fabric);
    r.logprobs += r.reference_swap;
    r.round = round_seconds(r, r.generation);
  }
  // What the trainer waits for: the round less the round without generation (round_seconds).
  if (r.off_policy_steps > 0) r.exposed_generation = r.round - round_seconds(r, Seconds{0.0});
  r.passes_length = at_mean ? mean : job.rollout.max_completion_length;
  if (!at_mean && mean < job.rollout.max_completion_length) {
    r.assumptions.push_back(Note::of(NoteCode::kPaddedPasses, {},
                                     {mean, job.rollout.max_completion_length,
                                      pipeline_padded ? layout.parallel.pp : std::int64_t{0}}));
  }
  if (step.status == Status::kFits && (r.peak > cluster.capacity || !r.engine_fits)) {
    step.status = Status::kOutOfMemory;
  }
  step.memory = r.peak;
  // The dataset's tokens pass once through generation: a round consumes generation_steps
  // micro-batches of them where a step consumes grad_accum, and its sequences hold the mean
  // completion where the step's counted the longest.
  const double longest = static_cast<double>(layout.seq_len);
  const double held =
      static_cast<double>(job.rollout.max_prompt_length + mean + observation_total(job.rollout));
  step.at_utilization = r.round * step.time.steps * static_cast<double>(layout.grad_accum) /
                        static_cast<double>(r.generation_steps) * (longest / held);
  step.at_peak = step.at_utilization;
  return r;
}

}  // namespace tb
