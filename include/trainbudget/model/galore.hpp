// GaLore (Zhao et al. 2024, "GaLore: Memory-Efficient LLM Training by Gradient Low-Rank
// Projection"): Adam's moments kept for each projected weight's gradient in a rank-r subspace,
// as galore_torch keeps them (docs/recipes.md, "GaLore").
#pragma once

#include <cstdint>

#include "trainbudget/spec/architecture.hpp"

namespace tb {

// The share of full AdamW's optimizer-state elements (2 per trainable parameter) that GaLore at
// rank `rank` keeps for the whole model: each projected m x n weight keeps the projector
// (min(m, n) x r) and the two moments of the projected gradient (max(m, n) x r each), the
// paper's sec. 4.2 "mr + 2nr" for m <= n, with r at most min(m, n); every other parameter
// (embeddings, the LM head, norms, biases, routers) keeps both moments in full. Projected: the
// decoder layers' attention and MLP linear weights (galore_torch's target_modules_list "attn",
// "mlp"; LLaMA-Factory's galore_target "all"). 1 when rank < 1.
[[nodiscard]] double galore_state_share(const ModelArchitecture& arch, std::int64_t rank);

}  // namespace tb
