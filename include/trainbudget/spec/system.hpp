// A system: how devices of one kind are put together — devices per node, the scale-up link
// inside a node, the NICs (or cables) between nodes and the host link — each figure sourced.
// data/systems/*.toml (docs/systems.md); io builds these, the evaluator reads their Fabric.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "trainbudget/spec/cluster.hpp"

namespace tb {

struct LinkInfo {
  std::string name;      // "NVLink 4 through NVSwitch", "InfiniBand NDR 400 Gb/s, 8x ConnectX-7"
  std::string topology;  // switched | torus | ring | mesh | pcie | point-to-point
  std::string source;
  int nics{0};             // scale-out: NICs (or cables) per node
  BytesPerSecond per_nic;  // scale-out: one NIC, one direction
};

struct System {
  std::string id;
  std::string name;
  std::string device;  // a device id of the hardware catalog
  std::string notes;
  std::string origin;  // the file it came from
  Fabric fabric;
  LinkInfo scale_up;
  LinkInfo scale_out;
  std::string host_source;
  Bytes host_memory;  // per node; 0 unknown
  // The host CPU's time for the same single-threaded framework work (PyTorch's per-op dispatch,
  // an inference engine's Python between decode steps) over the x86 host's the dispatch and
  // engine figures were measured on ([host] cpu_time_ratio; docs/systems.md). 1: such a host.
  double host_cpu_time{1.0};
  // What `measure --fabric` timed ([measured] in the file); fabric.measured points at it.
  std::shared_ptr<const MeasuredFabric> measured;

  void set_measured(MeasuredFabric m) {
    measured = std::make_shared<const MeasuredFabric>(std::move(m));
    fabric.measured = measured.get();
  }
};

}  // namespace tb
