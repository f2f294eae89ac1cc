// A measured fabric (measure --fabric): the communication model on its size curves, the system
// file that carries them, and the profile fitted from a measurement, against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "trainbudget/eval/comm.hpp"
#include "trainbudget/eval/fabric_check.hpp"
#include "trainbudget/eval/measured_comm.hpp"
#include "trainbudget/io/system_toml.hpp"
#include "trainbudget/measure/fabric.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

// All-reduce on 4 ranks: 8 B in 10 us, 1 MiB in 400 us, 4 MiB in 1.2 ms.
CollectiveCurve all_reduce_curve() {
  return {Collective::kAllReduce,
          FabricTier::kIntraNode,
          4,
          {8.0, 1048576.0, 4194304.0},
          {10e-6, 400e-6, 1.2e-3}};
}

System measured_system() {
  System s;
  s.id = "here";
  s.name = "test";
  s.device = "rtx-4090";
  s.fabric.devices_per_node = 4;
  s.fabric.scale_up = {BytesPerSecond{5e9}, Seconds{2e-6}};
  s.scale_up = {"measured", "switched", "measured by a test", 0, {}};
  MeasuredFabric m;
  m.curves.push_back(all_reduce_curve());
  m.hosts = {"vm"};
  m.ranks = 4;
  m.ranks_per_host = 4;
  m.runtime = "Open MPI v4.1.4";
  m.buffers = "host";
  m.date = "2026-12-02T07:00:00Z";
  s.set_measured(std::move(m));
  return s;
}

TEST(BusBandwidth, FactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::kAllToAll, 8), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::kSendRecv, 2), 1.0);
}

TEST(MeasuredComm, ReproducesEveryMeasuredPointAtTheMeasuredRankCount) {
  const CollectiveCurve c = all_reduce_curve();
  for (std::size_t i = 0; i < c.bytes.size(); ++i) {
    EXPECT_NEAR(curve_time(c, Bytes{c.bytes[i]}, 4).count(), c.seconds[i], 1e-15);
  }
}

TEST(MeasuredComm, OtherRankCountsKeepTheBusBandwidth) {
  // 4 MiB on 8 ranks: bus bandwidth 4194304 x 1.5 / 1.2e-3 = 5.24e9 B/s, time = 4194304 x
  // (2 x 7/8) / 5.24e9 = 1.2e-3 x 1.75 / 1.5 = 1.4 ms.
  EXPECT_NEAR(curve_time(all_reduce_curve(), Bytes{4194304.0}, 8).count(), 1.4e-3, 1e-12);
}

TEST(MeasuredComm, InterpolatesLogLogAndHoldsTheEnds) {
  const CollectiveCurve c = all_reduce_curve();
  // Half way (in log size) between 1 MiB and 4 MiB: 2 MiB at the geometric mean of the two
  // bus bandwidths, 1.5 x 2^20 / 400e-6 and 1.5 x 2^22 / 1.2e-3.
  const double bw = std::sqrt((1.5 * 1048576.0 / 400e-6) * (1.5 * 4194304.0 / 1.2e-3));
  EXPECT_NEAR(curve_time(c, Bytes{2097152.0}, 4).count(), 2097152.0 * 1.5 / bw, 1e-12);
  // Past the largest size, the largest's bus bandwidth: 8 MiB takes twice 4 MiB's time.
  EXPECT_NEAR(curve_time(c, Bytes{8388608.0}, 4).count(), 2.4e-3, 1e-12);
  // Below the smallest, and never under it: the latency floor.
  EXPECT_DOUBLE_EQ(curve_time(c, Bytes{1.0}, 4).count(), 10e-6);
  // 16 B: one doubling of 2^17 along the log axis from 8 B to 1 MiB.
  const double w = std::log(2.0) / std::log(1048576.0 / 8.0);
  const double lo = 1.5 * 8.0 / 10e-6;
  const double hi = 1.5 * 1048576.0 / 400e-6;
  EXPECT_NEAR(curve_time(c, Bytes{16.0}, 4).count(), 16.0 * 1.5 / (lo * std::pow(hi / lo, w)),
              1e-15);
  EXPECT_EQ(curve_time(c, Bytes{1e6}, 1).count(), 0.0);
}

TEST(MeasuredComm, TheDefaultModelReadsTheCurveWhereItCoversTheCollective) {
  const System s = measured_system();
  const CommModel& comm = default_comm_model();
  EXPECT_NEAR(comm.time(Collective::kAllReduce, Bytes{1048576.0}, {4, 1}, s.fabric).count(), 400e-6,
              1e-15);
  // Not measured: the fitted link's alpha-beta, base latency included.
  Fabric links_only = s.fabric;
  links_only.measured = nullptr;
  EXPECT_DOUBLE_EQ(comm.time(Collective::kAllGather, Bytes{1048576.0}, {4, 1}, s.fabric).count(),
                   comm.time(Collective::kAllGather, Bytes{1048576.0}, {4, 1}, links_only).count());
  // A group past the node is the inter-node tier, which was not measured.
  EXPECT_EQ(measured_curve(s.fabric, Collective::kAllReduce, {8, 1}), nullptr);
  EXPECT_EQ(group_tier(s.fabric, {2, 4}), FabricTier::kInterNode);
}

TEST(MeasuredComm, AnInterNodeCurveIsSharedByTheMembersOfANode) {
  // Timed with every local rank in its own cross-host communicator at once; a group with two
  // members per node gets two shares.
  Fabric f;
  f.devices_per_node = 4;
  MeasuredFabric m;
  m.curves.push_back({Collective::kAllReduce, FabricTier::kInterNode, 2, {1e6, 1e8}, {1e-3, 0.1}});
  f.measured = &m;
  const double one =
      default_comm_model().time(Collective::kAllReduce, Bytes{1e8}, {2, 4}, f).count();
  EXPECT_DOUBLE_EQ(one, 0.1);
  EXPECT_EQ(members_per_node(f, {4, 2}), 2);
  // 4 ranks, 2 per node: bus factor 1.5 over 1.0, at twice the bandwidth.
  EXPECT_NEAR(default_comm_model().time(Collective::kAllReduce, Bytes{1e8}, {4, 2}, f).count(),
              0.1 * 1.5 / 2.0, 1e-12);
}

TEST(SystemFile, AMeasuredSystemReadsBackEqual) {
  const System s = measured_system();
  const auto dir = std::filesystem::temp_directory_path() / "tb_measured_fabric_test";
  std::filesystem::remove_all(dir);
  const std::filesystem::path file = io::save_system(s, dir);
  const System back = io::load_system_file(file);
  ASSERT_NE(back.measured, nullptr);
  EXPECT_EQ(back.fabric.measured, back.measured.get());
  EXPECT_EQ(back.device, "rtx-4090");
  EXPECT_EQ(back.fabric.devices_per_node, 4);
  EXPECT_DOUBLE_EQ(back.fabric.scale_up.bandwidth.value(), 5e9);
  EXPECT_DOUBLE_EQ(back.fabric.scale_up.latency.count(), 2e-6);
  ASSERT_EQ(back.measured->curves.size(), 1U);
  EXPECT_EQ(back.measured->curves[0].bytes, all_reduce_curve().bytes);
  EXPECT_EQ(back.measured->curves[0].seconds, all_reduce_curve().seconds);
  EXPECT_EQ(back.measured->hosts, std::vector<std::string>{"vm"});
  EXPECT_EQ(back.measured->runtime, "Open MPI v4.1.4");
  EXPECT_EQ(io::system_toml(back), io::system_toml(s));
  std::filesystem::remove_all(dir);
}

TEST(SystemFile, ABrokenCurveIsNamed) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_measured_fabric_bad";
  std::filesystem::remove_all(dir);
  std::string text = io::system_toml(measured_system());
  text.replace(text.find("\"all_reduce\""), 12, "\"allreduce\"");
  text.replace(text.find("bytes = [8, "), 12, "bytes = [2000000, ");
  std::filesystem::create_directories(dir);
  const auto file = dir / "here.toml";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  try {
    (void)io::load_system_file(file);
    ADD_FAILURE() << "a broken curve was accepted";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("measured.curve[0].op: 'allreduce' is not one of"), std::string::npos)
        << what;
    EXPECT_NE(what.find("measured.curve[0].bytes: must be ascending"), std::string::npos) << what;
  }
  std::filesystem::remove_all(dir);
}

measure::FabricMeasurement sample_measurement() {
  measure::FabricMeasurement m;
  m.hosts = {"vm"};
  m.ranks = 4;
  m.ranks_per_host = 4;
  m.runtime = "Open MPI v4.1.4";
  m.buffers = "host";
  m.date = "2026-12-02T07:00:00Z";
  // Out of order on purpose; medians 20 us, 1 ms (2 MiB) and 3 ms (8 MiB).
  m.runs.push_back(
      {Collective::kAllReduce, FabricTier::kIntraNode, 4, 8388608.0, {3e-3, 2e-3, 4e-3}});
  m.runs.push_back({Collective::kAllReduce, FabricTier::kIntraNode, 4, 8.0, {20e-6, 30e-6, 10e-6}});
  m.runs.push_back(
      {Collective::kAllReduce, FabricTier::kIntraNode, 4, 2097152.0, {1e-3, 1e-3, 1e-3}});
  return m;
}

TEST(FabricProfile, LinksAreFittedFromTheCurve) {
  const System s = measure::fabric_system(sample_measurement(), "here", "rtx-4090");
  ASSERT_NE(s.measured, nullptr);
  const CollectiveCurve& c = s.measured->curves.at(0);
  EXPECT_EQ(c.bytes, (std::vector<double>{8.0, 2097152.0, 8388608.0}));
  EXPECT_EQ(c.seconds, (std::vector<double>{20e-6, 1e-3, 3e-3}));
  // Median bus bandwidth past 1 MiB: of 1.5 x 2 MiB / 1 ms and 1.5 x 8 MiB / 3 ms.
  const double a = 1.5 * 2097152.0 / 1e-3;
  const double b = 1.5 * 8388608.0 / 3e-3;
  EXPECT_DOUBLE_EQ(s.fabric.scale_up.bandwidth.value(), (a + b) / 2.0);
  // Per-step latency: 20 us over the ring's 2(n-1) = 6 steps.
  EXPECT_DOUBLE_EQ(s.fabric.scale_up.latency.count(), 20e-6 / 6.0);
  EXPECT_EQ(s.fabric.devices_per_node, 4);
  EXPECT_EQ(s.fabric.scale_out.bandwidth.value(), 0.0);  // one host: no network measured
  EXPECT_NE(s.scale_up.source.find("measured"), std::string::npos);
}

TEST(FabricProfile, TheEstimateGivesTheMeasuredTimesBack) {
  const System s = measure::fabric_system(sample_measurement(), "here", "rtx-4090");
  const std::vector<FabricCheck> check = fabric_check(s, 1048576.0);
  ASSERT_EQ(check.size(), 2U);
  for (const FabricCheck& c : check) {
    EXPECT_NEAR(c.model_seconds / c.measured_seconds, 1.0, 1e-12) << c.bytes;
    EXPECT_GT(c.alpha_beta_seconds, 0.0);
  }
}

TEST(FabricOptions, SizesAndCollectivesParse) {
  EXPECT_EQ(measure::parse_fabric_sizes("1M,8,64K,8", "sizes"),
            (std::vector<double>{8.0, 65536.0, 1048576.0}));
  EXPECT_EQ(measure::parse_fabric_sizes("1G", "sizes"), (std::vector<double>{1073741824.0}));
  EXPECT_THROW((void)measure::parse_fabric_sizes("2G", "sizes"), InvalidRequest);
  EXPECT_THROW((void)measure::parse_fabric_sizes("4", "sizes"), InvalidRequest);
  EXPECT_THROW((void)measure::parse_fabric_sizes("1Q", "sizes"), InvalidRequest);
  EXPECT_EQ(measure::parse_collectives("all", "collectives").size(), 6U);
  EXPECT_EQ(measure::parse_collectives("send_recv,all_reduce,send_recv", "collectives"),
            (std::vector<Collective>{Collective::kSendRecv, Collective::kAllReduce}));
  EXPECT_THROW((void)measure::parse_collectives("allreduce", "collectives"), InvalidRequest);
  const std::vector<double> sizes = measure::default_fabric_sizes();
  EXPECT_EQ(sizes.front(), 8.0);
  EXPECT_EQ(sizes.back(), 1073741824.0);
}

}  // namespace
}  // namespace tb
