// A machine choice as the evaluator sees it (estimate.hpp: cluster_of, gemm_efficiency_of): the
// device's rates and capacity, the system's fabric, and the notes on what the figures leave out.
#include <fmt/format.h>

#include "trainbudget/eval/estimate.hpp"

namespace tb {

GemmEfficiency gemm_efficiency_of(const ComputeRate& rate, std::optional<double> given) {
  if (given) return {*given, "given (the gemm_efficiency field)"};
  if (rate.kind == RateKind::kMeasured) {
    return {1.0, "the rate is a measured matmul rate (used as measured)"};
  }
  if (rate.matmul) {
    return {
        *rate.matmul / rate.dense,
        fmt::format("measured matmul ceiling {:.1f} of {:.1f} TFLOP/s: {}",
                    rate.matmul->value() / kTera, rate.dense.value() / kTera, rate.matmul_source)};
  }
  return {kDefaultGemmEfficiency,
          "default: the median bf16 efficiency of ml-engineering's MAMF table (no measured "
          "ceiling for this device)"};
}

ClusterProfile cluster_of(const TrainingJob& job, const MachineChoice& choice,
                          const ComputeRate* rate, std::vector<std::string>* assumptions) {
  const Device& d = *choice.device;
  ClusterProfile c;
  c.capacity = allocatable_capacity(d, job.devices);
  if (rate != nullptr) {
    c.rate = rate->dense;
    c.gemm_efficiency = gemm_efficiency_of(*rate, job.gemm_efficiency).value;
    c.gemm_dtype = rate->dtype;
    c.rate_16 = c.rate;
    c.gemm_efficiency_16 = c.gemm_efficiency;
    // An fp8 recipe runs its linear layers in fp8 and the rest (attention, the LM head) in
    // 16 bits (Transformer Engine's fp8_autocast covers te.Linear modules only).
    if (rate->dtype == DType::kFp8) {
      c.fp8_linears = true;
      if (const ComputeRate* r16 = select_rate(d, DType::kBf16); r16 != nullptr) {
        c.rate_16 = r16->dense;
        c.gemm_efficiency_16 = gemm_efficiency_of(*r16, job.gemm_efficiency).value;
      }
    }
  }
  if (d.memory_bandwidth) c.memory_bandwidth = *d.memory_bandwidth;
  c.kernels = choice.kernels;
  if (!d.gemm_table.empty()) c.gemm_table = &d.gemm_table;
  c.utilization = job.utilization.value_or(0.0);
  c.overlap = job.overlap;
  c.pue = job.pue;
  if (d.tdp_watts) c.power = *d.tdp_watts;
  if (job.price_usd_per_hour) {
    c.price = DollarsPerHour{*job.price_usd_per_hour};
  } else if (d.price) {
    c.price = d.price->usd_per_hour;
  }
  const auto note = [&](std::string text) {
    if (assumptions != nullptr) assumptions->push_back(std::move(text));
  };
  if (choice.system != nullptr) {
    c.fabric = choice.system->fabric;
    const System& sys = *choice.system;
    if (c.fabric.point_to_point && job.devices > 1) {
      // No switch: each node has a few cables (docs/scale.md, "Point-to-point fabrics").
      const int mesh = c.fabric.ports_per_node + 1;
      note(job.devices <= mesh
               ? fmt::format("{}: {} nodes cabled point to point ({} ports each): a full mesh "
                             "reaches {} nodes; collectives run as a ring at one cable's "
                             "bandwidth",
                             sys.id, job.devices, c.fabric.ports_per_node, mesh)
               : fmt::format("{}: {} nodes is past the {} a full mesh of {} ports reaches: only "
                             "a ring (2 cables each) connects them, so all-to-all (expert "
                             "parallelism) and mesh backends such as MLX's JACCL are out",
                             sys.id, job.devices, mesh, c.fabric.ports_per_node));
    }
    if (c.fabric.devices_per_node > 0 && job.parallel.tp > c.fabric.devices_per_node) {
      note(
          fmt::format("tp {} spans nodes of {}: its per-layer all-reduces run over the "
                      "scale-out link",
                      job.parallel.tp, c.fabric.devices_per_node));
    }
    if (crosses_missing_network(c.fabric, job.devices)) {
      note(
          fmt::format("{} has no network between its nodes: {} devices need {} nodes of {}, so "
                      "this layout cannot run (at most {} devices)",
                      choice.system->id, job.devices,
                      (job.devices + c.fabric.devices_per_node - 1) / c.fabric.devices_per_node,
                      c.fabric.devices_per_node, c.fabric.devices_per_node));
    }
  } else if (job.devices > 1) {
    // No node shape: every device on the device's own interconnect, stated as such.
    if (d.interconnect) {
      c.fabric.scale_up.bandwidth = d.interconnect->bidirectional ? d.interconnect->bandwidth / 2.0
                                                                  : d.interconnect->bandwidth;
      note(fmt::format(
          "no system for {}: all {} devices assumed on one {} fabric at {:.0f} GB/s "
          "per direction, no latency (name a system for nodes and NICs)",
          d.id, job.devices, d.interconnect->name, c.fabric.scale_up.bandwidth.value() / kGiga));
    } else {
      note(
          fmt::format("no system and no interconnect figure for {}: communication between its "
                      "{} devices is not modeled (name a system)",
                      d.id, job.devices));
    }
  }
  if (!d.memory_bandwidth) {
    note(
        fmt::format("no memory bandwidth figure for {}: the memory-bound kernels (norms, "
                    "activations, softmax, the optimizer step) are not timed",
                    d.id));
  }
  if ((job.parallel.offload != Offload::kNone || job.setup.offload_activations) &&
      c.fabric.host.bandwidth.value() <= 0.0) {
    note("no host link figure: offload's transfers are not timed (name a system)");
  }
  return c;
}

}  // namespace tb
