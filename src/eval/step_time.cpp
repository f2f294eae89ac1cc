// One optimizer step's time on a cluster: compute at the device's GEMM rate, the communication
// of every parallel dimension over the links it runs on, what overlap hides, the pipeline
// bubble and offload's host transfers. docs/scale.md derives each term.
#include <algorithm>
#include <cmath>
#include <optional>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/kernel_time.hpp"
#include "trainbudget/eval/optimizer_time.hpp"

namespace tb {
namespace {

// Bytes per element of what crosses the wire between layers: the activation dtype.
double wire_bytes(const Layout& l) { return activation_bytes(l.activation_dtype); }

// Weights and gradients of one device's stage before data-parallel sharding, split into the
// dense part (shared by dp x cp ranks) and the experts (by dp x cp / ep ranks).
struct DataParallelBytes {
  Bytes weights_dense, weights_expert;  // all weights the stage computes with, as stored
  Bytes trained_dense, trained_expert;  // of which the trainable ones (updated each step)
  Bytes grads_dense, grads_expert;      // the trainable rows' gradients
};

// `st` is the stage's span (its shares do not depend on ZeRO or offload).
DataParallelBytes data_parallel_bytes(const ModelProfile& p, const Layout& l, const StageSpan& st) {
  DataParallelBytes out;
  Layout whole = l;  // the row on one device before ZeRO and offload
  whole.zero_stage = 0;
  whole.parallel.offload = Offload::kNone;
  for (const StateTerm& t : p.states) {
    if (t.key != StateKey::kWeights && t.key != StateKey::kFrozenWeights &&
        t.key != StateKey::kGradients) {
      continue;
    }
    // The device's bytes of the row, split into dense and expert by the stage's expert share.
    const StateOnDevice on = state_on_device(p, whole, t, st);
    double expert_share = 0.0;
    if (p.has_architecture && !(p.adapters_only && t.key != StateKey::kFrozenWeights)) {
      const auto b = static_cast<std::size_t>(st.begin);
      const auto end = static_cast<std::size_t>(st.end);
      const double e = p.layer_expert_prefix[end] - p.layer_expert_prefix[b];
      const double all = p.layer_param_prefix[end] - p.layer_param_prefix[b];
      // Experts sit on ep times fewer devices: their bytes per device over the row's.
      const double dense = (l.parallel.pp == 1 ? 1.0 : all) - e;
      const double expert =
          e * l.parallel.tp / (static_cast<double>(l.parallel.ep) * l.expert_tp());
      expert_share = dense + expert > 0.0 ? expert / (dense + expert) : 0.0;
    }
    const Bytes expert = on.device * expert_share;
    const Bytes dense = on.device - expert;
    if (t.key == StateKey::kGradients) {
      out.grads_dense += dense;
      out.grads_expert += expert;
    } else {
      out.weights_dense += dense;
      out.weights_expert += expert;
      if (t.key == StateKey::kWeights) {
        out.trained_dense += dense;
        out.trained_expert += expert;
      }
    }
  }
  return out;
}

Seconds positive(Seconds s) { return std::max(Seconds{0.0}, s); }

// What the step spends on one communicator kind, with the window it may hide behind.
void add(CommTerm& term, Seconds total, Seconds window, double overlap, Bytes bytes, Link link) {
  term.total += total;
  term.exposed += std::max(Seconds{0.0}, total - window * overlap);
  term.bytes += bytes;
  term.link = link;
}

// One micro-batch on the device of the most loaded pipeline stage, from its kernels: the decoder
// layers it runs, with the embedding on the first stage and the head on the last (the slower
// of the two ends when pp > 1). docs/time.md, "The step as kernels".
struct StageCompute {
  PassTime all;                 // the stage's device time by kernel class, and launches
  Seconds total{0.0};           // with the launch gaps or the host's dispatch
  Seconds forward{0.0};         // of which the forward passes (recomputation counts as backward)
  double forward_kernels{0.0};  // the forward passes' launches
  Seconds recompute{0.0};       // of which the recomputed forward passes
  Seconds layer_forward{0.0};   // one decoder layer (the stage's most common kind)
  Seconds layer_backward{0.0};  // with its recomputation
};

StageCompute stage_compute(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                           const MicroBatchKernels& k, const StageSpan& st, bool first, bool last) {
  StageCompute out;
  // Block recomputation: the share of the stage's layers that rerun their forward.
  const std::int64_t n = st.end - st.begin;
  const double rerun =
      n > 0 ? static_cast<double>(l.recomputed_layers(n)) / static_cast<double>(n) : 1.0;
  const std::int64_t moe = p.moe_layer_prefix[static_cast<std::size_t>(st.end)] -
                           p.moe_layer_prefix[static_cast<std::size_t>(st.begin)];
  const std::int64_t dense = (st.end - st.begin) - moe;
  const Dispatch mode = p.dispatch;
  const auto add = [&](const LayerPasses& x, double times, double reruns) {
    if (times <= 0.0) return;
    PassTime all = x.forward;
    all += x.backward;
    all *= times;
    PassTime again = x.recompute;
    again *= times * reruns;
    all += again;
    const Seconds f = pass_time(x.forward, mode, c);
    const Seconds again_time = pass_time(x.recompute, mode, c) * reruns;
    const Seconds b = pass_time(x.backward, mode, c) + again_time;
    out.forward += f * times;
    out.forward_kernels += x.forward.kernels * times;
    out.recompute += again_time * times;
    out.total += (f + b) * times;
    out.all += all;
  };
  add(k.dense, static_cast<double>(dense), rerun);
  add(k.moe, static_cast<double>(moe), rerun);
  const LayerPasses& common = moe > dense ? k.moe : k.dense;
  out.layer_forward = pass_time(common.forward, mode, c);
  out.layer_backward =
      pass_time(common.backward, mode, c) + pass_time(common.recompute, mode, c) * rerun;
  if (first) {
    add(k.embedding, 1.0, 1.0);
    add(k.vision, 1.0, 0.0);
  }
  if (last) add(k.head, 1.0, 1.0);
  return out;
}

}  // namespace

void add_step_time(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
                   const CommModel& comm, StepCost& out, EvalMemo* memo) noexcept {
  StepTime& t = out.time;
  const Parallelism& x = l.parallel;
  const Fabric& f = c.fabric;
  const double b = static_cast<double>(l.micro_batch);
  const double s = static_cast<double>(l.seq_len);
  const double m = static_cast<double>(l.grad_accum);
  const double v = x.virtual_stages;
  const int dp = l.dp();
  t.tokens_per_step = static_cast<double>(dp) * b * m * s;
  t.steps = p.tokens.value() / t.tokens_per_step;

  // Compute: one micro-batch's hardware FLOPs spread evenly over the tp x cp devices that share
  // a layer, the pipeline running at its most loaded stage's share of the layers, at the GEMM
  // rate.
  const Flops per_micro = out.hardware_per_token * Tokens{b * s};
  double stage = 1.0 / x.pp;
  // The stage whose layers set the pipeline's pace: the first under the even split (it takes
  // the layers that do not divide), the slowest of all under an uneven one (below).
  StageSpan first = stage_span(p, l, false, memo);
  if (p.has_architecture && x.pp > 1) {
    stage =
        static_cast<double>(first.end - first.begin) / static_cast<double>(p.layer_is_moe.size());
  }
  const double sharing = static_cast<double>(x.tp) * x.cp;
  // Without an architecture the FLOPs are all there is: at the GEMM ceiling.
  Seconds micro_forward{0.0};
  Seconds layer_forward{0.0}, layer_backward{0.0};
  if (p.has_architecture) {
    const MicroBatchKernels* cached = memo != nullptr ? memo->kernels(p, l, c) : nullptr;
    std::optional<MicroBatchKernels> fresh;  // built only when the memo has none
    if (cached == nullptr) {
      fresh = micro_batch_kernels(p, l, c, kernel_cost_model_for(c));
      if (memo != nullptr) memo->put(p, l, c, *fresh);
    }
    const MicroBatchKernels& k = cached != nullptr ? *cached : *fresh;
    StageCompute sc;
    if (uneven_stages(x)) {
      // Megatron-Core's uneven split (first/last stage layers): the slowest stage, a middle one
      // maybe, sets the pace, and its layers the per-layer terms below.
      StageSpan slowest = first;
      for (int i = 0; i < x.pp; ++i) {
        const StageSpan st = i == 0 ? first : stage_at(p, l, i);
        const StageCompute one = stage_compute(p, l, c, k, st, i == 0, i == x.pp - 1);
        if (i == 0 || one.total > sc.total) {
          sc = one;
          slowest = st;
        }
      }
      first = slowest;
      stage =
          static_cast<double>(first.end - first.begin) / static_cast<double>(p.layer_is_moe.size());
    } else {
      sc = stage_compute(p, l, c, k, first, true, x.pp == 1);
      if (x.pp > 1) {
        const StageCompute end =
            stage_compute(p, l, c, k, stage_span(p, l, true, memo), false, true);
        if (end.total > sc.total) sc = end;
      }
    }
    t.gemm = sc.all.gemm;
    t.attention = sc.all.attention;
    t.memory_bound = sc.all.memory;
    t.kernels = sc.all.kernels;
    t.kernels_forward = sc.forward_kernels;
    t.micro_batch = sc.total;
    t.overhead = std::max(Seconds{0.0}, sc.total - sc.all.device());
    micro_forward = sc.forward;
    t.recompute = sc.recompute;
    layer_forward = sc.layer_forward;
    layer_backward = sc.layer_backward;
  } else {
    t.gemm = (per_micro * (stage / sharing)) / (c.rate * c.gemm_efficiency * c.knobs.kernel);
    t.micro_batch = t.gemm;
    // Forward's share: the 2N of the FLOPs per token (Kaplan et al. 2020).
    micro_forward = t.micro_batch *
                    std::min(1.0, 2.0 * p.params_active.value() / out.hardware_per_token.value());
  }
  // A preference objective's reference forward: the policy's forward again, no backward
  // (TRL computes the reference log-probs under no_grad for every batch, or once before training
  // with precompute_ref_log_probs: the same work over one pass of the data).
  if (p.reference_forward) t.micro_batch += micro_forward;
  t.forward = micro_forward;
  t.compute = t.micro_batch * m;
  // Narayanan et al. 2021, sec. 2.2: the bubble is (pp - 1) micro-batch times, over v with
  // interleaving.
  t.bubble = t.micro_batch * (static_cast<double>(x.pp - 1) / v);
  // Backward: what data-parallel gradient reduction overlaps with.
  const Seconds backward = std::max(Seconds{0.0}, t.micro_batch - micro_forward);

  const auto term = [&](CommKind k) -> CommTerm& { return t.comm[static_cast<std::size_t>(k)]; };
  const double e = wire_bytes(l);
  const StepDims d = p.has_architecture ? step_dims(p, l, false) : StepDims{};
  const double layers = stage * static_cast<double>(p.layer_is_moe.size());
  const double tokens = b * s / x.cp;  // per device per micro-batch

  // Data parallel (Rajbhandari et al. 2020, sec. 7): ZeRO 0-2 reduce gradients once per step
  // (all-reduce, or reduce-scatter + all-gather of the updated weights, the same volume),
  // overlapped with the last micro-batch's backward; ZeRO-3 gathers the weights for forward
  // and again for backward and reduce-scatters gradients every micro-batch (1.5x), overlapped
  // with that micro-batch.
  const DataParallelBytes db = data_parallel_bytes(p, l, first);
  const Group dense_group{l.zero_shards(), x.tp};
  const Group expert_group{std::max(1, l.expert_shards()), l.expert_tp() * x.ep};
  const Link dense_link = group_link(f, dense_group);
  if (l.dense_shards() > 1) {
    // ZeRO-1/2 gather the updated (trainable) weights after the step; ZeRO-3 gathers all the
    // weights a layer computes with, frozen ones too (FSDP shards a LoRA's frozen base).
    const auto dp_time = [&](Bytes weights, Bytes trained, Bytes grads, Group g) {
      if (l.zero_stage == 3) {
        return comm.time(Collective::kAllGather, weights, g, f) * 2.0 +
               comm.time(Collective::kReduceScatter, grads, g, f);
      }
      if (l.zero_stage >= 1) {
        return comm.time(Collective::kReduceScatter, grads, g, f) +
               comm.time(Collective::kAllGather, trained, g, f);
      }
      return comm.time(Collective::kAllReduce, grads, g, f);
    };
    const double hide = c.overlap.dp * c.knobs.overlap;
    Bytes bytes = db.grads_dense + db.grads_expert;
    if (l.zero_stage == 3) bytes += (db.weights_dense + db.weights_expert) * 2.0;
    if (l.zero_stage == 1 || l.zero_stage == 2) bytes += db.trained_dense + db.trained_expert;
    CommTerm& dpt = term(CommKind::kData);
    dpt.link = dense_link;
    if (l.zero_stage == 3 && p.has_architecture && layers >= 1.0) {
      // FSDP / ZeRO-3 (Zhao et al. 2023, "PyTorch FSDP", sec. 3.3-3.4): each layer's weights
      // are all-gathered before its forward and again before its backward, its gradients
      // reduce-scattered after; the next layer's gather is prefetched under this layer's
      // compute. What stays exposed: the first gather, the last reduce-scatter, and each
      // layer's collectives beyond its own compute.
      const double per = 1.0 / layers;
      const Seconds gather =
          comm.time(Collective::kAllGather, db.weights_dense * per, dense_group, f) +
          comm.time(Collective::kAllGather, db.weights_expert * per, expert_group, f);
      const Seconds scatter =
          comm.time(Collective::kReduceScatter, db.grads_dense * per, dense_group, f) +
          comm.time(Collective::kReduceScatter, db.grads_expert * per, expert_group, f);
      const Seconds fwd_exposed = gather + positive(gather - layer_forward * hide) * (layers - 1.0);
      const Seconds bwd_exposed =
          gather + scatter + positive(gather + scatter - layer_backward * hide) * (layers - 1.0);
      dpt.total += (gather * 2.0 + scatter) * layers * m;
      dpt.exposed += (fwd_exposed + bwd_exposed) * m;
      dpt.bytes += bytes * m;
    } else if (l.zero_stage == 3) {
      const Seconds once =
          dp_time(db.weights_dense, db.trained_dense, db.grads_dense, dense_group) +
          dp_time(db.weights_expert, db.trained_expert, db.grads_expert, expert_group);
      CommTerm per;
      add(per, once, t.micro_batch, hide, bytes, dense_link);
      dpt.total += per.total * m;
      dpt.exposed += per.exposed * m;
      dpt.bytes += per.bytes * m;
    } else {
      // DDP and ZeRO-1/2 (Li et al. 2020, "PyTorch Distributed", sec. 3.2.3): gradients are
      // reduced in buckets as backward produces them, each call paying its latency; the last
      // bucket waits for the end of backward. ZeRO-1/2 then gather the updated weights, beside
      // the next step's first forward.
      const Bytes grads = db.grads_dense + db.grads_expert;
      const double bucket = std::max(1.0, p.dp_bucket_bytes);
      const double calls = std::max(1.0, std::ceil(grads.value() / bucket));
      const Bytes each = grads / calls;
      const Collective reduce =
          l.zero_stage >= 1 ? Collective::kReduceScatter : Collective::kAllReduce;
      const double expert_share = grads.value() > 0.0 ? db.grads_expert / grads : 0.0;
      const Seconds one = comm.time(reduce, each * (1.0 - expert_share), dense_group, f) +
                          comm.time(reduce, each * expert_share, expert_group, f);
      const Seconds reduce_all = one * calls;
      dpt.total += reduce_all;
      dpt.exposed += one + positive(reduce_all - one - backward * hide);
      if (l.zero_stage >= 1) {
        const Seconds gather =
            comm.time(Collective::kAllGather, db.trained_dense, dense_group, f) +
            comm.time(Collective::kAllGather, db.trained_expert, expert_group, f);
        dpt.total += gather;
        dpt.exposed += positive(gather - micro_forward * hide);
      }
      dpt.bytes += bytes;
    }
    // Hybrid sharding: the shard groups all-reduce their gradient partitions across the
    // replicas once per step (PyTorch FSDP HYBRID_SHARD), beside the last backward.
    if (l.replicas() > 1 && l.zero_stage >= 1) {
      const Group across{l.replicas(), x.tp * l.zero_shards()};
      const Bytes part = (db.grads_dense + db.grads_expert) / static_cast<double>(l.zero_shards());
      add(term(CommKind::kData), comm.time(Collective::kAllReduce, part, across, f), backward,
          c.overlap.dp, part, term(CommKind::kData).link);
    }
  }

  // Tensor parallel (Shoeybi et al. 2019, sec. 3; Korthikanti et al. 2022, sec. 4.2.2): per
  // layer two all-reduces of b x s x h forward and two backward (sequence parallel: the same
  // volume as all-gather + reduce-scatter), two more when full recomputation reruns forward.
  // Sequence parallel adds the two column-parallel inputs' all-gathers again in backward (one
  // all-reduce's volume) where the linear keeps only its shard (sp_linear_keeps_shard) or where
  // per-op selective checkpointing reruns them (torchtitan's save list keeps reduce-scatter
  // outputs, not all-gathers: activation_checkpoint.py, _save_list).
  Seconds tp_forward{0.0}, tp_backward{0.0};  // one layer's, as exposed
  if (x.tp > 1 && p.has_architecture) {
    const Group g{x.tp, 1};
    // Block recomputation reruns the forward's two on the recomputed share of the layers.
    const auto n = static_cast<std::int64_t>(std::llround(layers));
    const double rerun =
        n > 0 ? static_cast<double>(l.recomputed_layers(n)) / static_cast<double>(n) : 1.0;
    const bool regather =
        x.sequence_parallel && (p.sp_linear_keeps_shard || l.recompute == Recompute::kSelectiveOp);
    const double per_layer =
        (l.recompute == Recompute::kFull ? 4.0 + 2.0 * rerun : 4.0) + (regather ? 1.0 : 0.0);
    const Bytes msg{tokens * d.h * e};
    const Seconds each = comm.time(Collective::kAllReduce, msg, g, f);
    Seconds once = each * (per_layer * layers);
    Bytes moved = msg * (per_layer * layers);
    // tp beyond the key/value heads (tp_beyond_kv_heads): an attention layer also all-gathers
    // linear_qkv's output forward, and reduce-scatters its gradient backward.
    if (d.a_kv > 0.0 && x.tp > d.a_kv) {
      const Bytes qkv{tokens * (d.a + 2.0 * d.a_kv) * d.d * e};
      const double calls =
          (l.recompute == Recompute::kFull ? 2.0 + rerun : 2.0) * layers * d.attention_share;
      once += comm.time(Collective::kAllGather, qkv, g, f) * calls;
      moved += qkv * calls;
    }
    const double hidden = l.overlap_tp >= 0.0 ? l.overlap_tp : c.overlap.tp;
    add(term(CommKind::kTensor), once * m, t.compute, hidden, moved * m, group_link(f, g));
    const double shown = 1.0 - std::clamp(hidden, 0.0, 1.0);
    tp_forward = each * (2.0 * shown);
    tp_backward = each * ((per_layer - 2.0) * shown);
  }
  t.layer_forward = layer_forward + tp_forward;
  t.layer_backward = layer_backward + tp_backward;

  // Context parallel (ring attention, Megatron-Core): each layer passes the local K and V round
  // the cp ranks, cp - 1 hops forward and twice that backward, beside the attention compute.
  if (x.cp > 1 && p.has_architecture) {
    const Group g{x.cp, x.tp};
    const Bytes kv{tokens * (d.a_kv / x.tp) * (d.d + d.d_v) * e};
    const double hops = 3.0 * (x.cp - 1) * layers;
    const Seconds once = comm.time(Collective::kSendRecv, kv, g, f) * hops;
    add(term(CommKind::kContext), once * m, t.compute, c.overlap.cp, kv * (hops * m),
        group_link(f, g));
  }

  // Expert parallel (Lepikhin et al. 2020, GShard; Megatron-Core MoE): per MoE layer an
  // all-to-all dispatches each token's top-k copies and another combines them, forward and
  // again backward.
  if (x.ep > 1 && p.moe_layers > 0) {
    // Megatron-Core's expert grid orders etp, ep, edp: folded, the ep ranks sit etp apart.
    const Group g{x.ep, l.expert_tp() == x.tp ? x.tp * x.cp : l.expert_tp()};
    const double moe_layers = static_cast<double>(p.moe_layers) / x.pp;
    const Bytes msg{tokens * d.k * d.h * e / x.tp};
    const Seconds once = comm.time(Collective::kAllToAll, msg, g, f) * (4.0 * moe_layers);
    add(term(CommKind::kExpert), once * m, t.compute, c.overlap.ep, msg * (4.0 * moe_layers * m),
        group_link(f, g));
  }

  // Pipeline (Narayanan et al. 2021, sec. 2.2): each micro-batch's activations go to the next
  // stage and their gradients come back, v times with interleaving; 1/tp of them with sequence
  // parallelism, or scatter-gathered (sec. 4.1: 1/tp across, all-gathered inside the stage).
  if (x.pp > 1 && p.has_architecture) {
    const Group g{2, x.tp * x.cp * dp};
    const bool scattered = x.pp_scatter_gather && !x.sequence_parallel && x.tp > 1;
    const Bytes msg{tokens * d.h * e / (x.sequence_parallel || scattered ? x.tp : 1.0)};
    Seconds one = comm.time(Collective::kSendRecv, msg, g, f);
    if (scattered) one += comm.time(Collective::kAllGather, msg * x.tp, Group{x.tp, 1}, f);
    add(term(CommKind::kPipeline), one * (2.0 * v * m), t.compute, c.overlap.pp,
        msg * (2.0 * v * m), group_link(f, g));
  }

  // Offload (Ren et al. 2021, sec. 4.1-4.2): each rank sends its offloaded gradients to the host
  // and gets back the 16-bit weights it updated (its ZeRO partition, or all at ZeRO-0); the CPU
  // steps the states it holds, timed at the host link's figure (a DGX H100's two sockets give
  // about 600 GB/s over 8 GPUs, against 63 GB/s of PCIe 5 each). Offloaded weights also come
  // up for every micro-batch's forward and backward.
  if (x.offload != Offload::kNone && f.host.bandwidth.value() > 0.0) {
    Bytes moved{0.0};
    Bytes cpu_step{0.0};
    for (const StateTerm& row : p.states) {
      const StateOnDevice on = state_on_device(p, l, row, first);
      if (row.key == StateKey::kGradients) moved += on.host;
      if (row.key == StateKey::kWeights) {
        // A replicated row (ZeRO below its stage) is updated by partition; a partitioned one
        // is already this rank's share.
        const bool replicated = l.zero_stage >= 1 && row.shard_stage > l.zero_stage;
        moved += (on.device + on.host) / (replicated ? static_cast<double>(l.zero_shards()) : 1.0);
      }
      // The host's optimizer step reads every offloaded row and writes all but the gradients.
      if (row.key != StateKey::kFrozenWeights && row.key != StateKey::kWeights) {
        cpu_step += on.host * (row.key == StateKey::kGradients ? 1.0 : 2.0);
      }
    }
    if (x.offload == Offload::kParams) {
      const double dense = l.zero_shards();
      const double experts = std::max(1, l.expert_shards() / l.replicas());
      moved += db.weights_dense * (2.0 * m / dense) + db.weights_expert * (2.0 * m / experts);
    }
    add(term(CommKind::kOffload), (moved + cpu_step) / f.host.bandwidth, t.compute,
        c.overlap.offload, moved, f.host);
  }

  // Activation offload (torchtune's OffloadActivations, Megatron-Core's cpu_offloading): each
  // layer's saved activations go to the host on a side stream while the next layers run forward
  // and come back while the later layers run backward; what does not fit under that compute is
  // exposed.
  if (out.offloaded_activations.value() > 0.0 && f.host.bandwidth.value() > 0.0) {
    const Seconds each = out.offloaded_activations / f.host.bandwidth;
    const double hide = c.knobs.overlap;
    add(term(CommKind::kOffload), each * m, t.forward * m, hide, out.offloaded_activations * m,
        f.host);
    add(term(CommKind::kOffload), each * m, (t.micro_batch - t.forward) * m, hide,
        out.offloaded_activations * m, f.host);
  }

  Seconds hidden{0.0};
  for (std::size_t k = 0; k < kCommKinds; ++k) {
    t.comm_total += t.comm[k].total;
    if (k == static_cast<std::size_t>(CommKind::kOffload)) continue;
    t.exposed_comm += t.comm[k].exposed;
    hidden += std::max(Seconds{0.0}, t.comm[k].total - t.comm[k].exposed);
  }
  // A hidden collective runs on collective_units of the device's units; the kernels beside it
  // make do with the rest for that long.
  if (c.kernels.collective_units > 0 && c.kernels.compute_units > c.kernels.collective_units) {
    t.interference = hidden * (static_cast<double>(c.kernels.collective_units) /
                               static_cast<double>(c.kernels.compute_units));
  }
  const Seconds host = term(CommKind::kOffload).exposed;
  const Flops model_step = out.flops_per_token * Tokens{t.tokens_per_step};
  const Flops hardware_step = out.hardware_per_token * Tokens{t.tokens_per_step};
  const FlopsPerSecond peak = c.rate * static_cast<double>(l.devices);
  if (c.utilization > 0.0) {
    // The user's MFU replaces the model: the step is the model FLOPs at that share of the peak.
    t.modeled = false;
    t.step = model_step / (peak * c.utilization);
  } else {
    t.modeled = true;
    t.optimizer = optimizer_time(p, l, first, c);
    t.accumulation = grad_accumulation_time(p, l, first, c);
    t.step = t.compute + t.accumulation + t.bubble + t.exposed_comm + host + t.optimizer +
             t.interference;
  }
  t.mfu = (model_step / peak).count() / t.step.count();
  t.hfu = (hardware_step / peak).count() / t.step.count();
  t.tokens_per_second = t.tokens_per_step / t.step.count();
  t.bound = Bound::kCompute;
  // The optimizer step and the accumulation's adds are the device's work too.
  Seconds largest = t.compute + t.accumulation + t.optimizer;
  if (t.exposed_comm > largest) {
    largest = t.exposed_comm;
    t.bound = Bound::kCommunication;
  }
  if (t.bubble > largest) {
    largest = t.bubble;
    t.bound = Bound::kPipeline;
  }
  if (host > largest) t.bound = Bound::kMemory;
}

}  // namespace tb
