// vLLM's host work between two decode steps, and the share of it a decode step waits for by the
// engine's release and process (docs/rl.md, "The host between decode steps"). Internal to
// src/eval (the rollout's decode, eval/rollout.cpp).
#pragma once

#include "trainbudget/spec/rollout.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// vLLM's host work between two decode steps: scheduling, preparing the next step's inputs, the
// sampled tokens' copy to the host and turning them into outputs (detokenized, with their
// log-probs). Without async scheduling the engine does it while the device waits. The vLLM team
// measured 5-13 ms of it a decode step (vllm-project/vllm RFC #6854, "Multi-Step Scheduling",
// 2024: "5-13ms of GPU bubble"); the low end is taken. NeMo RL runs the V1 engine in its own
// process (VLLM_ENABLE_V1_MULTIPROCESSING=0, nemo_rl/models/generation/vllm.py at v0.3.0) with
// none of the overlaps that came later (async_scheduling), so every stage it lists stays serial.
inline constexpr Seconds kVllmHostStep{5e-3};
// The band's ends for it: none, where the engine overlaps it with the device's step (vLLM's
// async scheduling, vllm-project/vllm PR #19970), and the high end of RFC #6854's range.
inline constexpr Seconds kVllmHostStepHigh{13e-3};

// That host work by stage, in ms a decode step, from WukLab's breakdown of the V0 engine
// (Srivatsa, Li, Zhang & Zhang 2024, "Can Scheduling Overhead Dominate LLM Inference
// Performance? A Study of CPU Scheduling Overhead on Two Popular LLM Inference Systems",
// figure 4: vLLM 0.5.4, Llama 3 8B on an A6000, 1,024-token prompts and outputs; read off the
// figure's bars): scheduling (the blocks' metadata, deciding the batch, marking blocks),
// preparing the next step's inputs (input tensors, sampling metadata, block swapping) and
// processing the outputs (detokenizing, building them for the user, freeing finished groups).
// Its 1.5 ms of statistics logging is left out: vLLM's LLM() turns the statistics off
// (`disable_log_stats`), and the RL frameworks run the engine through it.
inline constexpr double kHostScheduleMs = 3.9;
inline constexpr double kHostInputsMs = 9.3;
inline constexpr double kHostOutputsMs = 7.6;

// The shares of the host work between decode steps that the device waits for and that run
// beside its next step.
struct HostSplit {
  double waits{1.0};
  double beside{0.0};
};

// By the vLLM release: V0 from 0.6.0 processes a step's outputs while the device runs the next
// (async output processing, vllm-project/vllm PR #7049; on by default on CUDA unless
// enforce_eager, which neither TRL nor NeMo RL sets), so only scheduling and the inputs wait,
// until V1 became the default engine in 0.8.0. Before 0.6 every stage waits, and so it does
// under V1 in the trainer's process: TRL's colocated engine (external_launcher turns V1's
// multiprocessing off, vllm/config/parallel.py) and NeMo RL's (VLLM_ENABLE_V1_MULTIPROCESSING=0).
// NeMo RL's async_engine runs V1's AsyncLLM instead (nemo_rl/models/generation/vllm/
// vllm_worker_async.py at v0.5.0, AsyncLLM.from_engine_args), whose engine core always loops in a
// process of its own (vllm/v1/engine/async_llm.py: EngineCoreClient.make_async_mp_client) while
// the outputs are processed in the caller's: the same split.
[[nodiscard]] HostSplit host_split(const RolloutSpec& rl) noexcept;

}  // namespace tb
