// The maximum-entropy completion lengths (include/trainbudget/model/completion_lengths.hpp),
// against hand-derived values.
#include "trainbudget/model/completion_lengths.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tb {
namespace {

// The integral of the survival over [0, cap] is the mean length (E[L] = integral of P(L > t)).
double integrated_survival(const CompletionLengths& d) {
  const int n = 20000;
  const double h = d.cap() / n;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += d.survival(h * (i + 0.5));
  return sum * h;
}

TEST(CompletionLengths, HalfTheCapIsUniform) {
  // Mean cap / 2: the flat density, P(L > t) = 1 - t / cap; the longest of B uniform draws has
  // mean cap x B / (B + 1); held tokens (1 - t / cap)(p + t) peak at t = (cap - p) / 2, where
  // they are (cap + p)^2 / (4 cap).
  const CompletionLengths d(500.0, 1000.0);
  EXPECT_NEAR(d.rate(), 0.0, 1e-9);
  EXPECT_NEAR(d.survival(250.0), 0.75, 1e-9);
  EXPECT_NEAR(d.peak_held(1, 200.0), 1200.0 * 1200.0 / 4000.0, 0.5);
  EXPECT_NEAR(d.peak_held(8, 0.0), 8.0 * 250.0, 0.5);
}

TEST(CompletionLengths, ShortMeanIsExponential) {
  // Mean 100 of a 10,000 cap: u = 100, the truncation e^-100 is nothing, so the rate is 1/100,
  // and P(L > 100) = 1/e.
  const CompletionLengths d(100.0, 10000.0);
  EXPECT_NEAR(d.rate(), 0.01, 1e-9);
  EXPECT_NEAR(d.survival(100.0), std::exp(-1.0), 1e-9);
  // Held tokens e^{-t/100}(p + t) peak at t = 100 - p: 100 e^{-(100 - p)/100} a sequence.
  EXPECT_NEAR(d.peak_held(2, 40.0), 2.0 * 100.0 * std::exp(-0.6), 0.2);
}

TEST(CompletionLengths, MeanIsKeptRisingOrFalling) {
  for (const double mean : {50.0, 795.0, 1920.0, 3283.0, 3800.0}) {
    const CompletionLengths d(mean, 3840.0);
    EXPECT_NEAR(integrated_survival(d), mean, 0.5) << mean;
    EXPECT_NEAR(d.survival(0.0), 1.0, 1e-9) << mean;
    EXPECT_NEAR(d.survival(3840.0), 0.0, 1e-9) << mean;
  }
  // Above half the cap the density rises toward it.
  EXPECT_LT(CompletionLengths(3283.0, 3840.0).rate(), 0.0);
  EXPECT_GT(CompletionLengths(795.0, 3840.0).rate(), 0.0);
}

TEST(CompletionLengths, MeanAtTheCapPutsEveryCompletionThere) {
  const CompletionLengths d(4096.0, 1024.0);
  EXPECT_DOUBLE_EQ(d.mean(), 1024.0);
  EXPECT_DOUBLE_EQ(d.survival(1000.0), 1.0);
  EXPECT_DOUBLE_EQ(d.peak_held(2, 100.0), 2.0 * 1124.0);
}

}  // namespace
}  // namespace tb
