// The new weights into a colocated engine after each update (docs/rl.md, "Refit").
#pragma once

#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/layout.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// A colocated engine's refit, per device: the engine's tp-split 16-bit weights
// (`engine_weights`) converted and loaded at the measured rate, after the gather the trainer's
// framework runs first (refit_gather).
[[nodiscard]] Seconds colocated_refit(const TrainingJob& job, const Layout& layout,
                                      const Fabric& fabric, Bytes engine_weights) noexcept;

// The part of it that gathers every parameter whole onto every device before the conversion:
// Megatron-Core's (NeMo RL's) refit; 0 for a trainer whose weights are whole on each device.
[[nodiscard]] Seconds refit_gather(const TrainingJob& job, const Layout& layout,
                                   const Fabric& fabric) noexcept;

}  // namespace tb
