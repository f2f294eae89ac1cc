// From compute time to wall-clock time (docs/time.md, "Goodput"): a run loses the work since its
// last checkpoint and a restart at every failure, and stalls for every checkpoint it writes.
// Daly's expected wall time at his optimal checkpoint interval, with a failure rate per device
// from Llama 3's 54-day snapshot and the checkpoint's bytes at a storage write rate from the
// same paper; or the user's goodput as given.
#pragma once

#include <optional>

#include "trainbudget/units/units.hpp"

namespace tb {

// Unexpected interruptions per device-hour: 419 in a 54-day snapshot of Llama 3 405B
// pre-training on 16,384 H100s (Dubey et al. 2024, "The Llama 3 Herd of Models", sec. 3.3.4 and
// Table 5; the 47 planned interruptions are left out: they checkpoint first). One failure per
// ~50,700 device-hours.
inline constexpr double kFailuresPerDeviceHour = 419.0 / (16384.0 * 54.0 * 24.0);
// Detecting a failure, restarting the job and reloading the last checkpoint: 10 minutes (Kokolis
// et al. 2025, "Revisiting Reliability in Large-Scale ML Research Clusters", sec. 5: u0 of 5-20
// minutes; Jiang et al. 2024, MegaScale, sec. 5: detection and diagnosis under 10 minutes).
inline constexpr double kRestartSeconds = 600.0;
// Storage write rate per node: Llama 3's 2 TB/s sustained over its 2,048 nodes of 8 GPUs
// (sec. 3.3.1), about 1 GB/s a node.
inline constexpr double kStorageBytesPerSecondPerNode = 2e12 / 2048.0;

struct Goodput {
  bool modeled{false};      // false: the user's goodput replaced the model
  double fraction{1.0};     // compute time / wall-clock time
  Seconds wall{0.0};        // compute / fraction
  Seconds mtbf{0.0};        // the job's mean time between failures
  Seconds checkpoint{0.0};  // one checkpoint's stall
  Seconds interval{0.0};    // compute between checkpoints (Daly's optimum)
  double failures{0.0};     // expected over the run
};

// `compute`: the run's compute time; `devices` over `nodes`; `checkpoint_bytes`: one
// checkpoint (weights, master weights and optimizer states of one replica); `given`: the
// user's goodput in (0, 1], replacing the model.
[[nodiscard]] Goodput goodput_of(Seconds compute, int devices, int nodes, Bytes checkpoint_bytes,
                                 std::optional<double> given) noexcept;

}  // namespace tb
