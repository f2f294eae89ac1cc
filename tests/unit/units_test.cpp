// Unit types: arithmetic, conversions, and what must not compile.
#include "trainbudget/units/units.hpp"

#include <gtest/gtest.h>

#include <type_traits>

namespace tb {
namespace {

template <class A, class B>
concept Addable = requires(A a, B b) {
  a + b;
};
template <class A, class B>
concept Divisible = requires(A a, B b) {
  a / b;
};

// Compile-time checks: mixing units is a type error.
static_assert(Addable<Bytes, Bytes>);
static_assert(!Addable<Bytes, Flops>);
static_assert(!Addable<Flops, FlopsPerSecond>);
static_assert(!Addable<Bytes, double>);
static_assert(!std::is_convertible_v<double, Bytes>);
static_assert(std::is_same_v<decltype(Flops{1.0} / FlopsPerSecond{1.0}), Seconds>);
static_assert(std::is_same_v<decltype(Bytes{1.0} / BytesPerSecond{1.0}), Seconds>);
static_assert(!Divisible<Flops, BytesPerSecond>);
static_assert((Bytes{2.0} + Bytes{3.0}).value() == 5.0);
static_assert((Bytes{2.0} * 8.0).value() == 16.0);
static_assert(Bytes{1.0} < Bytes{2.0});

TEST(Units, FlopsOverRateIsSeconds) {
  // The seed: 42 EFLOP at 989.5 TFLOP/s is 11.79 h.
  const Seconds s = Flops{42e18} / FlopsPerSecond{989.5e12};
  EXPECT_NEAR(hours(s), 11.7904, 1e-4);
}

TEST(Units, LiteralsAreDecimal) {
  using namespace literals;
  EXPECT_DOUBLE_EQ((80_GB).value(), 80e9);
  EXPECT_DOUBLE_EQ((989.5_TFLOPS).value(), 989.5e12);
  EXPECT_NE((1_GB).value(), kGibi);
}

TEST(Units, RatioOfSameUnitIsDimensionless) { EXPECT_DOUBLE_EQ(Bytes{112e9} / Bytes{80e9}, 1.4); }

}  // namespace
}  // namespace tb
