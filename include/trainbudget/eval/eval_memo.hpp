// A memo for evaluate(): the planner's loop evaluates thousands of layouts that share their
// activation widths and FLOP setup (they differ in ZeRO, offload, data parallelism), so the
// activation rows and FLOP terms of a (profile, step shape) are computed once per thread and
// looked up after. Fixed size, no allocation; results are bit-identical to a cold evaluation.
#pragma once

#include <array>
#include <cstdint>

#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/flop_terms.hpp"
#include "trainbudget/eval/kernel_time.hpp"
#include "trainbudget/eval/stage_span.hpp"
#include "trainbudget/model/profile.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {

class EvalMemo {
 public:
  // Activation numbers of one step shape on one device.
  struct Activations {
    LayerKindBytes dense, moe;
    // Under full recomputation, the layers that keep every activation instead
    // (Layout::recompute_layers): the same widths with nothing recomputed.
    LayerKindBytes dense_kept, moe_kept;
    Bytes head, logits_gradient;
    Bytes loss_released;   // loss_released_bytes(): freed before the LM head's backward
    Bytes dropped_logits;  // logits alive at the end of forward only (not held through backward)
  };

  // The cached value for this key, or nullptr (then the caller computes and put()s).
  [[nodiscard]] const Activations* activations(const ModelProfile& p,
                                               const Layout& l) const noexcept {
    const Shape key = shape_of(p, l);
    return find(activations_, last_activation_, [&](const Shape& k) { return k == key; });
  }
  void put(const ModelProfile& p, const Layout& l, const Activations& v) noexcept {
    ActivationEntry& e = activations_[next_activation_++ % activations_.size()];
    e = {shape_of(p, l), v, true};
  }

  // One micro-batch's kernel passes on one cluster (kernel_time.hpp).
  [[nodiscard]] const MicroBatchKernels* kernels(const ModelProfile& p, const Layout& l,
                                                 const ClusterProfile& c) const noexcept {
    const KernelKey key = kernel_key(p, l, c);
    return find(kernels_, last_kernel_, [&](const KernelKey& k) { return k == key; });
  }
  void put(const ModelProfile& p, const Layout& l, const ClusterProfile& c,
           const MicroBatchKernels& v) noexcept {
    KernelEntry& e = kernels_[next_kernel_++ % kernels_.size()];
    e = {kernel_key(p, l, c), v, true};
  }

  // A pipeline stage of a profile at a pipeline depth (stage_span()).
  [[nodiscard]] const StageSpan* span(const ModelProfile& p, int pp, int index) const noexcept {
    const SpanKey key{&p, pp, index};
    return find(spans_, last_span_, [&](const SpanKey& k) { return k == key; });
  }
  void put(const ModelProfile& p, int pp, int index, const StageSpan& v) noexcept {
    SpanEntry& e = spans_[next_span_++ % spans_.size()];
    e = {{&p, pp, index}, v, true};
  }

  [[nodiscard]] const FlopCounts* flops(const ModelProfile& p, const Layout& l) const noexcept {
    const FlopKey key = flop_key(p, l);
    return find(flops_, last_flop_, [&](const FlopKey& k) { return k == key; });
  }
  void put(const ModelProfile& p, const Layout& l, const FlopCounts& v) noexcept {
    FlopEntry& e = flops_[next_flop_++ % flops_.size()];
    e = {flop_key(p, l), v, true};
  }

 private:
  struct Shape {
    const ModelProfile* profile{nullptr};
    std::int64_t micro_batch{0}, seq_len{0}, logits_positions{0};
    double dropout{0.0};
    int tp{0}, cp{0};
    bool sp{false};
    AttentionImpl attention{};
    Recompute recompute{};
    DType dtype{};
    bool operator==(const Shape&) const = default;
  };
  struct FlopKey {
    const ModelProfile* profile{nullptr};
    std::int64_t seq_len{0}, logits_positions{0};
    AttentionImpl attention{};
    Recompute recompute{};
    bool causal{false};
    bool operator==(const FlopKey&) const = default;
  };
  // The cluster by address and by the figures a kernel's price reads (a caller may reuse one
  // object with other figures).
  struct KernelKey {
    Shape shape;
    int ep{0};
    int etp{0};
    const ClusterProfile* cluster{nullptr};
    double rate{0.0}, rate_16{0.0}, bandwidth{0.0}, kernel{0.0}, overhead{0.0};
    bool operator==(const KernelKey&) const = default;
  };
  struct KernelEntry {
    KernelKey key;
    MicroBatchKernels value;
    bool used{false};
  };
  static KernelKey kernel_key(const ModelProfile& p, const Layout& l,
                              const ClusterProfile& c) noexcept {
    return {shape_of(p, l),
            l.parallel.ep,
            l.expert_tp(),
            &c,
            c.rate.value(),
            c.rate_16.value(),
            c.memory_bandwidth.value(),
            c.knobs.kernel,
            c.knobs.overhead};
  }
  struct ActivationEntry {
    Shape key;
    Activations value;
    bool used{false};
  };
  struct FlopEntry {
    FlopKey key;
    FlopCounts value;
    bool used{false};
  };
  struct SpanKey {
    const ModelProfile* profile{nullptr};
    int pp{0}, index{0};
    bool operator==(const SpanKey&) const = default;
  };
  struct SpanEntry {
    SpanKey key;
    StageSpan value;
    bool used{false};
  };

  static Shape shape_of(const ModelProfile& p, const Layout& l) noexcept {
    return {&p,          l.micro_batch, l.seq_len,         l.logits_positions,
            l.dropout,   l.parallel.tp, l.parallel.cp,     l.parallel.sequence_parallel,
            l.attention, l.recompute,   l.activation_dtype};
  }
  // The entry whose key matches, trying the last one found first: the planner's grid walks
  // ZeRO, offload and sharding innermost, so most lookups repeat the one before.
  template <typename Entries, typename Same>
  static auto find(const Entries& entries, std::size_t& last, const Same& same) noexcept
      -> decltype(&entries[0].value) {
    if (entries[last].used && same(entries[last].key)) return &entries[last].value;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].used && same(entries[i].key)) {
        last = i;
        return &entries[i].value;
      }
    }
    return nullptr;
  }
  static FlopKey flop_key(const ModelProfile& p, const Layout& l) noexcept {
    return {&p, l.seq_len, l.logits_positions, l.attention, l.recompute, l.causal_flops};
  }

  std::array<ActivationEntry, 32> activations_{};
  std::array<FlopEntry, 8> flops_{};
  std::array<KernelEntry, 16> kernels_{};
  std::array<SpanEntry, 8> spans_{};
  std::size_t next_span_{0};
  mutable std::size_t last_span_{0};
  std::size_t next_kernel_{0};
  std::size_t next_activation_{0};
  std::size_t next_flop_{0};
  // The entries find() matched last (a hint; lookups stay const to their callers).
  mutable std::size_t last_kernel_{0};
  mutable std::size_t last_activation_{0};
  mutable std::size_t last_flop_{0};
};

}  // namespace tb
