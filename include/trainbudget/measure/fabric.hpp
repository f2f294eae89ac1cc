// The fabric measurement (`trainbudget measure --fabric` under MPI, docs/fabric.md): what is
// timed, the raw samples the MPI plugin returns, and how they become a system profile. Pure;
// the timing itself runs in the plugin (src/measure/mpi_fabric_plugin.cpp).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/measure/records.hpp"
#include "trainbudget/spec/measured_fabric.hpp"
#include "trainbudget/spec/system.hpp"

namespace tb::measure {

struct FabricOptions {
  std::vector<double> sizes;     // bytes, ascending; empty: default_fabric_sizes()
  std::vector<Collective> ops;   // empty: every collective
  int repetitions{5};            // timed calls per size
  int warmups{2};                // untimed calls first
  double timeout_seconds{60.0};  // one size of one collective; past it the run ends
  std::function<void(std::string_view)> progress;  // rank 0: one line per collective and tier
};

// One collective at one size on one tier: every timed call, each the slowest rank's time (a
// collective is done when its last rank is).
struct FabricRun {
  Collective op{Collective::kAllReduce};
  FabricTier tier{FabricTier::kIntraNode};
  int ranks{2};
  double bytes{0.0};
  std::vector<double> seconds;
};

struct FabricMeasurement {
  std::vector<FabricRun> runs;
  std::vector<std::string> hosts;  // one per node, as MPI_Get_processor_name gives them
  int ranks{0};
  int ranks_per_host{0};
  std::string runtime;  // the MPI library's own version string
  std::string buffers;  // "host"
  std::string date;     // ISO 8601, UTC
};

// 8 B to 1 GiB, every factor of 8 (nccl-tests' -b 8 -e 1G -f 8).
[[nodiscard]] std::vector<double> default_fabric_sizes();
// The sizes field: bytes with an optional K, M or G (binary: 1K = 1024), comma-separated, each
// from 8 B to 1 GiB (MPI counts are int); sorted, duplicates removed. Throws InvalidArgument naming
// `field`.
[[nodiscard]] std::vector<double> parse_fabric_sizes(std::string_view text, std::string_view field);
// The collectives field: names of Collective or "all".
[[nodiscard]] std::vector<Collective> parse_collectives(std::string_view text,
                                                        std::string_view field);

// A run summarised as nccl-tests prints it: algorithm bandwidth bytes / median time, bus
// bandwidth that times bus_bandwidth_factor (spec/collective.hpp), in bytes per second.
struct FabricRow {
  FabricRun run;
  SampleStats stats;
  double algbw{0.0};
  double busbw{0.0};
};
[[nodiscard]] std::vector<FabricRow> fabric_rows(const FabricMeasurement& m);

// The medians as the curves a system file carries.
[[nodiscard]] MeasuredFabric measured_fabric(const FabricMeasurement& m);

// A system profile of the measurement: `device` per rank, ranks_per_host devices per node; the
// scale-up link from the intra-node curve and, with more than one host, the scale-out link from
// the inter-node one (median bus bandwidth past 1 MiB; per-step latency = the smallest size's
// time over the collective's ring steps), sourced as measured; the curves under [measured].
// Throws Error when nothing was measured.
[[nodiscard]] System fabric_system(const FabricMeasurement& m, std::string id, std::string device);

}  // namespace tb::measure
