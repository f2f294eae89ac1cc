// Communication: how long a collective over a group of devices takes on a fabric. One
// interface (CommModel) so that a calibrated backend (measured NCCL tables, a network simulator
// such as ASTRA-sim's AstraNetworkAPI) can replace the analytical one without touching the
// evaluator. docs/scale.md, "Communication", derives every formula.
#pragma once

#include <cstdint>

#include "trainbudget/spec/cluster.hpp"
#include "trainbudget/spec/collective.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

// A communicator: `ranks` devices, consecutive members `stride` device numbers apart (tensor
// parallel ranks are adjacent, data-parallel ones tp x cp apart: Megatron-LM's default order
// tp-cp-ep-dp-pp).
struct Group {
  int ranks{1};
  int stride{1};
};

// The link a group's collective runs at (docs/scale.md, "Which link"): inside one node the
// scale-up link; a group that spans nodes shares its nodes' scale-out bandwidth with the other
// groups of the same kind communicating at the same time, k / devices_per_node of it for k
// members per node, and never more than the scale-up link between members of one node.
[[nodiscard]] Link group_link(const Fabric& fabric, Group group) noexcept;

// Whether `devices` need more nodes than one on a fabric that has no link between nodes (a PCIe
// workstation): such a layout cannot run, whatever its memory (docs/time.md, "Communication").
[[nodiscard]] constexpr bool crosses_missing_network(const Fabric& fabric, int devices) noexcept {
  return fabric.devices_per_node > 0 && devices > fabric.devices_per_node &&
         fabric.scale_out.bandwidth.value() <= 0.0 && !fabric.point_to_point;
}

class CommModel {
 public:
  virtual ~CommModel() = default;
  // Seconds for one collective of `bytes` over `group` on `fabric`; 0 for a group of one.
  [[nodiscard]] virtual Seconds time(Collective op, Bytes bytes, Group group,
                                     const Fabric& fabric) const noexcept = 0;
};

// The alpha-beta model (Hockney 1994; Thakur, Rabenseifner and Gropp 2005, "Optimization of
// Collective Communication Operations in MPICH", sec. 4): ring all-reduce 2(n-1) steps of S/n,
// reduce-scatter and all-gather (n-1) steps of S/n, pairwise all-to-all (n-1) steps of S/n,
// send/recv one step of S. All-reduce also has a double binary tree (NCCL 2.4: 2 log2 n
// latency steps and 2S/B of bandwidth time, Sanders et al. 2009); the faster of the two is
// taken, as NCCL's tuner does.
// Every call also pays NCCL's base latency once, whatever its steps: 6.6 us for the ring's LL
// protocol that small messages take (NCCL src/graph/tuning.cc baseLatencies[RING][LL], as
// ported in meta-pytorch/autoparallel cost_models/nccl_cost_model.py), so a collective per
// layer or per bucket costs more than one per step.
// Where the fabric carries a measured curve for the collective and its tier (`measure --fabric`),
// that curve prices it instead (eval/measured_comm.hpp), its own latency included.
inline constexpr Seconds kCollectiveBaseLatency{6.6e-6};

class AlphaBetaComm final : public CommModel {
 public:
  [[nodiscard]] Seconds time(Collective op, Bytes bytes, Group group,
                             const Fabric& fabric) const noexcept override;

 private:
  [[nodiscard]] Seconds steps_time(Collective op, Bytes bytes, Group group,
                                   const Fabric& fabric) const noexcept;
};

// The instance evaluate() uses when the caller passes none.
[[nodiscard]] const CommModel& default_comm_model() noexcept;

// Steps and bytes of one collective, as the formulas above count them, for the views and tests.
[[nodiscard]] Seconds ring_all_reduce_time(Bytes bytes, int ranks, const Link& link) noexcept;
[[nodiscard]] Seconds tree_all_reduce_time(Bytes bytes, int ranks, const Link& link) noexcept;

}  // namespace tb
