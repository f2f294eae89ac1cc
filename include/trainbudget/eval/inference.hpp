// The inference budget: weights in a storage format, the KV cache, prefill (compute-bound:
// the prompt's FLOPs over the rate) and decode (memory-bound: bytes read per step over the
// achievable bandwidth) on each machine, with the largest concurrency and context that fit.
// docs/inference.md derives every term.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/eval/achievable_bandwidth.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/gemm_efficiency.hpp"
#include "trainbudget/eval/note.hpp"
#include "trainbudget/model/weight_storage.hpp"
#include "trainbudget/spec/machine_choice.hpp"
#include "trainbudget/spec/model_source.hpp"
#include "trainbudget/spec/serving.hpp"

namespace tb {

struct ServingJob {
  double params{7e9};
  ModelSource model;  // an architecture with --model: exact weights, KV cache and FLOPs
  ServingSetup setup;
  std::string system;  // the node shape tensor parallelism runs in (empty: the device's)
};

// Throws InvalidRequest naming the field: a context past the model's positions is a warning,
// not an error (the session says it); tp must divide the attention heads and fit one node.
void validate(const ServingJob& job);

// The fewest devices that serve the job (docs/inference.md, "Serving sizes"): tensor parallelism
// inside a node, the smallest power of two that divides the attention heads and fits the
// weights, the cache of every sequence and the workspace; past a node, pipeline stages of a
// node's tensor-parallel group, as many as the weights and cache need (pipeline not timed).
// Pipeline stages a serving size may take without an architecture to count its layers.
inline constexpr int kMaxServeStages = 4096;

struct ServingSize {
  int tp{1};
  int pp{1};  // 0 with devices 0
  // 0: no number of devices serves it (the runtime alone exceeds a device, or a stage would
  // hold less than one layer)
  int devices{0};
  bool fits{false};                 // within one node, timed
  double decode_tokens_per_s{0.0};  // at that tp (0 past a node)
  Bytes needed, usable;             // per device at the largest tp tried
};
struct ServingMachine {
  Device device;
  int devices{1};  // tensor-parallel ranks
  std::string system_id;
  Bytes usable;     // per device (Apple: Metal's working-set cap)
  Bytes runtime;    // CUDA context and workspaces (0 elsewhere)
  Bytes weights;    // per device
  Bytes kv;         // per device, concurrency x context
  Bytes workspace;  // per device: one layer's activations and the logits
  Bytes needed;     // weights + kv + workspace + runtime
  bool fits{false};
  std::int64_t max_concurrency{0};  // sequences of `context` that fit (0: not even one)
  std::int64_t max_context{0};      // tokens per sequence at `concurrency` (0: none fit)
  std::optional<AchievableBandwidth> bandwidth;
  std::optional<ComputeRate> rate;  // the prefill's rate
  GemmEfficiency gemm;
  Seconds prefill{0.0};                // one request's prompt, alone (= time to first token)
  Bytes step_bytes;                    // read by one decode step per device
  Seconds step_memory{0.0};            // step_bytes / achievable bandwidth
  Seconds step_compute{0.0};           // the step's FLOPs / (rate x GEMM efficiency)
  Seconds step_comm{0.0};              // tensor parallel: two all-reduces per layer
  Seconds step{0.0};                   // max(memory, compute) + comm
  double decode_tokens_per_s{0.0};     // per sequence
  double aggregate_tokens_per_s{0.0};  // all `concurrency` sequences
  Bound bound{Bound::kMemory};
  std::int64_t compute_bound_batch{0};  // the smallest batch whose step turns compute-bound
  std::vector<Note> assumptions;
  std::optional<ServingSize> size;  // the fewest devices that serve it, when tp was not given
};

struct ServingEstimate {
  ServingJob job;
  WeightStorage weights;                 // whole model
  std::optional<Bytes> kv_per_token;     // every layer, no window (needs an architecture)
  std::optional<Bytes> kv_per_sequence;  // at the context, windows capped
  double prefill_flops{0.0};             // one prompt
  double decode_flops_per_token{0.0};    // at the context
  std::vector<ServingMachine> machines;
};

// The serving budget for the job on the machines (validated first).
[[nodiscard]] ServingEstimate serving_estimate(const ServingJob& job,
                                               const std::vector<MachineChoice>& machines);

[[nodiscard]] ServingSize serving_size(const ServingJob& job, const MachineChoice& machine);

// Expected distinct experts that `tokens` tokens touch when each picks k of E uniformly:
// E (1 - (1 - k/E)^tokens).
[[nodiscard]] double experts_touched(std::int64_t experts, std::int64_t k, double tokens);

}  // namespace tb
