// The evaluator: arithmetic over the profile's numbers and the term tables, nothing else.
#include "trainbudget/eval/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "dequantized_weight.hpp"
#include "step_flops.hpp"
#include "trainbudget/eval/vision_cost.hpp"

namespace tb {
namespace {

PhaseCost moment(Bytes resident, Bytes gradients, Bytes activations, Bytes transient) {
  return {resident, gradients, activations, transient,
          resident + gradients + activations + transient};
}

// DeepSpeed's ZeRO-1/2 bucket defaults (deepspeed/runtime/zero/config.py: reduce_bucket_size
// and allgather_bucket_size, 5e8 elements each): the gradients reduce-scattered in one bucket
// during backward, the updated weights all-gathered in one bucket after the optimizer step.
constexpr double kZeroBucketElements = 5e8;

// The optimizer step's temporary under torch.optim's default single-tensor Adam, split like the
// optimizer states it works on (ZeRO >= 1 updates only its partition); on the host when the
// optimizer is offloaded.
Bytes optimizer_transient(const ModelProfile& p, const Layout& l) {
  if (l.parallel.offload != Offload::kNone) return Bytes{0.0};
  const Bytes full = optimizer_step_transient(p.optimizer_kernel, p.largest_trainable_tensor,
                                              p.trainable.value(), p.moment_bytes);
  const double shards = l.zero_stage >= 1 ? static_cast<double>(l.zero_shards()) : 1.0;
  return full / (shards * l.parallel.tp);
}

// The activation widths on one device (Korthikanti et al. 2022, sec. 4.2): tensor parallelism
// splits the heads, the MLP and expert widths and the vocabulary (Megatron-LM's vocab-parallel
// cross entropy); sequence parallelism also the h-wide rows (norm inputs, dropout masks,
// residual), every row being linear in h; context parallelism the sequence.
StepDims on_device(StepDims d, const Parallelism& x) {
  const double t = x.tp;
  d.a /= t;
  d.a_kv /= t;
  d.i /= t;
  d.i_e /= t;
  d.i_s /= t;
  d.V /= t;
  if (x.sequence_parallel) d.h /= t;
  d.s /= static_cast<double>(x.cp);
  return d;
}

bool is_trainable_row(const StateTerm& t) { return t.key != StateKey::kFrozenWeights; }

// The stage's share of the model's parameters (dense, expert), or of the adapters.
struct Share {
  double dense{1.0};
  double expert{0.0};
};

Share stage_share(const ModelProfile& p, const Layout& l, const StageSpan& st, bool adapters) {
  Share out;
  if (!p.has_architecture) return out;
  const auto layers = static_cast<double>(p.layer_is_moe.size());
  if (adapters) {
    out.dense = static_cast<double>(st.end - st.begin) / layers;
    return out;
  }
  const auto b = static_cast<std::size_t>(st.begin);
  const auto e = static_cast<std::size_t>(st.end);
  const double expert = p.layer_expert_prefix[e] - p.layer_expert_prefix[b];
  double total = p.layer_param_prefix[e] - p.layer_param_prefix[b];
  out.expert = expert;
  // One stage holds everything: the whole replica, whatever count_params puts outside the
  // decoder layers (vision towers) included, so that pp = 1 keeps the exact totals.
  if (l.parallel.pp == 1) {
    out.dense = 1.0 - expert;
    return out;
  }
  if (st.embedding) total += p.embedding_param_share;
  if (st.head) total += p.head_param_share + (p.tied_embeddings ? p.embedding_param_share : 0.0);
  out.dense = total - expert;
  return out;
}

// Activations and the peak over phases of one pipeline stage (docs/activations.md, "Peak over
// phases"; docs/scale.md, "Pipeline stages"): the end of forward; backward from the loss down
// through the LM head, every decoder layer of the stage top to bottom and the embedding
// (activations released, gradients produced); the optimizer step. Ties go to the earlier moment.
// Under a pipeline the first stage also holds the activations of the micro-batches in flight.
EvalMemo::Activations activations_of(const ModelProfile& p, const Layout& l) {
  EvalMemo::Activations a;
  const Parallelism& x = l.parallel;
  const StepDims dense = on_device(step_dims(p, l, false), x);
  const StepDims moe = on_device(step_dims(p, l, true), x);
  if (p.dense_layers > 0) a.dense = layer_kind_bytes(dense, l.recompute);
  if (p.moe_layers > 0) a.moe = layer_kind_bytes(moe, l.recompute);
  if (l.recompute == Recompute::kFull) {
    if (p.dense_layers > 0) a.dense_kept = layer_kind_bytes(dense, Recompute::kNone);
    if (p.moe_layers > 0) a.moe_kept = layer_kind_bytes(moe, Recompute::kNone);
  }
  a.head = head_bytes(dense);
  a.logits_gradient = logits_gradient_bytes(dense);
  a.loss_released = loss_released_bytes(dense);
  // Logits the loop does not hold (a preference or RL loss reduces them to log-probs): alive at
  // the end of forward beside what the loss saved, gone before backward.
  if (!dense.keep_logits && dense.loss != LossImpl::kChunked && dense.loss != LossImpl::kLinear) {
    a.dropped_logits = Bytes{dense.b * dense.s * dense.head_share * dense.V * dense.e};
  }
  return a;
}

void step_memory(const ModelProfile& p, const Layout& l, const StageSpan& st, StepCost& out,
                 EvalMemo* memo) {
  const Parallelism& x = l.parallel;
  const EvalMemo::Activations* cached = memo != nullptr ? memo->activations(p, l) : nullptr;
  std::optional<EvalMemo::Activations> fresh;
  if (cached == nullptr) {
    fresh = activations_of(p, l);
    if (memo != nullptr) memo->put(p, l, *fresh);
    cached = &*fresh;
  }
  out.dense = cached->dense;
  out.moe = cached->moe;
  // Under block recomputation the stage's first `rerun` layers recompute and the rest keep
  // everything (Megatron-LM's recompute_method block).
  const std::int64_t rerun = st.begin + l.recomputed_layers(st.end - st.begin);
  const auto moe_before = [&](std::int64_t i) {
    return p.moe_layer_prefix[static_cast<std::size_t>(i)];
  };
  const auto kind_at = [&](std::int64_t i) -> const LayerKindBytes& {
    const bool moe = p.layer_is_moe[static_cast<std::size_t>(i)] != 0;
    if (i < rerun) return moe ? out.moe : out.dense;
    return moe ? cached->moe_kept : cached->dense_kept;
  };
  Bytes layers{0.0};
  Bytes largest{0.0};  // the largest layer of a kind the stage runs
  const auto add_span = [&](std::int64_t from, std::int64_t to, const LayerKindBytes& dense_kind,
                            const LayerKindBytes& moe_kind) {
    const std::int64_t moe = moe_before(to) - moe_before(from);
    const std::int64_t dense = (to - from) - moe;
    for (const auto& [n, kind] : {std::pair{dense, &dense_kind}, std::pair{moe, &moe_kind}}) {
      if (n <= 0) continue;
      layers += kind->per_layer * static_cast<double>(n);
      largest = std::max(largest, kind->per_layer);
    }
  };
  add_span(st.begin, rerun, out.dense, out.moe);
  add_span(rerun, st.end, cached->dense_kept, cached->moe_kept);
  // Korthikanti et al. 2022, sec. 4.2.3: under 1F1B the first stage holds pp micro-batches (at
  // most the step's); interleaving adds the factor 1 + (pp - 1) / (pp x v).
  // Stage i holds pp - i micro-batches under 1F1B (Narayanan et al. 2021, Figure 4).
  double in_flight = 1.0;
  if (x.pp > 1) {
    in_flight = static_cast<double>(std::min<std::int64_t>(x.pp - st.index, l.grad_accum));
    if (x.virtual_stages > 1 && st.index == 0) {
      in_flight *=
          1.0 + static_cast<double>(x.pp - 1) / (static_cast<double>(x.pp) * x.virtual_stages);
    }
  }
  // Activation offload: every saved activation waits in host memory; the device holds the layer
  // at work and the one being sent out or fetched back (torchtune's OffloadActivations keeps
  // one layer in flight on its side stream), whatever the micro-batches in flight.
  const bool offloaded = l.offload_activations;
  out.offloaded_activations = offloaded ? layers : Bytes{0.0};
  if (offloaded) {
    out.host += layers * in_flight;
    layers = std::min(layers, largest * 2.0);
    in_flight = 1.0;
  }
  const Bytes others = layers * (in_flight - 1.0);  // earlier micro-batches still waiting
  out.layers_saved = layers * in_flight;
  out.head_saved = st.head ? cached->head : Bytes{0.0};
  // The image encoder runs before the first layer and its backward comes last: what it keeps
  // stays until the end of the stage's backward (eval/vision_cost.hpp).
  const Bytes vision = st.embedding ? vision_saved_bytes(p, l) * in_flight : Bytes{0.0};
  out.saved = out.layers_saved + out.head_saved + vision;
  out.logits_gradient = st.head ? cached->logits_gradient : Bytes{0.0};

  // ZeRO's buffers (docs/scale.md, "Buffers"). ZeRO-3 gathers a layer's weights before using
  // it and prefetches the next one (FSDP's default BACKWARD_PRE, DeepSpeed's prefetch bucket):
  // two layers' weights unsharded; backward also holds the layer's unsharded gradient until it
  // is reduce-scattered. ZeRO-1/2 reduce gradients and gather weights through one bucket each.
  Bytes gathered{0.0};
  Bytes reducing{0.0};
  Bytes gathering{0.0};
  if (l.dense_shards() > 1 && p.has_architecture) {
    const double layer = p.largest_layer_params / p.params.value();
    Bytes weights{0.0};
    Bytes grads{0.0};
    for (const StateTerm& t : p.states) {
      if (t.key == StateKey::kWeights || t.key == StateKey::kFrozenWeights) weights += t.bytes;
      if (t.key == StateKey::kGradients) grads += t.bytes;
    }
    if (l.zero_stage == 3) {
      gathered = weights * (2.0 * layer / x.tp);
      reducing = p.adapters_only ? grads / static_cast<double>(p.layer_is_moe.size()) / x.tp
                                 : grads * (layer / x.tp);
    } else if (l.zero_stage >= 1) {
      const double trainable = p.trainable.value() / x.tp;
      const double bucket = std::min(kZeroBucketElements, trainable) / trainable;
      for (const StateTerm& t : p.states) {
        if (t.key == StateKey::kGradients) reducing += t.bytes * (bucket / x.tp);
        if (t.key == StateKey::kWeights) gathering += t.bytes * (bucket / x.tp);
      }
    }
  }
  out.comm_buffers = gathered + reducing;

  const Bytes resident = out.states - out.gradients;
  const Bytes all = out.gradients;
  const bool persist = l.grad_accum > 1;  // accumulation keeps gradients across forwards
  const auto held = [&](Bytes so_far) { return persist ? all : so_far; };

  auto& forward = out.phases[static_cast<std::size_t>(Phase::kForwardEnd)];
  // DoRA's column norm: a dense copy of the largest adapted weight, freed as its module returns
  // (model/adapter_shape.hpp); again in the backward where the layers recompute.
  const Bytes dora_norm{dora_norm_transient_bytes(p.adapters)};
  // QLoRA: the largest 16-bit weight copy an NF4 GEMM multiplies through (dequantized_weight.hpp).
  const Bytes dequantized{
      largest_dequantized_bytes(p.kernels, x.tp, activation_bytes(l.activation_dtype))};
  forward = moment(resident, persist ? all : Bytes{0.0}, out.saved,
                   gathered + (st.head ? cached->dropped_logits : Bytes{0.0}) + dora_norm);

  // Shares of the stage's gradients: normalized to the stage under a pipeline.
  double norm = 1.0;
  if (x.pp > 1 && !p.adapters_only) {
    double total = p.layer_gradient_prefix[static_cast<std::size_t>(st.end)] -
                   p.layer_gradient_prefix[static_cast<std::size_t>(st.begin)];
    if (st.head) total += p.head_gradient_share;
    if (st.embedding) total += p.embedding_gradient_share;
    norm = total > 0.0 ? 1.0 / total : 1.0;
  }
  const double stage_layers = static_cast<double>(st.end - st.begin);
  Bytes produced =
      (p.adapters_only || !st.head) ? Bytes{0.0} : all * (p.head_gradient_share * norm);
  // The loss's backward first (no head gradient yet), then the LM head's with what the loss
  // freed (loss_released_bytes) given back.
  PhaseCost worst = moment(resident, held(Bytes{0.0}), out.saved, out.logits_gradient + gathered);
  if (st.head) {
    const Bytes released = cached->loss_released;
    const PhaseCost head = moment(resident, held(produced), out.saved - released,
                                  out.logits_gradient - released + gathered);
    if (head.total > worst.total) worst = head;
  }
  std::int64_t worst_at = kBackwardAtHead;
  Bytes layer_acts = layers;
  const auto at_layer = [&](std::int64_t i, const LayerKindBytes& kind) {
    const PhaseCost m =
        moment(resident, held(produced), (offloaded ? layers : layer_acts) + others + vision,
               kind.recompute_transient + kind.backward_workspace + gathered + reducing +
                   dequantized + (l.recompute == Recompute::kFull ? dora_norm : Bytes{0.0}));
    if (m.total > worst.total) {
      worst = m;
      worst_at = i;
    }
  };
  if (p.uniform_layers && st.end - st.begin > 2) {
    // Identical layers: gradients grow and activations shrink by the same amount per layer, so
    // the total is linear along each run of one kind and its largest value is at the run's ends
    // (the kept layers walked first, then the recomputed ones).
    const Bytes step =
        p.adapters_only ? all / stage_layers : all * (p.layer_gradient_share.front() * norm);
    const auto walk = [&](std::int64_t from, std::int64_t to) {
      if (to <= from) return;
      const LayerKindBytes& kind = kind_at(from);
      const auto n = static_cast<double>(to - from);
      produced += step;
      at_layer(to - 1, kind);
      produced += step * (n - 1.0);
      layer_acts = layer_acts - kind.per_layer * (n - 1.0);
      at_layer(from, kind);
      layer_acts = layer_acts - kind.per_layer;
    };
    walk(rerun, st.end);
    walk(st.begin, rerun);
  } else {
    for (std::int64_t i = st.end - 1; i >= st.begin; --i) {
      const auto idx = static_cast<std::size_t>(i);
      const LayerKindBytes& kind = kind_at(i);
      produced += p.adapters_only ? all / stage_layers : all * (p.layer_gradient_share[idx] * norm);
      at_layer(i, kind);
      layer_acts = layer_acts - kind.per_layer;
    }
  }
  if (st.embedding) {
    produced += p.adapters_only ? Bytes{0.0} : all * (p.embedding_gradient_share * norm);
    const PhaseCost embedding = moment(resident, held(produced), others + vision, Bytes{0.0});
    if (embedding.total > worst.total) {
      worst = embedding;
      worst_at = kBackwardAtEmbedding;
    }
  }
  out.phases[static_cast<std::size_t>(Phase::kBackward)] = worst;
  out.backward_at = worst_at;
  out.phases[static_cast<std::size_t>(Phase::kOptimizerStep)] =
      moment(resident, all, Bytes{0.0}, optimizer_transient(p, l) + gathering);

  Bytes peak{0.0};
  for (std::size_t i = 0; i < out.phases.size(); ++i) {
    if (out.phases[i].total > peak) {
      peak = out.phases[i].total;
      out.peak_phase = static_cast<Phase>(i);
    }
  }
  out.memory = peak;
}

// The model states per device of one stage after pipeline, tensor and expert parallelism, ZeRO
// partitioning and offload, and their gradient rows.
void add_states(const ModelProfile& p, const Layout& l, const StageSpan& st, StepCost& out) {
  for (const StateTerm& t : p.states) {
    const StateOnDevice on = state_on_device(p, l, t, st);
    out.states += on.device;
    out.host += on.host;
    if (t.key == StateKey::kGradients) out.gradients += on.device;
  }
}

}  // namespace

StepDims step_dims(const ModelProfile& profile, const Layout& layout, bool moe_layer) noexcept {
  StepDims d = with_step(profile.shape, layout.micro_batch, layout.seq_len, layout.activation_dtype,
                         layout.attention, layout.dropout, moe_layer);
  d.head_share = layout.logits_share();
  return d;
}

StageSpan stage_span(const ModelProfile& profile, const Layout& layout, bool last) noexcept {
  return stage_at(profile, layout, last ? std::max(1, layout.parallel.pp) - 1 : 0);
}

StageSpan stage_span(const ModelProfile& profile, const Layout& layout, bool last,
                     EvalMemo* memo) noexcept {
  // The memo keys a span by pp and index: an uneven split is computed afresh.
  if (memo == nullptr || uneven_stages(layout.parallel)) return stage_span(profile, layout, last);
  const int pp = std::max(1, layout.parallel.pp);
  const int index = last ? pp - 1 : 0;
  if (const StageSpan* cached = memo->span(profile, pp, index)) return *cached;
  const StageSpan fresh = stage_at(profile, layout, index);
  memo->put(profile, pp, index, fresh);
  return fresh;
}

StageSpan stage_at(const ModelProfile& profile, const Layout& layout, int index) noexcept {
  StageSpan out;
  const auto layers = static_cast<std::int64_t>(profile.layer_is_moe.size());
  const int pp = std::max(1, layout.parallel.pp);
  // The even split gives layers that do not divide to the first stages (one more each), so the
  // first stage is the most loaded; Megatron-Core's first/last stage layers set the edges
  // (stage_bounds; docs/scale.md, "Pipeline stages").
  const StageBounds bounds = stage_bounds(layers, layout.parallel, index);
  out.index = index;
  out.begin = bounds.begin;
  out.end = bounds.end;
  out.embedding = out.index == 0;
  out.head = out.index == pp - 1;
  const Share base = stage_share(profile, layout, out, false);
  out.dense_share = base.dense;
  out.expert_share = base.expert;
  out.adapter_share = stage_share(profile, layout, out, true).dense;
  return out;
}

bool offloaded(Offload o, StateKey key) noexcept {
  if (o == Offload::kNone) return false;
  const bool optimizer = key == StateKey::kOptimizerStates || key == StateKey::kMasterWeights ||
                         key == StateKey::kGradients;
  if (o == Offload::kOptimizer) return optimizer;
  return optimizer || key == StateKey::kWeights || key == StateKey::kFrozenWeights;
}

StateOnDevice state_on_device(const ModelProfile& p, const Layout& l, const StateTerm& t,
                              const StageSpan& st) noexcept {
  const Parallelism& x = l.parallel;
  const bool adapters = p.adapters_only && is_trainable_row(t);
  const Share share{adapters ? st.adapter_share : st.dense_share, adapters ? 0.0 : st.expert_share};
  const int dense_z = zero_partition(l.zero_stage, t.shard_stage, l.zero_shards());
  const double tp = x.tp;
  Bytes bytes = t.bytes * (share.dense / (tp * dense_z));
  // Routed experts only where the stage holds some (the planner calls this for every row of
  // every layout: a dense model skips the expert group's divisions).
  if (share.expert > 0.0) {
    const int expert_z =
        zero_partition(l.zero_stage, t.shard_stage, std::max(1, l.expert_shards() / l.replicas()));
    bytes += t.bytes * (share.expert / (l.expert_tp() * static_cast<double>(x.ep) * expert_z));
  }
  StateOnDevice out;
  out.zero_shards = dense_z;
  if (offloaded(x.offload, t.key)) {
    out.host = bytes;
  } else {
    out.device = bytes;
  }
  return out;
}

Status precheck(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
                EvalMemo* memo) noexcept {
  const StageSpan first = stage_span(profile, layout, false, memo);
  Bytes states{0.0};
  for (const StateTerm& t : profile.states) {
    states += state_on_device(profile, layout, t, first).device;
  }
  return states <= cluster.capacity ? Status::kFits : Status::kOutOfMemory;
}

namespace {

// Everything but the step's time: memory per stage, FLOPs, the status, the ideal at peak.
StepCost untimed(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
                 EvalMemo* memo) noexcept {
  StepCost out;
  const StageSpan first = stage_span(profile, layout, false, memo);
  add_states(profile, layout, first, out);
  out.memory = out.states;
  if (profile.has_architecture) step_memory(profile, layout, first, out, memo);
  if (layout.parallel.pp > 1) {
    // The last stage holds the head, its logits and their gradient: often the larger one.
    StepCost last;
    const StageSpan end = stage_span(profile, layout, true, memo);
    add_states(profile, layout, end, last);
    last.memory = last.states;
    if (profile.has_architecture) step_memory(profile, layout, end, last, memo);
    if (last.memory > out.memory) {
      out = last;
      out.stage = end.index;
    }
    // Layers of different sizes (DeepSeek's dense first layers, MoE every other layer) or an
    // uneven split: the stage with the most parameters may be a middle one.
    if ((!profile.uniform_layers || uneven_stages(layout.parallel)) && layout.parallel.pp > 2) {
      int heaviest = 1;
      double most = -1.0;
      for (int i = 1; i + 1 < layout.parallel.pp; ++i) {
        const StageSpan st = stage_at(profile, layout, i);
        const double share =
            st.dense_share + st.expert_share * layout.parallel.tp /
                                 (static_cast<double>(layout.parallel.ep) * layout.expert_tp());
        // Among equal shares the earlier stage holds more micro-batches in flight.
        if (share > most * (1.0 + 1e-9)) {
          most = share;
          heaviest = i;
        }
      }
      StepCost middle;
      const StageSpan mid = stage_at(profile, layout, heaviest);
      add_states(profile, layout, mid, middle);
      middle.memory = middle.states;
      step_memory(profile, layout, mid, middle, memo);
      if (middle.memory > out.memory) {
        out = middle;
        out.stage = mid.index;
      }
    }
  }
  detail::step_flops(profile, layout, out, memo);
  out.total = out.flops_per_token * profile.tokens;
  out.status = out.memory <= cluster.capacity ? Status::kFits : Status::kOutOfMemory;
  // Offloaded states and activations wait in the host's memory: a job over it does not run.
  if (out.status == Status::kFits && cluster.host_capacity.value() > 0.0 &&
      out.host > cluster.host_capacity) {
    out.status = Status::kOutOfHostMemory;
  }
  if (crosses_missing_network(cluster.fabric, layout.devices)) out.status = Status::kNoNetwork;

  if (cluster.rate.value() > 0.0) {
    // The ideal: every device at its peak, nothing else (the "at peak" column).
    const FlopsPerSecond aggregate = cluster.rate * static_cast<double>(layout.devices);
    out.at_peak = out.total / aggregate;
  }
  return out;
}

}  // namespace

void time_step(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
               const CommModel& comm, StepCost& cost, EvalMemo* memo) noexcept {
  if (cluster.rate.value() <= 0.0) return;
  add_step_time(profile, layout, cluster, comm, cost, memo);
  cost.at_utilization = Seconds{cost.time.step.count() * cost.time.steps};
}

StepCost evaluate(const ModelProfile& profile, const Layout& layout, const ClusterProfile& cluster,
                  const CommModel& comm, EvalMemo* memo) noexcept {
  StepCost out = untimed(profile, layout, cluster, memo);
  time_step(profile, layout, cluster, comm, out, memo);
  return out;
}

StepCost evaluate_if_fits(const ModelProfile& profile, const Layout& layout,
                          const ClusterProfile& cluster, const CommModel& comm,
                          EvalMemo* memo) noexcept {
  StepCost out = untimed(profile, layout, cluster, memo);
  if (out.status == Status::kFits) time_step(profile, layout, cluster, comm, out, memo);
  return out;
}

}  // namespace tb
