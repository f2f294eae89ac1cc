// Median and spread of timing samples, checked against values worked out by hand.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "trainbudget/measure/statistics.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {

TEST(Statistics, EvenCountMedianIsMeanOfMiddlePairAndStddevUsesNMinusOne) {
  // Sum 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7.
  const std::array<double, 8> samples{9, 2, 5, 4, 4, 7, 4, 5};
  const SampleStats s = summarize(samples);
  EXPECT_EQ(s.count, 8U);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12);
}

TEST(Statistics, OddCountMedianIsTheMiddleSampleWhateverTheOrder) {
  const std::array<double, 5> samples{0.30, 0.10, 0.50, 0.20, 0.40};
  const SampleStats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 0.30);
  EXPECT_DOUBLE_EQ(s.min, 0.10);
  EXPECT_DOUBLE_EQ(s.max, 0.50);
  EXPECT_NEAR(s.stddev, std::sqrt(0.025), 1e-12);  // deviations^2 sum 0.1, / 4
}

TEST(Statistics, OneSampleHasNoSpread) {
  const std::array<double, 1> samples{0.125};
  const SampleStats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 0.125);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
}

TEST(Statistics, NoSamplesIsAnError) { EXPECT_THROW((void)summarize({}), InvalidArgument); }

}  // namespace
}  // namespace tb::measure
