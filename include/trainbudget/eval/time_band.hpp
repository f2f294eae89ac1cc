// A band for the step's time, as memory has one: the step evaluated again with each assumption
// the user did not give moved to its low and its high end, and the one that moves it most
// (docs/time.md, "Band").
#pragma once

#include <string_view>

#include "trainbudget/eval/evaluate.hpp"

namespace tb {

// The assumptions a band moves.
enum class TimeAssumption : std::uint8_t { kKernelEfficiency, kOverhead, kOverlap };

template <>
struct EnumNames<TimeAssumption> {
  static constexpr std::array<std::pair<TimeAssumption, std::string_view>, 3> kNames{
      {{TimeAssumption::kKernelEfficiency, "kernel_efficiency"},
       {TimeAssumption::kOverhead, "overhead"},
       {TimeAssumption::kOverlap, "overlap"}}};
};

struct TimeBand {
  bool present{false};  // false: the user's utilization replaced the model, or no rate
  Seconds low{0.0};     // the step with every assumption at its fast end
  Seconds high{0.0};    // and at its slow end
  TimeAssumption moves_most{TimeAssumption::kKernelEfficiency};
};

// The ends each assumption takes (docs/time.md cites each): kernel efficiency x[0.84, 1.0],
// launch and dispatch costs x[0.5, 2.0], the share of communication overlap hides x[0, 1]; then
// the model's measured error on published runs widens the ends (x0.772 fast, x1.087 slow).
[[nodiscard]] TimeBand time_band(const ModelProfile& profile, const Layout& layout,
                                 const ClusterProfile& cluster) noexcept;

}  // namespace tb
