// The margin a decision keeps (docs/memory-numbers.md, "Margin"): a fix, an advice line or a
// plan row is offered only when the job's peak stays under the allocatable memory with room for
// what the estimate cannot pin down -- the framework alternatives' band and the caching
// allocator's blocks. The user's own job is judged against the allocatable memory itself
// ("fits", or "fits, tightly" inside the margin); what we propose is judged with it.
#pragma once

#include <optional>
#include <string>

#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/layout.hpp"
#include "trainbudget/spec/recipe.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// The allocated peak under each alternative of the framework fields the user left to the
// profile (loss, norm, logits dtype): the band's ends and the field that moves it most. The
// attention kernel is a choice users make, not an uncertainty: it stays as resolved.
struct MemoryBand {
  Bytes low, high;
  std::string moves_most;
};
[[nodiscard]] MemoryBand framework_band(const TrainingJob& job, const Recipe& recipe,
                                        const Layout& layout, Bytes peak);

// The factor a proposed job's allocated peak is multiplied by before it is held against the
// allocatable memory. With `headroom` (a fraction, the user's --headroom): 1 + headroom. Without:
// the larger of the band's high end over the peak and the reserved peak's 1 + kReservedFraction
// (the caching allocator's expected blocks, device_memory.hpp) -- so a proposal fits even when
// the framework picks the heavier kernel and the allocator keeps its usual cache.
[[nodiscard]] double margin_factor(Bytes allocated, Bytes band_high,
                                   std::optional<double> headroom) noexcept;

// The margin of `job` at `layout` (its band evaluated there): margin_factor of its own peak.
[[nodiscard]] double job_margin(const TrainingJob& job, const Recipe& recipe, const Layout& layout);

// What a proposal's allocated peak may reach: the allocatable memory over the factor.
[[nodiscard]] constexpr Bytes margin_limit(Bytes allocatable, double factor) noexcept {
  return factor > 1.0 ? allocatable / factor : allocatable;
}

}  // namespace tb
