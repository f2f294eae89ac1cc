// fmt::formatter for every unit type: `fmt::format("{}", Bytes{112e9})` is "112.0 GB".
//
// Each type has one spelling, with no format spec accepted ("{}" only). Prefixes are decimal
// (k = 1e3, M = 1e6, G = 1e9, T = 1e12, ...), never binary:
//   Bytes           "112.0 GB", "1.20 TB", "12.0 MB"              (report::gb() prints through it)
//   Flops           "42.0 EFLOP", "1.5 GFLOP", "120 FLOP"         (report::flops() prints through
//   it) FlopsPerSecond  "989.5 TFLOP/s" BytesPerSecond  "3350.0 GB/s" Params          "7.00 B
//   params", "125.0 M params", "512 params" Tokens          "1.00 T tokens", "2.05 k tokens", "512
//   tokens" FlopsPerToken   "42.0 GFLOP/token" BytesPerParam   "16 B/param", "2.004 B/param" (whole
//   numbers without decimals) Dollars         "$1234.56" DollarsPerHour  "$2.49/h" Watts "700 W"
//   Joules          "1.5 kWh" (3.6 MJ per kWh: energy is billed in kWh)
// Seconds is std::chrono::duration<double>; fmt/chrono.h already formats it ("3.5s").
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "trainbudget/units/units.hpp"

namespace tb::detail {

// `v` with `decimals` decimals while it has at most 7 integer digits, else three significant
// digits in e-notation ("1.67e+19"): a table cell stays narrow whatever the input.
template <class Out>
Out format_fixed(Out out, double v, int decimals) {
  if (std::fabs(v) < 1e7) return fmt::format_to(out, "{:.{}f}", v, decimals);
  return fmt::format_to(out, "{:.3g}", v);
}

// A count with a decimal prefix word: "7.00 B", "125.0 M", "2.0 k", "512".
template <class Out>
Out format_count(Out out, double n, std::string_view noun) {
  if (n >= 1e12) return fmt::format_to(format_fixed(out, n / 1e12, 2), " T {}", noun);
  if (n >= 1e9) return fmt::format_to(out, "{:.2f} B {}", n / 1e9, noun);
  if (n >= 1e6) return fmt::format_to(out, "{:.1f} M {}", n / 1e6, noun);
  if (n >= 1e3) return fmt::format_to(out, "{:.1f} k {}", n / 1e3, noun);
  return fmt::format_to(out, "{:.0f} {}", n, noun);
}

// FLOPs with the prefix that keeps one decimal meaningful, then `suffix` ("", "/token").
template <class Out>
Out format_flops(Out out, double v, std::string_view suffix) {
  if (v >= 1e30) return fmt::format_to(out, "{:.3g} FLOP{}", v, suffix);
  if (v >= 1e24) return fmt::format_to(out, "{:.1f} YFLOP{}", v / 1e24, suffix);
  if (v >= 1e21) return fmt::format_to(out, "{:.1f} ZFLOP{}", v / 1e21, suffix);
  if (v >= kExa) return fmt::format_to(out, "{:.1f} EFLOP{}", v / kExa, suffix);
  if (v >= kPeta) return fmt::format_to(out, "{:.1f} PFLOP{}", v / kPeta, suffix);
  if (v >= kTera) return fmt::format_to(out, "{:.1f} TFLOP{}", v / kTera, suffix);
  if (v >= kGiga) return fmt::format_to(out, "{:.1f} GFLOP{}", v / kGiga, suffix);
  return fmt::format_to(out, "{:.3g} FLOP{}", v, suffix);
}

// The shared parse: unit types take no format spec.
struct UnitFormatter {
  constexpr auto parse(fmt::format_parse_context& ctx) {
    const auto* it = ctx.begin();
    if (it != ctx.end() && *it != '}') throw fmt::format_error("unit types take no format spec");
    return it;
  }
};

}  // namespace tb::detail

template <>
struct fmt::formatter<tb::Bytes> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Bytes b, Ctx& ctx) const {
    const double v = b.value() / tb::kGiga;
    if (v >= 1000.0)
      return fmt::format_to(tb::detail::format_fixed(ctx.out(), v / 1000.0, 2), " TB");
    if (v >= 0.1) return fmt::format_to(ctx.out(), "{:.1f} GB", v);
    return fmt::format_to(ctx.out(), "{:.1f} MB", b.value() / tb::kMega);
  }
};

template <>
struct fmt::formatter<tb::Flops> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Flops f, Ctx& ctx) const {
    return tb::detail::format_flops(ctx.out(), f.value(), "");
  }
};

template <>
struct fmt::formatter<tb::FlopsPerSecond> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::FlopsPerSecond r, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{:.1f} TFLOP/s", r.value() / tb::kTera);
  }
};

template <>
struct fmt::formatter<tb::BytesPerSecond> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::BytesPerSecond r, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{:.1f} GB/s", r.value() / tb::kGiga);
  }
};

template <>
struct fmt::formatter<tb::Params> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Params n, Ctx& ctx) const {
    return tb::detail::format_count(ctx.out(), n.value(), "params");
  }
};

template <>
struct fmt::formatter<tb::Tokens> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Tokens n, Ctx& ctx) const {
    return tb::detail::format_count(ctx.out(), n.value(), "tokens");
  }
};

template <>
struct fmt::formatter<tb::FlopsPerToken> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::FlopsPerToken f, Ctx& ctx) const {
    return tb::detail::format_flops(ctx.out(), f.value(), "/token");
  }
};

template <>
struct fmt::formatter<tb::BytesPerParam> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::BytesPerParam b, Ctx& ctx) const {
    const double v = b.value();
    if (std::abs(v - std::round(v)) < 1e-9) return fmt::format_to(ctx.out(), "{:.0f} B/param", v);
    return fmt::format_to(ctx.out(), "{:.4g} B/param", v);
  }
};

template <>
struct fmt::formatter<tb::Dollars> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Dollars d, Ctx& ctx) const {
    return tb::detail::format_fixed(fmt::format_to(ctx.out(), "$"), d.value(), 2);
  }
};

template <>
struct fmt::formatter<tb::DollarsPerHour> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::DollarsPerHour d, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "${:.2f}/h", d.value());
  }
};

template <>
struct fmt::formatter<tb::Watts> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Watts w, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{:.0f} W", w.value());
  }
};

template <>
struct fmt::formatter<tb::Joules> : tb::detail::UnitFormatter {
  template <class Ctx>
  auto format(tb::Joules e, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{:.1f} kWh", e.value() / 3.6e6);
  }
};
