// Strong unit types for the training budget: bytes, FLOPs, FLOP/s, seconds, parameter and token
// counts, FLOPs per token, bytes per parameter, dollars, watts and joules.
//
// Training FLOPs reach 1e25, past uint64_t, so every quantity is a double inside a tag-typed
// wrapper: Bytes + Flops does not compile. Only the cross-type operators below exist, each a
// product or quotient that means something physically (Params x BytesPerParam = Bytes). Decimal
// prefixes (GB = 1e9, TFLOP/s = 1e12) are the default everywhere; binary ones (GiB) are spelled
// out where used. The fmt::formatter of each type lives in units/format.hpp.
#pragma once

#include <chrono>
#include <compare>

namespace tb {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_{value} {}

  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr auto operator<=>(const Quantity&) const = default;

  friend constexpr Quantity operator+(Quantity a, Quantity b) {
    return Quantity{a.value_ + b.value_};
  }
  friend constexpr Quantity operator-(Quantity a, Quantity b) {
    return Quantity{a.value_ - b.value_};
  }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity{a.value_ * k}; }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity{a.value_ * k}; }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity{a.value_ / k}; }
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value_ / b.value_; }
  constexpr Quantity& operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }

 private:
  double value_{0.0};
};

using Bytes = Quantity<struct BytesTag>;
using Flops = Quantity<struct FlopsTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using Seconds = std::chrono::duration<double>;
using Params = Quantity<struct ParamsTag>;                  // a parameter count
using Tokens = Quantity<struct TokensTag>;                  // a token count
using FlopsPerToken = Quantity<struct FlopsPerTokenTag>;    // FLOPs one token costs
using BytesPerParam = Quantity<struct BytesPerParamTag>;    // storage of one parameter
using Dollars = Quantity<struct DollarsTag>;                // US dollars
using DollarsPerHour = Quantity<struct DollarsPerHourTag>;  // a device's hourly price, USD
using Watts = Quantity<struct WattsTag>;
using Joules = Quantity<struct JoulesTag>;  // energy

// Time to do `work` at `rate`: the one place FLOPs become seconds.
constexpr Seconds operator/(Flops work, FlopsPerSecond rate) {
  return Seconds{work.value() / rate.value()};
}
constexpr Seconds operator/(Bytes data, BytesPerSecond rate) {
  return Seconds{data.value() / rate.value()};
}

// Parameters held at a storage width. The product is params x bytes per param in the value
// order written (IEEE multiplication of two operands is commutative, so either order is exact).
constexpr Bytes operator*(Params n, BytesPerParam width) {
  return Bytes{n.value() * width.value()};
}
constexpr Bytes operator*(BytesPerParam width, Params n) {
  return Bytes{width.value() * n.value()};
}
constexpr BytesPerParam operator/(Bytes data, Params n) {
  return BytesPerParam{data.value() / n.value()};
}
constexpr Params operator/(Bytes data, BytesPerParam width) {
  return Params{data.value() / width.value()};
}

// A run's work: FLOPs per token over its tokens.
constexpr Flops operator*(FlopsPerToken cost, Tokens n) { return Flops{cost.value() * n.value()}; }
constexpr Flops operator*(Tokens n, FlopsPerToken cost) { return Flops{n.value() * cost.value()}; }
constexpr FlopsPerToken operator/(Flops work, Tokens n) {
  return FlopsPerToken{work.value() / n.value()};
}

// Energy at a power draw, and what an hourly price costs over a time.
constexpr Joules operator*(Watts power, Seconds t) { return Joules{power.value() * t.count()}; }
constexpr Joules operator*(Seconds t, Watts power) { return Joules{t.count() * power.value()}; }
constexpr Dollars operator*(DollarsPerHour price, Seconds t) {
  return Dollars{price.value() * (t.count() / 3600.0)};
}
constexpr Dollars operator*(Seconds t, DollarsPerHour price) {
  return Dollars{(t.count() / 3600.0) * price.value()};
}

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kPeta = 1e15;
inline constexpr double kExa = 1e18;
inline constexpr double kGibi = 1024.0 * 1024.0 * 1024.0;

namespace literals {
constexpr Bytes operator""_GB(long double v) { return Bytes{static_cast<double>(v) * kGiga}; }
constexpr Bytes operator""_GB(unsigned long long v) {
  return Bytes{static_cast<double>(v) * kGiga};
}
constexpr FlopsPerSecond operator""_TFLOPS(long double v) {
  return FlopsPerSecond{static_cast<double>(v) * kTera};
}
constexpr FlopsPerSecond operator""_TFLOPS(unsigned long long v) {
  return FlopsPerSecond{static_cast<double>(v) * kTera};
}
}  // namespace literals

constexpr double hours(Seconds s) { return s.count() / 3600.0; }

}  // namespace tb
