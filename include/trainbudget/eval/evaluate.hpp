// The hot path: one model profile, one layout, one device -> memory per device, the peak over
// the step's phases, FLOPs, hours and whether it fits. No allocation, no strings, no throw;
// the planner calls it millions of times a second. Words about the same numbers come from the
// views (estimate.hpp, explain.hpp), which read the same term tables.
#pragma once

#include <array>
#include <cstdint>

#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/eval/phase.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

// Why an evaluation does not fit, or that it does.
enum class Status : std::uint8_t {
  kFits,         // the peak fits the device's memory
  kOutOfMemory,  // the peak is larger than the device's memory
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
  // Model states per device after ZeRO partitioning, and what a full replica would hold.
  Bytes states;
  Bytes gradients;  // the states' gradient rows
  Bytes replica;    // full replica of the states (+ saved activations with an architecture)
  // With an architecture: activations and the peak over phases.
  LayerKindBytes dense;  // one dense decoder layer
  LayerKindBytes moe;    // one MoE decoder layer
  Bytes layers_saved, head_saved, saved, logits_gradient;
  std::array<PhaseCost, 3> phases{};  // indexed by Phase
  std::int64_t backward_at{kBackwardAtHead};
  Phase peak_phase{Phase::kForwardEnd};
  Bytes memory;  // per device: the peak with an architecture, the states without
  // Compute.
  FlopCounts flop_terms;             // with an architecture
  FlopsPerToken flops_per_token;     // model FLOPs (MFU)
  FlopsPerToken hardware_per_token;  // + recomputation (HFU); == flops_per_token without one
  FlopsPerToken reference_6n;
  Flops total;
  Seconds at_peak{0.0};         // 100 % utilization, ideal scaling over the devices
  Seconds at_utilization{0.0};  // at the cluster's utilization
  int devices_to_fit{1};        // the ZeRO-3 lower bound: replica / capacity, rounded up
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

// The step's dims: the profile's widths with the layout's b, s, e, p and switches.
[[nodiscard]] StepDims step_dims(const ModelProfile& profile, const Layout& layout,
                                 bool moe_layer) noexcept;

[[nodiscard]] StepCost evaluate(const ModelProfile& profile, const Layout& layout,
                                const ClusterProfile& cluster) noexcept;

// The cheap check before evaluate() (timeloop's PreEvaluationCheck): the model states per device
// alone, a lower bound of the peak (every phase holds them), against the capacity. kOutOfMemory
// here means evaluate() would say so too; kFits means "evaluate to know".
[[nodiscard]] Status precheck(const ModelProfile& profile, const Layout& layout,
                              const ClusterProfile& cluster) noexcept;

}  // namespace tb
