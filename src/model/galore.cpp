// GaLore's optimizer states (include/trainbudget/model/galore.hpp).
#include "trainbudget/model/galore.hpp"

#include <algorithm>

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"

namespace tb {

double galore_state_share(const ModelArchitecture& arch, std::int64_t rank) {
  if (rank < 1) return 1.0;
  const auto total = static_cast<double>(count_params(arch).total);
  if (total <= 0.0) return 1.0;
  double projected_weights = 0.0;
  double projected_states = 0.0;
  for (const LinearLayer& l : model_linears(arch)) {
    if (l.kind == LinearKind::kLmHead || l.kind == LinearKind::kRouter ||
        l.kind == LinearKind::kMtpProjection) {
      continue;
    }
    const auto in = static_cast<double>(l.in_features);
    const auto out = static_cast<double>(l.out_features);
    const double r = std::min(static_cast<double>(rank), std::min(in, out));
    const auto instances = static_cast<double>(l.copies * l.layers);
    projected_weights += in * out * instances;
    projected_states += (std::min(in, out) * r + 2.0 * std::max(in, out) * r) * instances;
  }
  return (projected_states + 2.0 * (total - projected_weights)) / (2.0 * total);
}

}  // namespace tb
