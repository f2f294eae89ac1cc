// What one evaluation runs on: a device's memory and dense rate, the fabric between the devices,
// how much of each collective hides behind compute, and what a device-hour costs in dollars and
// watts. Numbers only; the names and sources stay in the catalog and the result.
#pragma once

#include <vector>

#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/spec/kernel_costs.hpp"
#include "trainbudget/spec/measured_fabric.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// One hop of a fabric as a collective sees it: the bandwidth one device can push in one
// direction, and the latency (alpha) each step of a collective pays.
struct Link {
  BytesPerSecond bandwidth;  // 0: no such link
  Seconds latency{0.0};
  // The bus bandwidth nccl-tests measures at large messages over `bandwidth` (ring algorithm;
  // docs/systems.md): what a collective's bytes move at. 1: no measurement (the figure as is).
  double busbw_fraction{1.0};
};

// How the devices are wired. Devices are numbered node by node; a node is the scale-up domain
// (an NVLink/NVSwitch box, an NVL72 rack, a TPU ICI slice, one Mac).
struct Fabric {
  int devices_per_node{0};  // 0: all devices of the job share the scale-up link (no nodes)
  Link scale_up;            // per device, inside a node
  Link scale_out;           // per NODE, all its NICs (or cables) together, between nodes
  Link host;                // host <-> device, per device (offload traffic)
  // Devices behind one host link (a PCIe switch's uplink to the CPU): offload traffic of a node
  // shares it when they all offload at once, as data-parallel ranks do. 1: a link each.
  int devices_per_host_link{1};
  bool point_to_point{false};  // cables between nodes, no switch (Thunderbolt)
  int ports_per_node{0};       // point-to-point: cables a node takes
  // A measured system's collective curves (`measure --fabric`), owned by its System; the
  // communication model reads them where they cover a collective. nullptr: none.
  const MeasuredFabric* measured{nullptr};
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

// Where the time band's assumptions sit (docs/time.md, "Band"): 1 is the model's own value;
// the band evaluates the step again with each moved to its low and high end.
struct TimeKnobs {
  double kernel{1.0};    // multiplies every kernel's efficiency (GEMM, attention, bandwidth)
  double overhead{1.0};  // multiplies the per-kernel launch and dispatch costs
  double overlap{1.0};   // multiplies the share of communication that hides behind compute
};

struct ClusterProfile {
  Bytes capacity;  // memory per device
  // Host memory one device's process may fill with offloaded states and activations: the
  // node's RAM over the job's devices on it (0: unknown, not checked).
  Bytes host_capacity;
  FlopsPerSecond rate;  // dense peak, per device; 0 when the device has no rate for the dtype
  // The share of `rate` a large GEMM reaches (a measured matmul ceiling / the peak); 1 for a
  // rate that is itself a measured matmul rate.
  double gemm_efficiency{1.0};
  // The 16-bit rate and its GEMM ceiling: what attention and the GEMMs that stay in 16 bits
  // under an fp8 recipe (the LM head, the attention products) run at. Equal to rate and
  // gemm_efficiency unless the compute dtype is fp8.
  FlopsPerSecond rate_16;
  double gemm_efficiency_16{1.0};
  bool fp8_linears{false};  // the linear layers' GEMMs run in fp8 (Transformer Engine's recipe)
  // The system's host CPU time over the reference x86 host's (System::host_cpu_time): the
  // kernels' eager dispatch below already carries it; an inference engine's host work takes it.
  double host_cpu_time{1.0};
  // The device class's kernel figures (data/kernels); compute_units 0 and no attention table
  // price every kernel at the GEMM ceiling and the bandwidth, as a datasheet would.
  KernelCosts kernels;
  // A measured profile's own GEMM shapes (`measure --step`), read by the measured backend; the
  // device's, owned by the catalog. nullptr: none.
  const std::vector<MeasuredGemm>* gemm_table{nullptr};
  DType gemm_dtype{DType::kBf16};  // the dtype `rate` is for
  TimeKnobs knobs;
  // The device memory's bandwidth: what the memory-bound kernels (norms, activations, softmax,
  // dropout, the optimizer step) run at. 0: unknown, those kernels are not timed.
  BytesPerSecond memory_bandwidth;
  // One thread writing pages the OS has just mapped (a measured CPU profile; 0: not measured):
  // what tensors of at least kernels.fresh_tensor_bytes are written at.
  BytesPerSecond first_touch_bandwidth;
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
