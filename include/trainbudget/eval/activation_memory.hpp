// Activation memory of a decoder training step: every tensor the forward pass keeps for the
// backward pass, per decoder layer and module, plus the embedding, final norm, LM head, logits
// and loss buffers. Each term names its tensor, dtype and formula; docs/activations.md derives
// them, starting from Korthikanti et al. 2022, eq. 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/lora_spec.hpp"
#include "trainbudget/spec/training_setup.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// A letter of the formulas and its value ("s", 2048, "sequence length").
struct Symbol {
  std::string name;
  double value{0.0};
  std::string meaning;
};

struct ActivationTerm {
  std::string module;    // norms | attention | mlp | moe | adapters | checkpoint | head
  std::string name;      // snake_case id, unique within its layer or the head
  std::string tensor;    // what the tensor is, its dtype and why backward needs it
  std::string formula;   // elements x bytes in ActivationEstimate::symbols, e.g. "b*s*h*e"
  double elements{0.0};  // per decoder layer (or for the head), micro-batch included
  double bytes_per_element{0.0};
  bool attention_core{false};  // recomputed, not kept, under selective recompute

  [[nodiscard]] Bytes bytes() const { return Bytes{elements * bytes_per_element}; }
};

// The decoder layers of one kind (dense or MoE) under the setup's recompute mode.
struct LayerActivations {
  bool moe{false};
  std::int64_t layers{0};  // decoder layers of this kind
  bool recomputed{false};  // these layers run the recompute mode (false: none, or kept whole)
  std::vector<ActivationTerm> terms;  // what one layer keeps until its backward
  Bytes per_layer;                    // sum of terms
  // Held only while this layer's backward runs: selective: the recomputed attention core;
  // full: the whole layer's activations, rebuilt from the checkpointed input.
  Bytes recompute_transient;
  // Activation gradients alive during this layer's backward: the residual-stream gradient in
  // and out (2*b*s*h*e) plus the gradient of the layer's largest saved tensor.
  Bytes backward_workspace;
};

struct ActivationOptions {
  // fp32 per-token norm statistics (mean/rstd). Korthikanti et al. 2022 leave them out of eq. 1
  // (they are 4-8 bytes per token against 34*h); false reproduces the paper's count exactly.
  bool norm_statistics{true};
  // Low-rank adapters: each keeps its rank-r intermediate (A's output, B's input) per token.
  std::vector<AdapterShape> adapters;
  // With adapters: the targets, whose frozen linears without an adapter keep no input.
  std::optional<LoraSpec> lora;
  double lora_dropout{0.0};  // PEFT's lora_dropout of the adapters
  // false: the loss reduces the logits to log-probs and lets them go (preference and RL
  // trainers), whatever the framework's loop does.
  bool keep_logits{true};
  // TRL's online RL scales the logits in place on a slice (StepDims::logits_scaled_in_place).
  bool logits_scaled_in_place{false};
  // The share of the positions that get logits (Layout::logits_share: TRL's logits_to_keep).
  double head_share{1.0};
  // Under block recomputation (recompute full, recompute_layers N): how many layers of each kind
  // recompute in the whole model; the others keep every activation. kAllLayers: all of them.
  std::int64_t recomputed_dense{kAllLayers};
  std::int64_t recomputed_moe{kAllLayers};
};

struct ActivationEstimate {
  std::vector<Symbol> symbols;                // the letters the formulas use
  DType dtype{DType::kBf16};                  // activation dtype (e bytes per element)
  std::vector<LayerActivations> layer_kinds;  // dense first, then MoE; empty kinds omitted
  std::vector<ActivationTerm> head;           // embedding, final norm, LM head, logits, loss
  Bytes layers_total;                         // sum over kinds of per_layer x layers
  Bytes head_total;
  Bytes saved;  // layers_total + head_total: what the end of the forward pass holds
  // fp32 gradient of the logits, b*s*V*4, produced by the loss at the start of backward.
  Bytes logits_gradient;
};

// Every tensor one decoder layer saves with nothing recomputed (dense MLP or MoE block).
[[nodiscard]] std::vector<ActivationTerm> decoder_layer_activation_terms(
    const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype, bool moe_layer,
    const ActivationOptions& options = {});

// The terms outside the decoder layers: token ids, embedding dropout mask, final norm,
// LM head input, logits and the loss's fp32 log-probabilities.
[[nodiscard]] std::vector<ActivationTerm> head_activation_terms(
    const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype,
    const ActivationOptions& options = {});

// The whole step under the setup's recompute mode. The architecture must be valid.
[[nodiscard]] ActivationEstimate estimate_activations(const ModelArchitecture& arch,
                                                      const TrainingSetup& setup, DType dtype,
                                                      const ActivationOptions& options = {});

// Sum of the terms' bytes.
[[nodiscard]] Bytes total_bytes(const std::vector<ActivationTerm>& terms);

}  // namespace tb
