// Goodput: Daly's expected wall time with failures and checkpoints (docs/time.md, "Goodput").
#include "trainbudget/eval/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace tb {
namespace {

// Daly 2006, "A higher order estimate of the optimum checkpoint interval for restart dumps"
// (Future Generation Computer Systems 22(3), 303-312), its higher-order optimum: for a checkpoint
// time d below twice the
// MTBF M, tau = sqrt(2 d M) (1 + sqrt(d / 2M) / 3 + (d / 2M) / 9) - d; else tau = M.
double optimal_interval(double d, double m) {
  if (d >= 2.0 * m) return m;
  const double x = d / (2.0 * m);
  return std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d;
}

// Daly 2006, the complete model of the expected wall time (Poisson failures, restart R) of a run of
// compute T_s checkpointed every tau, T_w = M e^(R/M) (e^((tau + d)/M) - 1) T_s / tau; the fraction
// is T_s / T_w.
double daly_fraction(double tau, double d, double r, double m) {
  const double wall_per_compute = m * std::exp(r / m) * std::expm1((tau + d) / m) / tau;
  return wall_per_compute > 0.0 ? 1.0 / wall_per_compute : 1.0;
}

}  // namespace

Goodput goodput_of(Seconds compute, int devices, int nodes, Bytes checkpoint_bytes,
                   std::optional<double> given) noexcept {
  Goodput out;
  if (given && *given > 0.0) {
    out.fraction = std::min(1.0, *given);
    out.wall = Seconds{compute.count() / out.fraction};
    return out;
  }
  if (compute.count() <= 0.0 || devices < 1) {
    out.wall = compute;
    return out;
  }
  out.modeled = true;
  const double m = 3600.0 / (kFailuresPerDeviceHour * static_cast<double>(devices));
  const double d = checkpoint_bytes.value() / (kStorageBytesPerSecondPerNode * std::max(1, nodes));
  const double tau = std::max(1.0, optimal_interval(d, m));
  out.mtbf = Seconds{m};
  out.checkpoint = Seconds{d};
  out.interval = Seconds{tau};
  out.fraction = std::clamp(daly_fraction(tau, d, kRestartSeconds, m), 1e-3, 1.0);
  out.wall = Seconds{compute.count() / out.fraction};
  out.failures = out.wall.count() / m;
  return out;
}

}  // namespace tb
