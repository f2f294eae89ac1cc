// Goodput (eval/goodput.hpp): Daly's expected wall time at his optimum interval, values derived
// by hand (the same formulas in Python) and held against Llama 3's published ">90 %".
#include "trainbudget/eval/goodput.hpp"

#include <gtest/gtest.h>

namespace tb {
namespace {

// Llama 3 405B on 16,384 H100s (2,048 nodes): one failure every 50,677 / 16,384 = 3.09 hours; a
// checkpoint of 405e9 x 14 B at 2 TB/s takes 2.84 s; Daly's interval 4.2 minutes; with a
// 10-minute restart the fraction is 0.926 -- the paper reports "higher than 90 % effective
// training time" (sec. 3.3.4).
TEST(Goodput, Llama3AtSixteenThousandGpusIsAboveNinetyPercent) {
  const Goodput g = goodput_of(Seconds{54.0 * 86400.0}, 16384, 2048, Bytes{405e9 * 14.0}, {});
  EXPECT_TRUE(g.modeled);
  EXPECT_NEAR(g.mtbf.count() / 3600.0, 3.0931, 1e-3);
  EXPECT_NEAR(g.checkpoint.count(), 2.835, 1e-3);
  EXPECT_NEAR(g.interval.count() / 3600.0, 0.06927, 1e-4);
  EXPECT_NEAR(g.fraction, 0.9263, 1e-3);
  EXPECT_GT(g.fraction, 0.90);
  EXPECT_NEAR(g.wall.count(), 54.0 * 86400.0 / g.fraction, 1.0);
}

// Eight GPUs in one node: a failure every 6,335 hours, a 98 GB checkpoint at 1 GB/s; 0.997.
TEST(Goodput, OneNodeLosesUnderOnePercent) {
  const Goodput g = goodput_of(Seconds{86400.0}, 8, 1, Bytes{7e9 * 14.0}, {});
  EXPECT_NEAR(g.fraction, 0.99701, 1e-4);
}

TEST(Goodput, AGivenGoodputReplacesTheModel) {
  const Goodput g = goodput_of(Seconds{1000.0}, 1024, 128, Bytes{1e12}, 0.8);
  EXPECT_FALSE(g.modeled);
  EXPECT_DOUBLE_EQ(g.fraction, 0.8);
  EXPECT_DOUBLE_EQ(g.wall.count(), 1250.0);
}

}  // namespace
}  // namespace tb
