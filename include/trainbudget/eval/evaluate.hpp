// The hot path: one model profile, one layout, one device -> memory per device, the peak over
// the step's phases, FLOPs, hours and whether it fits. No allocation, no strings, no throw;
// the planner calls it millions of times a second. Words about the same numbers come from the
// views (estimate.hpp, explain.hpp), which read the same term tables.
#pragma once

#include <array>
#include <cstdint>

#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/comm.hpp"
#include "trainbudget/eval/eval_memo.hpp"
#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/eval/phase.hpp"
#include "trainbudget/eval/stage_span.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

// Why an evaluation does not fit, or that it does.
enum class Status : std::uint8_t {
  kFits,             // the peak fits the device's memory
  kOutOfMemory,      // the peak is larger than the device's memory
  kNoNetwork,        // the layout spans nodes of a system with no network between them
  kOutOfHostMemory,  // the peak fits, but what it offloads exceeds the host's memory
};

// What sets a step's time (docs/scale.md, "Bound"): the largest of the GEMM time, the exposed
// communication, the pipeline bubble and the host transfers of offload.
enum class Bound : std::uint8_t { kCompute, kCommunication, kPipeline, kMemory };

template <>
struct EnumNames<Bound> {
  static constexpr std::array<std::pair<Bound, std::string_view>, 4> kNames{
      {{Bound::kCompute, "compute"},
       {Bound::kCommunication, "communication"},
       {Bound::kPipeline, "pipeline"},
       {Bound::kMemory, "memory"}}};
};

// The communicators of a step, in StepTime::comm order.
enum class CommKind : std::uint8_t { kData, kTensor, kPipeline, kContext, kExpert, kOffload };
inline constexpr std::size_t kCommKinds = 6;

template <>
struct EnumNames<CommKind> {
  static constexpr std::array<std::pair<CommKind, std::string_view>, kCommKinds> kNames{
      {{CommKind::kData, "dp"},
       {CommKind::kTensor, "tp"},
       {CommKind::kPipeline, "pp"},
       {CommKind::kContext, "cp"},
       {CommKind::kExpert, "ep"},
       {CommKind::kOffload, "offload"}}};
};

struct CommTerm {
  Seconds total{0.0};    // all of this kind's traffic in one optimizer step
  Seconds exposed{0.0};  // what overlap leaves on the critical path
  Bytes bytes;           // sent per device per step (the collectives' buffers)
  Link link;             // the link it runs at
};

// One optimizer step's time (docs/scale.md, "Step time").
struct StepTime {
  bool modeled{false};          // false: the user's utilization replaced the model (or no rate)
  double tokens_per_step{0.0};  // dp x micro_batch x grad_accum x seq_len
  double steps{0.0};            // tokens / tokens_per_step
  Seconds micro_batch{0.0};     // one micro-batch's forward + backward on one device
  Seconds forward{0.0};         // of which the policy's forward (no reference, no recompute)
  Seconds recompute{0.0};       // of which the recomputed forward passes
  Seconds gemm{0.0};            // of which the GEMMs (device time, docs/time.md)
  Seconds attention{0.0};       // the fused attention kernels
  Seconds memory_bound{0.0};    // the memory-bound kernels' traffic at the achievable bandwidth
  Seconds overhead{0.0};        // launch gaps, or the host's dispatch beyond the device time
  double kernels{0.0};          // launches per micro-batch
  double kernels_forward{0.0};  // of which the forward pass's (one decode step launches as many)
  // One dense decoder layer of the most loaded stage, one micro-batch: its forward, and its
  // backward with any recomputed forward, each with the layer's tensor-parallel collectives as
  // they stay exposed (what Korthikanti et al. 2022, Table 4, times per layer).
  Seconds layer_forward{0.0};
  Seconds layer_backward{0.0};
  Seconds compute{0.0};    // grad_accum micro-batches
  Seconds optimizer{0.0};  // the optimizer step: its states read and written once
  // Gradient accumulation's in-place adds (grad_accumulation_kernel add): every micro-batch
  // after the first adds its new gradients into the buffer.
  Seconds accumulation{0.0};
  Seconds bubble{0.0};  // (pp - 1) / v micro-batch times (Narayanan et al. 2021, eq. 1)
  std::array<CommTerm, kCommKinds> comm{};
  Seconds comm_total{0.0};
  Seconds exposed_comm{0.0};  // without offload's host transfers
  // The compute that overlapped collectives slow down: while a collective hides behind compute
  // it holds collective_units of the device's units (docs/time.md, "Communication as it runs").
  Seconds interference{0.0};
  Seconds step{0.0};
  double mfu{0.0};  // model FLOPs per step / (step x devices x peak)
  double hfu{0.0};  // with recomputation
  double tokens_per_second{0.0};
  Bound bound{Bound::kCompute};
};

struct PhaseCost {
  Bytes resident;     // weights, master weights, optimizer states, frozen weights
  Bytes gradients;    // held at that moment
  Bytes activations;  // saved activations still held
  Bytes transient;    // logits gradient, recompute, backward workspace or optimizer temporary
  Bytes total;
};

// Where backward's worst moment is: the loss and LM head, a decoder layer, or the embedding.
inline constexpr std::int64_t kBackwardAtHead = -1;
inline constexpr std::int64_t kBackwardAtEmbedding = -2;

struct StepCost {
  Status status{Status::kFits};
  // Model states per device after ZeRO partitioning.
  Bytes states;
  Bytes gradients;  // the states' gradient rows
  // With an architecture: activations and the peak over phases.
  LayerKindBytes dense;  // one dense decoder layer
  LayerKindBytes moe;    // one MoE decoder layer
  Bytes layers_saved, head_saved, saved, logits_gradient;
  std::array<PhaseCost, 3> phases{};  // indexed by Phase
  std::int64_t backward_at{kBackwardAtHead};
  Phase peak_phase{Phase::kForwardEnd};
  Bytes memory;        // per device: the peak with an architecture, the states without
  int stage{0};        // the pipeline stage `memory` is for: the most loaded one
  Bytes comm_buffers;  // ZeRO's gathered layers and buckets, in the peak's transient
  Bytes host;          // per device, in host memory (offload)
  // Activation offload: one micro-batch's saved activations on the stage, each sent to the host
  // after forward and fetched back for backward.
  Bytes offloaded_activations;
  // Compute.
  FlopsPerToken flops_per_token;     // model FLOPs (MFU)
  FlopsPerToken hardware_per_token;  // + recomputation (HFU); == flops_per_token without one
  FlopsPerToken reference_6n;
  Flops total;
  Seconds at_peak{0.0};         // 100 % utilization, ideal scaling over the devices
  Seconds at_utilization{0.0};  // at the cluster's utilization
  StepTime time;
};

// Kaplan et al. 2020, sec. 2.1: C = 6N per token (forward 2N, backward 4N).
[[nodiscard]] FlopsPerToken flops_per_token_full(Params params);
// LoRA (Hu et al. 2021, sec. 4.2): the frozen base runs forward (2N) and passes activation
// gradients back (2N) but computes no weight gradients; adapters cost 6 per parameter.
[[nodiscard]] FlopsPerToken flops_per_token_lora(Params base_params, Params adapter_params);
// Freezing the lower (1 - f): forward over all N (2N); backward stops at the lowest trained
// layer, so only the trained fN pay activation and weight gradients (4fN).
[[nodiscard]] FlopsPerToken flops_per_token_freeze(Params params, Params trained_params);

// Rajbhandari et al. 2020 (ZeRO), sec. 5 and Figure 1: a row partitioned from stage
// `component_stage` is split over the N data-parallel devices when the layout's stage >= it.
[[nodiscard]] constexpr int zero_partition(int layout_stage, int component_stage, int devices) {
  return layout_stage >= component_stage ? devices : 1;
}

// Stage 0 (embedding) or the last (head) of the layout's pipeline; the whole model for pp = 1.
[[nodiscard]] StageSpan stage_span(const ModelProfile& profile, const Layout& layout,
                                   bool last) noexcept;
// The same, looked up in `memo` (per thread) first: a stage depends on the profile and the
// pipeline depth only, which the planner's grid repeats across every other knob.
[[nodiscard]] StageSpan stage_span(const ModelProfile& profile, const Layout& layout, bool last,
                                   EvalMemo* memo) noexcept;
// Stage `index` of the pipeline (0 .. pp - 1).
[[nodiscard]] StageSpan stage_at(const ModelProfile& profile, const Layout& layout,
                                 int index) noexcept;

// One state row on one device of a stage: its bytes there (after pipeline, tensor and expert
// parallelism and ZeRO), what offload moved to the host, and the data-parallel partition.
// Whether `o` keeps a state of kind `key` in host memory: optimizer, the optimizer states,
// master weights and gradients (ZeRO-Offload); params, the weights too.
[[nodiscard]] bool offloaded(Offload o, StateKey key) noexcept;

struct StateOnDevice {
  Bytes device;
  Bytes host;
  int zero_shards{1};  // ZeRO's partition of the row's dense part (1: replicated)
};
[[nodiscard]] StateOnDevice state_on_device(const ModelProfile& profile, const Layout& layout,
                                            const StateTerm& term, const StageSpan& stage) noexcept;

// The step's dims: the profile's widths with the layout's b, s, e, p and switches.
[[nodiscard]] StepDims step_dims(const ModelProfile& profile, const Layout& layout,
                                 bool moe_layer) noexcept;

// `memo` (optional, one per thread) keeps the activation rows and FLOP terms of the step shapes
// seen, for loops over layouts that share them.
[[nodiscard]] StepCost evaluate(const ModelProfile& profile, const Layout& layout,
                                const ClusterProfile& cluster, const CommModel& comm,
                                EvalMemo* memo = nullptr) noexcept;
[[nodiscard]] inline StepCost evaluate(const ModelProfile& profile, const Layout& layout,
                                       const ClusterProfile& cluster) noexcept {
  return evaluate(profile, layout, cluster, default_comm_model());
}
// As evaluate(), but the step is timed only when the layout fits (status kFits); a layout that
// does not keeps a zero time. The planner's grid: most overflowing layouts are dropped, and the
// few kept as near misses are timed after (time_step).
[[nodiscard]] StepCost evaluate_if_fits(const ModelProfile& profile, const Layout& layout,
                                        const ClusterProfile& cluster, const CommModel& comm,
                                        EvalMemo* memo = nullptr) noexcept;

// A full replica of the states and, with an architecture, of one micro-batch's activations on
// one device: what a device would hold with no partitioning of any kind.
[[nodiscard]] Bytes replica_bytes(const ModelProfile& profile, const Layout& layout) noexcept;

// The ZeRO-3 lower bound on devices: replica / capacity, rounded up (1 without a capacity).
[[nodiscard]] int devices_to_fit(Bytes replica, Bytes capacity) noexcept;

// An untimed evaluation's step time and its hours at utilization (evaluate() = the memory and
// FLOPs, then this), for evaluate_if_fits()'s layouts that turn out to need one.
void time_step(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
               const CommModel& comm, StepCost& cost, EvalMemo* memo = nullptr) noexcept;

// The step's time on the cluster from an evaluated memory and FLOP count (step_time.cpp).
void add_step_time(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
                   const CommModel& comm, StepCost& cost, EvalMemo* memo = nullptr) noexcept;

// The cheap check before evaluate() (timeloop's PreEvaluationCheck): the model states per device
// alone, a lower bound of the peak (every phase holds them), against the capacity. kOutOfMemory
// here means evaluate() would say so too; kFits means "evaluate to know".
[[nodiscard]] Status precheck(const ModelProfile& profile, const Layout& layout,
                              const ClusterProfile& cluster, EvalMemo* memo = nullptr) noexcept;

}  // namespace tb
