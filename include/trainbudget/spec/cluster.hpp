// What one evaluation runs on: a device's memory and dense rate, the fabric between the devices,
// how much of each collective hides behind compute, and what a device-hour costs in dollars and
// watts. Numbers only; the names and sources stay in the catalog and the result.
#pragma once

#include "trainbudget/units/units.hpp"

namespace tb {

// One hop of a fabric as a collective sees it: the bandwidth one device can push in one
// direction, and the latency (alpha) each step of a collective pays.
struct Link {
  BytesPerSecond bandwidth;  // 0: no such link
  Seconds latency{0.0};
};

// How the devices are wired. Devices are numbered node by node; a node is the scale-up domain
// (an NVLink/NVSwitch box, an NVL72 rack, a TPU ICI slice, one Mac).
struct Fabric {
  int devices_per_node{0};     // 0: all devices of the job share the scale-up link (no nodes)
  Link scale_up;               // per device, inside a node
  Link scale_out;              // per NODE, all its NICs (or cables) together, between nodes
  Link host;                   // host <-> device, per device (offload traffic)
  bool point_to_point{false};  // cables between nodes, no switch (Thunderbolt)
  int ports_per_node{0};       // point-to-point: cables a node takes
};

// The share of each collective's time that can hide behind the compute window it overlaps with
// (docs/scale.md, "Overlap"): 1 hides all that fits, 0 none. Defaults follow what the frameworks
// overlap out of the box: DDP/FSDP/ZeRO gradient buckets and parameter prefetch, the pipeline's
// point-to-point and ring attention's K/V exchange run beside compute; Megatron-LM's tensor-
// parallel all-reduces and the MoE all-to-all sit on the critical path unless asked.
struct Overlap {
  double dp{1.0};
  double tp{0.0};
  double pp{1.0};
  double cp{1.0};
  double ep{0.0};
  double offload{0.0};
};

struct ClusterProfile {
  Bytes capacity;       // memory per device
  FlopsPerSecond rate;  // dense peak, per device; 0 when the device has no rate for the dtype
  // The share of `rate` a large GEMM reaches (a measured matmul ceiling / the peak); 1 for a
  // rate that is itself a measured matmul rate.
  double gemm_efficiency{1.0};
  // The device memory's bandwidth: what the memory-bound kernels (norms, activations, softmax,
  // dropout, the optimizer step) run at. 0: unknown, those kernels are not timed.
  BytesPerSecond memory_bandwidth;
  // > 0: the user's model-FLOPs utilization, which replaces the step-time model (hours = model
  // FLOPs / (devices x rate x utilization)); 0: model the step.
  double utilization{0.0};
  Fabric fabric;
  Overlap overlap;
  Watts power;  // per device (TDP); 0 unknown
  double pue{1.0};
  DollarsPerHour price;  // per device-hour; 0 unknown
};

}  // namespace tb
