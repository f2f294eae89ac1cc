// The planner's candidate order and kept lists (candidate_order.hpp).
#include "candidate_order.hpp"

#include <algorithm>
#include <tuple>

namespace tb::plan {

bool before(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score < b.score;
  const auto key = [](const Candidate& c) {
    const Layout& l = c.layout;
    const Parallelism& x = l.parallel;
    return std::make_tuple(l.devices, c.workload, x.tp, x.pp, x.cp, x.ep, x.etp, x.virtual_stages,
                           l.zero_stage, static_cast<int>(x.offload), x.shard_group, l.micro_batch,
                           static_cast<int>(l.recompute), l.recompute_layers);
  };
  return key(a) < key(b);
}

bool same_knobs(const Layout& a, const Layout& b) {
  const Parallelism& x = a.parallel;
  const Parallelism& y = b.parallel;
  return x.tp == y.tp && x.pp == y.pp && x.cp == y.cp && x.ep == y.ep && x.etp == y.etp &&
         x.virtual_stages == y.virtual_stages && x.offload == y.offload &&
         x.shard_group == y.shard_group && a.zero_stage == b.zero_stage &&
         a.micro_batch == b.micro_batch && a.recompute == b.recompute &&
         a.recompute_layers == b.recompute_layers;
}

void keep(std::vector<Candidate>& list, const Candidate& c, std::size_t k) {
  if (k == 0) return;
  if (list.size() == k && !before(c, list.back())) return;
  const auto at =
      std::upper_bound(list.begin(), list.end(), c,
                       [](const Candidate& x, const Candidate& y) { return before(x, y); });
  list.insert(at, c);
  if (list.size() > k) list.pop_back();
}

}  // namespace tb::plan
