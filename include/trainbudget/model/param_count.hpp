// Exact parameter counts of a ModelArchitecture: total, per token (MoE), embedding and a
// per-module breakdown. Formulas and sources: docs/models.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/param_counts.hpp"

namespace tb {

// Counts every parameter. The architecture must be valid (architecture_problems() empty).
[[nodiscard]] ParamCounts count_params(const ModelArchitecture& arch);

// The named formulas count_params sums, exposed for tests and for part B's breakdowns.
// Each is per decoder layer unless its name says otherwise.
[[nodiscard]] std::int64_t norm_params(const ModelArchitecture& arch);  // one norm
[[nodiscard]] std::int64_t attention_params(const ModelArchitecture& arch);
[[nodiscard]] std::int64_t dense_mlp_params(const ModelArchitecture& arch);
[[nodiscard]] std::int64_t expert_params(const ModelArchitecture& arch);  // one routed expert
[[nodiscard]] std::int64_t shared_expert_params(const ModelArchitecture& arch);
[[nodiscard]] std::int64_t router_params(const ModelArchitecture& arch);
// A linear token mixer, Gated DeltaNet's or Mamba-2's (0 without LinearAttentionSpec).
[[nodiscard]] std::int64_t linear_attention_params(const ModelArchitecture& arch);
// One decoder layer: its token mixer (attention, a linear mixer, or both side by side in a
// parallel hybrid), norms and MLP or MoE block (none, nor its norm, without `mlp`).
[[nodiscard]] std::int64_t decoder_layer_params(const ModelArchitecture& arch, bool moe_layer,
                                                bool linear_attention_layer = false,
                                                bool mlp = true);
[[nodiscard]] std::int64_t mtp_module_params(const ModelArchitecture& arch);
[[nodiscard]] std::int64_t vision_tower_params(const ModelArchitecture& arch);  // whole model
[[nodiscard]] std::int64_t vision_projector_params(const ModelArchitecture& arch);

}  // namespace tb
