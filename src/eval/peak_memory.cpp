// The phases of a training step and the memory each one holds.
#include "trainbudget/eval/peak_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {
namespace {

constexpr double kFp32 = 4.0;

const LayerActivations& kind_of(const ActivationEstimate& acts, bool moe) {
  for (const LayerActivations& k : acts.layer_kinds) {
    if (k.moe == moe) return k;
  }
  assert(!acts.layer_kinds.empty());
  return acts.layer_kinds.front();
}

PhaseMemory moment(Phase phase, std::string at, Bytes resident, Bytes gradients, Bytes activations,
                   Bytes transient) {
  return {phase,
          std::move(at),
          resident,
          gradients,
          activations,
          transient,
          resident + gradients + activations + transient};
}

}  // namespace

std::string_view phase_key(Phase phase) {
  switch (phase) {
    case Phase::kForwardEnd:
      return "forward_end";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizerStep:
      return "optimizer_step";
  }
  return "forward_end";
}

Bytes GradientLayout::total() const {
  Bytes sum = embedding + head;
  for (Bytes b : layers) sum += b;
  return sum;
}

GradientLayout gradient_layout(const ModelArchitecture& arch, Bytes gradients, bool adapters_only) {
  GradientLayout out;
  const auto layers = static_cast<std::size_t>(arch.num_layers);
  if (adapters_only) {
    out.layers.assign(layers, gradients / static_cast<double>(arch.num_layers));
    return out;
  }
  const ParamCounts counts = count_params(arch);
  const double total = static_cast<double>(counts.total);
  const auto share = [&](double params) { return gradients * (params / total); };
  out.layers.reserve(layers);
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    out.layers.push_back(
        share(static_cast<double>(decoder_layer_params(arch, is_moe_layer(arch, i)))));
  }
  const double final_norm = static_cast<double>(norm_params(arch));
  if (arch.tie_embeddings) {
    // The LM head's backward writes the shared table's gradient.
    out.head = share(static_cast<double>(counts.input_embedding) + final_norm);
  } else {
    out.head = share(static_cast<double>(counts.lm_head) + final_norm);
    out.embedding = share(static_cast<double>(counts.input_embedding));
  }
  return out;
}

Bytes optimizer_step_transient(OptimizerKernel kernel, double largest_tensor,
                               double trainable_params) {
  switch (kernel) {
    case OptimizerKernel::kFused:
      return Bytes{0.0};
    case OptimizerKernel::kPerTensor:
      return Bytes{kFp32 * largest_tensor};
    case OptimizerKernel::kForeach:
      return Bytes{kFp32 * trainable_params};
  }
  return Bytes{0.0};
}

const PhaseMemory& PeakMemory::phase(Phase p) const {
  for (const PhaseMemory& m : phases) {
    if (m.phase == p) return m;
  }
  assert(false && "every phase is present");
  return phases.front();
}

PeakMemory peak_memory(const ModelArchitecture& arch, const ActivationEstimate& acts,
                       const PeakInputs& in, const GradientLayout& grads) {
  PeakMemory out;
  const Bytes all_grads = in.gradients;
  const Bytes persistent = in.gradients_persist ? all_grads : Bytes{0.0};

  // (a) End of forward: every saved activation, the logits and the loss buffer.
  out.phases.push_back(moment(Phase::kForwardEnd, "end of forward", in.resident, persistent,
                              acts.saved, Bytes{0.0}));

  // (b) Backward, moment by moment; keep the worst.
  std::vector<Bytes> saved(static_cast<std::size_t>(arch.num_layers));
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    saved[static_cast<std::size_t>(i)] = kind_of(acts, is_moe_layer(arch, i)).per_layer;
  }
  Bytes layer_acts = acts.layers_total;
  Bytes produced = grads.head;
  const auto held = [&](Bytes so_far) { return in.gradients_persist ? all_grads : so_far; };
  PhaseMemory worst = moment(Phase::kBackward, "backward of the loss and LM head", in.resident,
                             held(produced), acts.saved, acts.logits_gradient);
  for (std::int64_t i = arch.num_layers - 1; i >= 0; --i) {
    const auto idx = static_cast<std::size_t>(i);
    const LayerActivations& kind = kind_of(acts, is_moe_layer(arch, i));
    if (idx < grads.layers.size()) produced += grads.layers[idx];
    PhaseMemory m =
        moment(Phase::kBackward, fmt::format("backward of decoder layer {}", i), in.resident,
               held(produced), layer_acts, kind.recompute_transient + kind.backward_workspace);
    if (m.total > worst.total) worst = std::move(m);
    layer_acts = layer_acts - saved[idx];
  }
  produced += grads.embedding;
  PhaseMemory emb = moment(Phase::kBackward, "backward of the embedding", in.resident,
                           held(produced), Bytes{0.0}, Bytes{0.0});
  if (emb.total > worst.total) worst = std::move(emb);
  out.phases.push_back(std::move(worst));

  // (c) Optimizer step: every gradient, no activations, the optimizer's temporaries.
  out.phases.push_back(moment(Phase::kOptimizerStep, "optimizer step", in.resident, all_grads,
                              Bytes{0.0}, in.optimizer_transient));

  for (const PhaseMemory& m : out.phases) {
    if (m.total > out.peak) {
      out.peak = m.total;
      out.peak_phase = m.phase;
    }
  }
  return out;
}

}  // namespace tb
