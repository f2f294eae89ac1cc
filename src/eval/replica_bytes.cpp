// What one full replica of the model holds (the states, every layer's activations and the head's)
// and how many devices of a capacity that takes: the estimate's "needs sharding" figure.
#include <algorithm>
#include <cmath>

#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/evaluate.hpp"

namespace tb {

Bytes replica_bytes(const ModelProfile& p, const Layout& l) noexcept {
  Bytes out{0.0};
  for (const StateTerm& t : p.states) out += t.bytes;
  if (!p.has_architecture) return out;
  const StepDims dense = step_dims(p, l, false);
  // Block recomputation: recompute_layers per stage recompute, the rest of the layers keep all.
  const auto layers = static_cast<std::int64_t>(p.layer_is_moe.size());
  const double rerun = layers > 0 ? static_cast<double>(std::min<std::int64_t>(
                                        layers, l.recomputed_layers(layers) * l.parallel.pp)) /
                                        static_cast<double>(layers)
                                  : 1.0;
  const auto kind = [&](const StepDims& d, double count) {
    Bytes b = layer_kind_bytes(d, l.recompute).per_layer * (count * rerun);
    if (rerun < 1.0) b += layer_kind_bytes(d, Recompute::kNone).per_layer * (count * (1.0 - rerun));
    return b;
  };
  if (p.dense_layers > 0) out += kind(dense, static_cast<double>(p.dense_layers));
  if (p.moe_layers > 0) out += kind(step_dims(p, l, true), static_cast<double>(p.moe_layers));
  return out + head_bytes(dense);
}

int devices_to_fit(Bytes replica, Bytes capacity) noexcept {
  if (capacity.value() <= 0.0) return 1;
  const double needed = std::ceil(replica / capacity);
  return needed < 2e9 ? static_cast<int>(needed) : 2000000000;
}

}  // namespace tb
