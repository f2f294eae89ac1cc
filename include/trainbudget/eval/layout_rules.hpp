// Which layouts a model can run: the divisibility rules of tensor, pipeline, context and expert
// parallelism (Megatron-LM's argument checks, megatron/training/arguments.py), checked once per
// request with words (layout_problems) and in the planner's loop without (first_violation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

enum class LayoutRule : std::uint8_t {
  kOk,
  kNeedsModel,          // tp, pp, cp, ep, virtual stages or SP without an architecture
  kDevices,             // devices not a multiple of tp x pp x cp
  kHeads,               // tp does not divide the attention heads
  kKvHeads,             // tp does not divide the key/value heads
  kLayers,              // more pipeline chunks (pp x virtual_stages) than decoder layers
  kVirtualStages,       // virtual stages without a pipeline
  kInterleavedBatches,  // interleaving needs the micro-batches a multiple of pp
  kExperts,             // ep > 1 on a dense model, or ep does not divide the experts
  kExpertRanks,         // ep x etp does not divide the tp x cp x dp ranks
  kSequence,            // cp does not divide the sequence (2 x cp chunks for causal balance)
  kCpAttention,         // context parallelism needs a flash kernel
  kSequenceParallel,    // sequence parallelism needs tp > 1
  kOffloadParams,       // offloading the weights needs ZeRO-3
  kShardGroup,          // hybrid sharding needs ZeRO and a group dividing dp x cp
  kPpScatterGather,     // scatter-gather of pipeline sends needs tp > 1 and pp > 1
  kStageLayers,         // the first/last stage's layers leave the other stages an uneven split
};
// How many LayoutRule values there are, kOk included (tables indexed by the rule).
inline constexpr std::size_t kLayoutRules = static_cast<std::size_t>(LayoutRule::kStageLayers) + 1;

// The first rule the layout breaks, or kOk. No allocation.
[[nodiscard]] LayoutRule first_violation(const ModelProfile& profile,
                                         const Layout& layout) noexcept;

// Every rule the layout breaks, each as a problem naming its field.
[[nodiscard]] std::vector<Problem> layout_problems(const ModelProfile& profile,
                                                   const Layout& layout);

}  // namespace tb
