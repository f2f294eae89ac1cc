// A machine choice as the evaluator sees it (estimate.hpp: cluster_of, gemm_efficiency_of): the
// device's rates and capacity, the system's fabric, and the notes on what the figures leave out.
#include "trainbudget/eval/estimate.hpp"

namespace tb {

namespace {

GemmEfficiency basis(double value, GemmBasis why) {
  GemmEfficiency out;
  out.value = value;
  out.basis = why;
  return out;
}

// The host as the job's devices on one node share it: its RAM split over their processes, and
// the host link split over the devices behind it when all of them offload at once (data-parallel
// ranks do: each moves its own shard in the same phase of the step).
void share_host(const TrainingJob& job, const MachineChoice& choice, ClusterProfile& c) {
  const int per_node = c.fabric.devices_per_node;
  const int on_node = per_node > 0 ? std::min(job.devices, per_node) : job.devices;
  Bytes ram{0.0};
  if (job.host_memory) {
    ram = *job.host_memory;
  } else if (choice.system != nullptr) {
    ram = choice.system->host_memory;
  } else if (choice.device->host_memory) {
    ram = *choice.device->host_memory;
  }
  if (ram.value() > 0.0) c.host_capacity = ram / static_cast<double>(std::max(1, on_node));
  const int sharing = std::min(std::max(1, c.fabric.devices_per_host_link), std::max(1, on_node));
  if (sharing > 1) c.fabric.host.bandwidth = c.fabric.host.bandwidth / static_cast<double>(sharing);
}

}  // namespace

GemmEfficiency gemm_efficiency_of(const ComputeRate& rate, std::optional<double> given) {
  if (given) return basis(*given, GemmBasis::kGiven);
  if (rate.kind == RateKind::kMeasured) return basis(1.0, GemmBasis::kMeasuredRate);
  if (rate.matmul) {
    return {*rate.matmul / rate.dense, GemmBasis::kMeasuredCeiling, *rate.matmul, rate.dense,
            rate.matmul_source};
  }
  return basis(kDefaultGemmEfficiency, GemmBasis::kDefault);
}

ClusterProfile cluster_of(const TrainingJob& job, const MachineChoice& choice,
                          const ComputeRate* rate, std::vector<Note>* assumptions) {
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
  if (d.first_touch_bandwidth) c.first_touch_bandwidth = *d.first_touch_bandwidth;
  c.kernels = choice.kernels;
  if (choice.system != nullptr) {
    // A host CPU slower than the x86 one PyTorch's eager dispatch was measured on (pytorch/
    // pytorch issue #41383) takes longer to issue each kernel. The compiled and fused figures
    // were measured on a GB200's Grace (data/kernels/blackwell.toml): they stay as they are.
    c.host_cpu_time = choice.system->host_cpu_time;
    c.kernels.dispatch_s[static_cast<std::size_t>(Dispatch::kEager)] *= c.host_cpu_time;
  }
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
  const auto note = [&](Note n) {
    if (assumptions != nullptr) assumptions->push_back(std::move(n));
  };
  if (choice.system != nullptr) {
    c.fabric = choice.system->fabric;
    const System& sys = *choice.system;
    if (c.fabric.point_to_point && job.devices > 1) {
      // No switch: each node has a few cables (docs/scale.md, "Point-to-point fabrics").
      const int mesh = c.fabric.ports_per_node + 1;
      const std::int64_t ports = c.fabric.ports_per_node;
      note(job.devices <= mesh ? Note::of(NoteCode::kMeshCabled, sys.id, {job.devices, ports, mesh})
                               : Note::of(NoteCode::kPastMesh, sys.id, {job.devices, mesh, ports}));
    }
    if (c.fabric.devices_per_node > 0 && job.parallel.tp > c.fabric.devices_per_node) {
      note(
          Note::of(NoteCode::kTpAcrossNodes, sys.id, {job.parallel.tp, c.fabric.devices_per_node}));
    }
    if (crosses_missing_network(c.fabric, job.devices)) {
      const int per_node = c.fabric.devices_per_node;
      note(Note::of(NoteCode::kNoNetworkBetweenNodes, sys.id,
                    {job.devices, (job.devices + per_node - 1) / per_node, per_node}));
    }
  } else if (job.devices > 1) {
    // No node shape: every device on the device's own interconnect, stated as such.
    if (d.interconnect) {
      c.fabric.scale_up.bandwidth = d.interconnect->bidirectional ? d.interconnect->bandwidth / 2.0
                                                                  : d.interconnect->bandwidth;
      note(Note::of(NoteCode::kOneFabricAssumed, d.id, {job.devices},
                    {c.fabric.scale_up.bandwidth.value()}, d.interconnect->name));
    } else {
      note(Note::of(NoteCode::kNoInterconnect, d.id, {job.devices}));
    }
  }
  if (!d.memory_bandwidth) {
    note(Note::of(NoteCode::kNoMemoryBandwidth, d.id));
  }
  if ((job.parallel.offload != Offload::kNone || job.setup.offload_activations) &&
      c.fabric.host.bandwidth.value() <= 0.0) {
    note(Note::of(NoteCode::kNoHostLink));
  }
  share_host(job, choice, c);
  return c;
}

}  // namespace tb
