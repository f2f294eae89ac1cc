// Peak memory of a training step as the maximum over its phases — end of forward, during
// backward, optimizer step — not the sum of everything. docs/activations.md ("Peak over
// phases") explains the model and its choices.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/eval/activation_memory.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

enum class Phase { kForwardEnd, kBackward, kOptimizerStep };

// JSON value of memory.peak_phase: "forward_end" | "backward" | "optimizer_step".
[[nodiscard]] std::string_view phase_key(Phase phase);

// How the optimizer step is run, which sets its transient memory.
enum class OptimizerKernel {
  kFused,      // one kernel updates each parameter in place (torch fused=True, apex FusedAdam)
  kPerTensor,  // a loop over tensors (torch foreach=False): one fp32 temporary of the largest
  kForeach,    // torch foreach=True: each temporary is a list over all trainable tensors
};

// Where the gradients land as backward runs, bottom to top.
struct GradientLayout {
  Bytes embedding;            // input embedding table's gradient (last, unless tied)
  std::vector<Bytes> layers;  // per decoder layer, index 0 first
  Bytes head;                 // LM head + final norm (the shared table when tied)

  [[nodiscard]] Bytes total() const;
};

// `gradients` spread over the model in proportion to each part's parameters (count_params'
// formulas), or, with adapters_only, evenly over the decoder layers (LoRA adapters there only).
[[nodiscard]] GradientLayout gradient_layout(const ModelArchitecture& arch, Bytes gradients,
                                             bool adapters_only);

// The optimizer step's temporary memory. Per-tensor: one fp32 copy of the largest trainable
// tensor (the sqrt(v)+eps temporary of torch.optim's single-tensor Adam); foreach: one fp32
// list as large as all trainable parameters (torch _multi_tensor_adam's exp_avg_sq_sqrt);
// fused: none.
[[nodiscard]] Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                                             double trainable_params);

struct PeakInputs {
  Bytes resident;                 // weights, master weights, optimizer states, frozen weights
  Bytes gradients;                // the recipe's gradient buffer for the trainable parameters
  bool gradients_persist{false};  // alive across forwards (gradient accumulation)
  Bytes optimizer_transient;
};

struct PhaseMemory {
  Phase phase{Phase::kForwardEnd};
  std::string at;  // the moment: "end of forward", "backward of decoder layer 31", ...
  Bytes resident;
  Bytes gradients;    // gradients held at that moment
  Bytes activations;  // saved activations still held
  Bytes transient;    // logits gradient, recompute, backward workspace or optimizer temporary
  Bytes total;
};

struct PeakMemory {
  std::vector<PhaseMemory> phases;  // forward_end, backward (its worst moment), optimizer_step
  Phase peak_phase{Phase::kForwardEnd};
  Bytes peak;

  [[nodiscard]] const PhaseMemory& phase(Phase p) const;
};

// Walks the step: the end of forward; backward from the loss down through the LM head, every
// decoder layer top to bottom and the embedding (activations released, gradients produced);
// the optimizer step. Ties go to the earlier phase.
[[nodiscard]] PeakMemory peak_memory(const ModelArchitecture& arch,
                                     const ActivationEstimate& activations,
                                     const PeakInputs& inputs, const GradientLayout& gradients);

}  // namespace tb
