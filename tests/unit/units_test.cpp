// Unit types: arithmetic, conversions, formatting, and what must not compile.
#include "trainbudget/units/units.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "trainbudget/units/format.hpp"

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
template <class A, class B>
concept Multipliable = requires(A a, B b) {
  a* b;
};
template <class A, class B, class R>
concept ProductIs = requires(A a, B b) {
  { a* b } -> std::same_as<R>;
};
template <class A, class B, class R>
concept QuotientIs = requires(A a, B b) {
  { a / b } -> std::same_as<R>;
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

// The meaningful cross-type products and quotients, and their result types.
static_assert(ProductIs<Params, BytesPerParam, Bytes>);
static_assert(ProductIs<BytesPerParam, Params, Bytes>);
static_assert(QuotientIs<Bytes, Params, BytesPerParam>);
static_assert(QuotientIs<Bytes, BytesPerParam, Params>);
static_assert(ProductIs<FlopsPerToken, Tokens, Flops>);
static_assert(ProductIs<Tokens, FlopsPerToken, Flops>);
static_assert(QuotientIs<Flops, Tokens, FlopsPerToken>);
static_assert(ProductIs<Watts, Seconds, Joules>);
static_assert(ProductIs<Seconds, Watts, Joules>);
static_assert(ProductIs<DollarsPerHour, Seconds, Dollars>);
static_assert(ProductIs<Params, double, Params>);
static_assert(QuotientIs<Params, Params, double>);
static_assert((Params{7e9} * BytesPerParam{2.0}).value() == 14e9);
static_assert((FlopsPerToken{6.0} * Tokens{10.0}).value() == 60.0);

// The wrong combinations do not compile. (A bare requires-expression with non-dependent operands
// is a hard error outside a template, so the checks go through the concepts above.)
static_assert(!Addable<Bytes, Flops>);
static_assert(!Addable<Params, Tokens>);
static_assert(!Addable<Params, Bytes>);
static_assert(!Addable<Dollars, DollarsPerHour>);
static_assert(!Addable<Watts, Joules>);
static_assert(!Multipliable<Params, Tokens>);  // not a physical quantity here
static_assert(!Multipliable<Params, Params>);  // same-unit products are not a unit we have
static_assert(!Multipliable<Bytes, BytesPerParam>);
static_assert(!Multipliable<Params, FlopsPerToken>);
static_assert(!Multipliable<FlopsPerToken, Params>);
static_assert(!Multipliable<Flops, Tokens>);
static_assert(!Multipliable<Watts, Dollars>);
static_assert(!Multipliable<Dollars, Seconds>);  // an hourly price is DollarsPerHour
static_assert(!Divisible<Flops, Params>);
static_assert(!Divisible<Bytes, Tokens>);
static_assert(!Divisible<Params, BytesPerParam>);
static_assert(!std::is_convertible_v<double, Params>);
static_assert(!std::is_convertible_v<Params, double>);
static_assert(!std::is_convertible_v<Params, Tokens>);
static_assert(!std::is_convertible_v<FlopsPerToken, Flops>);
static_assert(!std::is_convertible_v<double, Dollars>);
static_assert(!std::is_convertible_v<double, Watts>);

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

TEST(Units, ParamsTimesWidthIsBytes) {
  // Mixed-precision Adam: 16 bytes per parameter of a 7 B model is 112 GB.
  EXPECT_DOUBLE_EQ((Params{7e9} * BytesPerParam{16.0}).value(), 112e9);
  EXPECT_DOUBLE_EQ((Bytes{112e9} / Params{7e9}).value(), 16.0);
}

TEST(Units, FlopsPerTokenTimesTokensIsFlops) {
  EXPECT_DOUBLE_EQ((FlopsPerToken{42e9} * Tokens{1e9}).value(), 42e18);
  EXPECT_DOUBLE_EQ((Flops{42e18} / Tokens{1e9}).value(), 42e9);
}

TEST(Units, PowerOverTimeIsEnergyAndPriceOverTimeIsDollars) {
  EXPECT_DOUBLE_EQ((Watts{700.0} * Seconds{3600.0}).value(), 2.52e6);
  EXPECT_DOUBLE_EQ((DollarsPerHour{2.5} * Seconds{7200.0}).value(), 5.0);
}

TEST(Units, FormatsWithDecimalPrefixes) {
  EXPECT_EQ(fmt::format("{}", Bytes{112e9}), "112.0 GB");
  EXPECT_EQ(fmt::format("{}", Bytes{1.2e12}), "1.20 TB");
  EXPECT_EQ(fmt::format("{}", Bytes{12e6}), "12.0 MB");
  EXPECT_EQ(fmt::format("{}", Flops{42e18}), "42.0 EFLOP");
  EXPECT_EQ(fmt::format("{}", FlopsPerSecond{989.5e12}), "989.5 TFLOP/s");
  EXPECT_EQ(fmt::format("{}", BytesPerSecond{3.35e12}), "3350.0 GB/s");
  EXPECT_EQ(fmt::format("{}", Params{7e9}), "7.00 B params");
  EXPECT_EQ(fmt::format("{}", Params{125e6}), "125.0 M params");
  EXPECT_EQ(fmt::format("{}", Params{512.0}), "512 params");
  EXPECT_EQ(fmt::format("{}", Tokens{1e12}), "1.00 T tokens");
  EXPECT_EQ(fmt::format("{}", Tokens{2048.0}), "2.0 k tokens");
  EXPECT_EQ(fmt::format("{}", FlopsPerToken{42e9}), "42.0 GFLOP/token");
  EXPECT_EQ(fmt::format("{}", BytesPerParam{16.0}), "16 B/param");
  EXPECT_EQ(fmt::format("{}", BytesPerParam{2.00390625}), "2.004 B/param");
  EXPECT_EQ(fmt::format("{}", Dollars{1234.567}), "$1234.57");
  EXPECT_EQ(fmt::format("{}", DollarsPerHour{2.49}), "$2.49/h");
  EXPECT_EQ(fmt::format("{}", Watts{700.0}), "700 W");
  EXPECT_EQ(fmt::format("{}", Joules{5.4e6}), "1.5 kWh");
}

TEST(Units, FormatSpecsAreRejected) {
  EXPECT_THROW(static_cast<void>(fmt::format(fmt::runtime("{:.3f}"), Bytes{1.0})),
               fmt::format_error);
}

TEST(Units, RatioOfSameUnitIsDimensionless) { EXPECT_DOUBLE_EQ(Bytes{112e9} / Bytes{80e9}, 1.4); }

}  // namespace
}  // namespace tb
