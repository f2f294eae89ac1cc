// The framework band of a job's peak and the margin decisions keep under the allocatable memory.
#include "trainbudget/eval/memory_margin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/model/profile.hpp"

namespace tb {

MemoryBand framework_band(const TrainingJob& job, const Recipe& recipe, const Layout& layout,
                          Bytes peak) {
  MemoryBand out{peak, peak, ""};
  if (!job.model.architecture) return out;
  double widest = 0.0;
  const auto consider = [&](const std::string& name, const TrainingJob& alt) {
    const Bytes m = evaluate(make_profile(alt, recipe), layout, ClusterProfile{}).memory;
    out.low = std::min(out.low, m);
    out.high = std::max(out.high, m);
    const double moved = std::abs(m.value() - peak.value());
    if (moved > widest) {
      widest = moved;
      out.moves_most = name;
    }
  };
  if (!job.setup.loss) {
    for (const LossSpec loss : {LossSpec{LossImpl::kFused, 1}, LossSpec{LossImpl::kFull, 1},
                                LossSpec{LossImpl::kChunked, 8}}) {
      TrainingJob alt = job;
      alt.setup.loss = loss;
      consider("loss=" + loss_name(loss), alt);
    }
  }
  if (!job.setup.norm) {
    for (const NormImpl norm : {NormImpl::kFused, NormImpl::kEager, NormImpl::kEagerFp32}) {
      TrainingJob alt = job;
      alt.setup.norm = norm;
      consider(fmt::format("norm={}", enum_name(norm)), alt);
    }
  }
  if (!job.setup.logits_dtype) {
    for (const LogitsDtype d : {LogitsDtype::kActivation, LogitsDtype::kFp32}) {
      TrainingJob alt = job;
      alt.setup.logits_dtype = d;
      consider(fmt::format("logits_dtype={}", enum_name(d)), alt);
    }
  }
  return out;
}

double margin_factor(Bytes allocated, Bytes band_high, std::optional<double> headroom) noexcept {
  if (headroom) return 1.0 + std::max(0.0, *headroom);
  const double band = allocated.value() > 0.0 ? band_high / allocated : 1.0;
  return std::max(band, 1.0 + kReservedFraction);
}

double job_margin(const TrainingJob& job, const Recipe& recipe, const Layout& layout) {
  if (job.headroom) return margin_factor(Bytes{1.0}, Bytes{1.0}, job.headroom);
  const Bytes peak = evaluate(make_profile(job, recipe), layout, ClusterProfile{}).memory;
  return margin_factor(peak, framework_band(job, recipe, layout, peak).high, std::nullopt);
}

}  // namespace tb
