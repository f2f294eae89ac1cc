// Training recipes: how many bytes each trainable parameter costs, component by component.
//
// Tools disagree by 2x on "model states" because they count different components; each recipe
// here names its components and cites where the convention comes from (docs/recipes.md).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// What a per-parameter byte is spent on. The JSON key of each kind is enum_name().
enum class StateKind { kWeights, kGradients, kOptimizer, kMaster };

template <>
struct EnumNames<StateKind> {
  static constexpr std::array<std::pair<StateKind, std::string_view>, 4> kNames{
      {{StateKind::kWeights, "weights"},
       {StateKind::kGradients, "gradients"},
       {StateKind::kOptimizer, "optimizer_states"},
       {StateKind::kMaster, "master_weights"}}};
};

struct StateComponent {
  StateKind kind;
  std::string_view label;  // e.g. "Adam m, v (fp32)"
  double bytes_per_param;
  // The ZeRO stage from which this component is partitioned over the data-parallel devices;
  // 0 = by its kind (default_shard_stage).
  int shard_stage{0};
};

// ZeRO (Rajbhandari et al. 2020, §5): stage 1 partitions the optimizer states (with the fp32
// master copy), stage 2 also the gradients, stage 3 also the parameters.
[[nodiscard]] int default_shard_stage(StateKind kind);
[[nodiscard]] int shard_stage(const StateComponent& component);

struct Recipe {
  std::string_view id;
  std::string_view title;
  DType compute_dtype;                     // the matmul dtype, which picks the machine's rate
  double frozen_weight_bytes;              // bytes per frozen (not trained) parameter
  std::vector<StateComponent> components;  // per trainable parameter
  std::string_view source;

  // Sum of the components: the recipe's bytes per trainable parameter.
  [[nodiscard]] double bytes_per_trainable_param() const;
};

// Every built-in recipe, in the order --help lists them.
[[nodiscard]] std::span<const Recipe> all_recipes();

// The recipe with this id; throws InvalidArgument naming --recipe and the accepted ids.
[[nodiscard]] const Recipe& find_recipe(std::string_view id);

// One recipe's bytes per trainable parameter summed by kind, for side-by-side comparison.
struct RecipeBreakdown {
  const Recipe* recipe{nullptr};
  double weights{0.0};
  double gradients{0.0};
  double optimizer{0.0};
  double master{0.0};
  [[nodiscard]] double total() const { return weights + gradients + optimizer + master; }
};

// Every built-in recipe broken down by kind, in all_recipes() order.
[[nodiscard]] std::vector<RecipeBreakdown> recipe_breakdowns();

// Bytes of one Adam second-moment value: half the recipe's Adam state (its optimizer
// components whose label names Adam's m and v), 0 for SGD, Adafactor and states without a
// second moment. The optimizer step's temporary is in this dtype (eval/phase.hpp).
[[nodiscard]] double adam_moment_bytes(const Recipe& recipe);

// "amp-adam|megatron|..." for --help and error messages.
[[nodiscard]] std::string recipe_choices();

}  // namespace tb
