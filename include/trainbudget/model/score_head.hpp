// A reward or value model made from a causal LM (docs/rl.md, "PPO").
#pragma once

#include "trainbudget/spec/model_source.hpp"

namespace tb {

// The same architecture with a score head of one output in place of the LM head, as
// transformers' AutoModelForSequenceClassification(num_labels=1) builds it and TRL's PPO example
// loads the value and reward models; its parameter count redone for that head. A source without
// an architecture is returned as it is.
[[nodiscard]] ModelSource with_score_head(ModelSource model);

}  // namespace tb
