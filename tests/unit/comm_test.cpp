// The communication model against its formulas, published NCCL measurements, and the seed's
// claim that Thunderbolt cannot rack Macs up against NVLink.
#include "trainbudget/eval/comm.hpp"

#include <gtest/gtest.h>

#include "trainbudget/io/hardware_loader.hpp"

namespace tb {
namespace {

const HardwareCatalog& catalog() {
  static const HardwareCatalog c = io::load_catalog({io::data_dir() / "hardware", {}});
  return c;
}

const Fabric& fabric_of(const char* system) { return catalog().system_at(system, "system").fabric; }

// Bus bandwidth as nccl-tests reports it (doc/PERFORMANCE.md): algbw x 2(n-1)/n for all-reduce.
double all_reduce_busbw(Bytes bytes, Group g, const Fabric& f) {
  const Seconds t = default_comm_model().time(Collective::kAllReduce, bytes, g, f);
  const double n = g.ranks;
  return bytes.value() / t.count() * 2.0 * (n - 1.0) / n;
}

TEST(Comm, RingAllReduceIsTwoNMinusOneStepsOfSOverN) {
  const Link link{BytesPerSecond{450e9}, Seconds{0.6e-6}};
  const Seconds t = ring_all_reduce_time(Bytes{1e9}, 8, link);
  EXPECT_DOUBLE_EQ(t.count(), 14 * 0.6e-6 + 2.0 * 7.0 / 8.0 * 1e9 / 450e9);
  EXPECT_EQ(ring_all_reduce_time(Bytes{1e9}, 1, link).count(), 0.0);
}

TEST(Comm, SmallMessagesTakeTheTreeLargeOnesTheRing) {
  // 1 KB over 64 ranks: the ring's 126 latency steps lose to the tree's 2 x 6.
  Fabric f;
  f.scale_up = {BytesPerSecond{50e9}, Seconds{5e-6}};
  const Group g{64, 1};
  const Seconds small = default_comm_model().time(Collective::kAllReduce, Bytes{1e3}, g, f);
  EXPECT_DOUBLE_EQ(
      small.count(),
      (kCollectiveBaseLatency + tree_all_reduce_time(Bytes{1e3}, 64, f.scale_up)).count());
  const Seconds large = default_comm_model().time(Collective::kAllReduce, Bytes{1e10}, g, f);
  EXPECT_DOUBLE_EQ(
      large.count(),
      (kCollectiveBaseLatency + ring_all_reduce_time(Bytes{1e10}, 64, f.scale_up)).count());
}

TEST(Comm, AGroupInsideANodeUsesNvlinkAcrossNodesItsShareOfTheNics) {
  const Fabric& dgx = fabric_of("dgx-h100");  // 8 GPUs, 450 GB/s NVLink, 8 x 50 GB/s NICs
  EXPECT_DOUBLE_EQ(group_link(dgx, {8, 1}).bandwidth.value(), 450e9);
  // One member per node (tensor-parallel ranks in between): that GPU's own NIC.
  EXPECT_DOUBLE_EQ(group_link(dgx, {16, 8}).bandwidth.value(), 50e9);
  // Eight members per node: the node's eight NICs together, under the NVLink figure.
  EXPECT_DOUBLE_EQ(group_link(dgx, {64, 1}).bandwidth.value(), 400e9);
}

// ml-engineering network benchmarks (stas00/ml-engineering, network/benchmarks): 8 x H200 in one
// node, all-reduce of 16 GiB: 367.61 GB/s busbw with the ring, 482.26 GB/s with NVLink SHARP.
// The model runs at the link's 450 GB/s per direction: 22 % above the ring, 7 % below NVLS.
TEST(Comm, MatchesNcclRingAllReduceInsideAnH200NodeWithin3Percent) {
  // The system's busbw_fraction (0.80) is the ring's measured share of the link: the model runs
  // at NCCL's ring (367.61 GB/s measured) and below its NVLS algorithm (482.26, not modeled).
  const double busbw = all_reduce_busbw(Bytes{16.0 * kGibi}, {8, 1}, fabric_of("hgx-h200"));
  EXPECT_NEAR(busbw / 367.61e9, 1.0, 0.03) << busbw;
  EXPECT_LT(busbw, 482.26e9);
}

// Same source: 4 nodes x 8 B200 over EFA, all-reduce of 16 GiB: 381.80 GB/s busbw. The model
// runs at the node's 8 x 50 GB/s NICs: 400 GB/s, 4.8 % above.
TEST(Comm, MatchesNcclAllReduceAcrossFourB200NodesWithin10Percent) {
  const double busbw = all_reduce_busbw(Bytes{16.0 * kGibi}, {32, 1}, fabric_of("dgx-b200"));
  EXPECT_NEAR(busbw / 381.80e9, 1.0, 0.10) << busbw;
}

// The seed: "Thunderbolt's ~10 GB/s cannot rack Macs up against NVLink's 1,800". The same
// collective over two Macs and over two H100s differs by their bandwidth ratio (450 / 9.375 =
// 48), latency aside.
TEST(Comm, ThunderboltAndNvlinkDifferByTheirBandwidthRatio) {
  const Bytes gradients{14e9};  // a 7B model's bf16 gradients
  const Seconds mac = default_comm_model().time(Collective::kAllReduce, gradients, {2, 1},
                                                fabric_of("mac-studio-m3-ultra-tb5"));
  const Seconds nvlink =
      default_comm_model().time(Collective::kAllReduce, gradients, {2, 1}, fabric_of("dgx-h100"));
  // NVLink at its measured ring share (0.80 of 450 GB/s); Thunderbolt at its figure.
  EXPECT_NEAR(mac / nvlink, 450.0 * 0.80 / 9.375, 0.05 * 38.4);
  EXPECT_GT(mac.count(), 1.0);  // over a second per step for the gradients alone
}

}  // namespace
}  // namespace tb
