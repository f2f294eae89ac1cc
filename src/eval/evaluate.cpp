// The evaluator: arithmetic over the profile's numbers and the term tables, nothing else.
#include "trainbudget/eval/evaluate.hpp"

#include <cmath>

namespace tb {
namespace {

PhaseCost moment(Bytes resident, Bytes gradients, Bytes activations, Bytes transient) {
  return {resident, gradients, activations, transient,
          resident + gradients + activations + transient};
}

// The optimizer step's temporary under torch.optim's default single-tensor Adam.
Bytes optimizer_transient(const ModelProfile& p) {
  return optimizer_step_transient(OptimizerKernel::kPerTensor, p.largest_trainable_tensor,
                                  p.trainable.value());
}

// Activations and the peak over phases (docs/activations.md, "Peak over phases"): the end of
// forward; backward from the loss down through the LM head, every decoder layer top to bottom
// and the embedding (activations released, gradients produced); the optimizer step. Ties go to
// the earlier moment.
void step_memory(const ModelProfile& p, const Layout& l, StepCost& out) {
  const StepDims dense = step_dims(p, l, false);
  if (p.dense_layers > 0) out.dense = layer_kind_bytes(dense, l.recompute);
  if (p.moe_layers > 0) out.moe = layer_kind_bytes(step_dims(p, l, true), l.recompute);
  Bytes layers{0.0};
  if (p.dense_layers > 0) layers += out.dense.per_layer * static_cast<double>(p.dense_layers);
  if (p.moe_layers > 0) layers += out.moe.per_layer * static_cast<double>(p.moe_layers);
  out.layers_saved = layers;
  out.head_saved = head_bytes(dense);
  out.saved = out.layers_saved + out.head_saved;
  out.logits_gradient = logits_gradient_bytes(dense);

  const Bytes resident = out.states - out.gradients;
  const Bytes all = out.gradients;
  const bool persist = l.grad_accum > 1;  // accumulation keeps gradients across forwards
  const auto held = [&](Bytes so_far) { return persist ? all : so_far; };

  auto& forward = out.phases[static_cast<std::size_t>(Phase::kForwardEnd)];
  forward = moment(resident, persist ? all : Bytes{0.0}, out.saved, Bytes{0.0});

  const auto layer_count = static_cast<std::int64_t>(p.layer_is_moe.size());
  Bytes produced = p.adapters_only ? Bytes{0.0} : all * p.head_gradient_share;
  PhaseCost worst = moment(resident, held(produced), out.saved, out.logits_gradient);
  std::int64_t worst_at = kBackwardAtHead;
  Bytes layer_acts = out.layers_saved;
  for (std::int64_t i = layer_count - 1; i >= 0; --i) {
    const auto idx = static_cast<std::size_t>(i);
    const LayerKindBytes& kind = p.layer_is_moe[idx] != 0 ? out.moe : out.dense;
    produced += p.adapters_only ? all / static_cast<double>(layer_count)
                                : all * p.layer_gradient_share[idx];
    const PhaseCost m = moment(resident, held(produced), layer_acts,
                               kind.recompute_transient + kind.backward_workspace);
    if (m.total > worst.total) {
      worst = m;
      worst_at = i;
    }
    layer_acts = layer_acts - kind.per_layer;
  }
  produced += p.adapters_only ? Bytes{0.0} : all * p.embedding_gradient_share;
  const PhaseCost embedding = moment(resident, held(produced), Bytes{0.0}, Bytes{0.0});
  if (embedding.total > worst.total) {
    worst = embedding;
    worst_at = kBackwardAtEmbedding;
  }
  out.phases[static_cast<std::size_t>(Phase::kBackward)] = worst;
  out.backward_at = worst_at;
  out.phases[static_cast<std::size_t>(Phase::kOptimizerStep)] =
      moment(resident, all, Bytes{0.0}, optimizer_transient(p));

  Bytes peak{0.0};
  for (std::size_t i = 0; i < out.phases.size(); ++i) {
    if (out.phases[i].total > peak) {
      peak = out.phases[i].total;
      out.peak_phase = static_cast<Phase>(i);
    }
  }
  out.memory = peak;
  out.replica += out.saved * 1.0;  // activations are never partitioned by ZeRO
}

// The model states per device after ZeRO partitioning, their gradient rows, and a replica.
void add_states(const ModelProfile& p, const Layout& l, StepCost& out) {
  for (const StateTerm& t : p.states) {
    const int sharded = zero_partition(l.zero_stage, t.shard_stage, l.devices);
    const Bytes bytes = t.bytes / static_cast<double>(sharded);
    out.states += bytes;
    if (t.key == StateKey::kGradients) out.gradients += bytes;
    out.replica += bytes * static_cast<double>(sharded);
  }
}

void step_flops(const ModelProfile& p, const Layout& l, StepCost& out) {
  const Params n = p.params_active;
  out.reference_6n = flops_per_token_full(n);
  switch (p.method) {
    case Method::kFull:
      out.flops_per_token = flops_per_token_full(n);
      break;
    case Method::kLora:
    case Method::kQlora:
      out.flops_per_token = flops_per_token_lora(n, p.trainable);
      break;
    case Method::kFreeze:
      out.flops_per_token = flops_per_token_freeze(n, p.trainable);
      break;
  }
  out.hardware_per_token = out.flops_per_token;
  if (!p.has_architecture) return;
  out.flop_terms =
      count_flops(p.flops, FlopsSetup{l.seq_len, l.attention, l.recompute, l.causal_flops});
  // Freeze keeps its parameter formula: the architecture's count assumes every layer trains.
  if (p.method == Method::kFreeze) return;
  out.flops_per_token = FlopsPerToken{out.flop_terms.model_per_token};
  out.hardware_per_token = FlopsPerToken{out.flop_terms.hardware_per_token};
  out.reference_6n = FlopsPerToken{p.flops.reference_6n};
}

}  // namespace

// The coefficients are FLOPs per parameter per token; the one place parameters become FLOPs.
FlopsPerToken flops_per_token_full(Params params) { return FlopsPerToken{6.0 * params.value()}; }

FlopsPerToken flops_per_token_lora(Params base_params, Params adapter_params) {
  return FlopsPerToken{4.0 * base_params.value() + 6.0 * adapter_params.value()};
}

FlopsPerToken flops_per_token_freeze(Params params, Params trained_params) {
  return FlopsPerToken{2.0 * params.value() + 4.0 * trained_params.value()};
}

StepDims step_dims(const ModelProfile& profile, const Layout& layout, bool moe_layer) noexcept {
  return with_step(profile.shape, layout.micro_batch, layout.seq_len, layout.activation_dtype,
                   layout.attention, layout.dropout, moe_layer);
}

Status precheck(const ModelProfile& profile, const Layout& layout,
                const ClusterProfile& cluster) noexcept {
  StepCost states;
  add_states(profile, layout, states);
  return states.states <= cluster.capacity ? Status::kFits : Status::kOutOfMemory;
}

StepCost evaluate(const ModelProfile& profile, const Layout& layout,
                  const ClusterProfile& cluster) noexcept {
  StepCost out;
  add_states(profile, layout, out);
  out.memory = out.states;
  if (profile.has_architecture) step_memory(profile, layout, out);
  step_flops(profile, layout, out);
  out.total = out.flops_per_token * profile.tokens;

  if (cluster.rate.value() > 0.0) {
    // Ideal data-parallel scaling: N devices finish N times sooner (no communication cost).
    const FlopsPerSecond aggregate = cluster.rate * static_cast<double>(layout.devices);
    out.at_peak = out.total / aggregate;
    out.at_utilization = out.total / (aggregate * cluster.utilization);
  }
  out.status = out.memory <= cluster.capacity ? Status::kFits : Status::kOutOfMemory;
  if (cluster.capacity.value() > 0.0) {
    const double needed = std::ceil(out.replica / cluster.capacity);
    out.devices_to_fit = needed < 2e9 ? static_cast<int>(needed) : 2000000000;
  }
  return out;
}

}  // namespace tb
