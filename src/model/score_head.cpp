// A reward or value model made from a causal LM (docs/rl.md, "PPO").
#include "trainbudget/model/score_head.hpp"

#include "trainbudget/model/param_count.hpp"

namespace tb {

ModelSource with_score_head(ModelSource model) {
  if (!model.architecture) return model;
  model.architecture->head_outputs = 1;
  model.counts = count_params(*model.architecture);
  return model;
}

}  // namespace tb
