// Number formatting shared by every view.
#include "trainbudget/report/format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/units/format.hpp"

namespace tb::report {

Format parse_format(std::string_view text) {
  if (const auto f = enum_from_name<Format>(text)) return *f;
  throw InvalidRequest("format", fmt::format("unknown format '{}'", excerpt(text)),
                       enum_choices<Format>());
}

std::string gb(Bytes bytes) { return fmt::format("{}", bytes); }

std::pair<std::string, std::string> gb_apart(Bytes larger, Bytes smaller) {
  const double a = larger.value() / kGiga;
  const double b = smaller.value() / kGiga;
  for (int d = 1; d < 4; ++d) {
    if (fmt::format("{:.{}f}", a, d) != fmt::format("{:.{}f}", b, d)) {
      return {fmt::format("{:.{}f} GB", a, d), fmt::format("{:.{}f} GB", b, d)};
    }
  }
  return {fmt::format("{:.4f} GB", a), fmt::format("{:.4f} GB", b)};
}

std::string decimals_apart(double value, double limit) {
  for (int d = 1; d < 4; ++d) {
    if (fmt::format("{:.{}f}", value, d) != fmt::format("{:.{}f}", limit, d)) {
      return fmt::format("{:.{}f}", value, d);
    }
  }
  return fmt::format("{:.4f}", value);
}

std::string counted(std::int64_t n, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural);
}

std::string fixed(double v, int decimals) {
  std::string out;
  detail::format_fixed(std::back_inserter(out), v, decimals);
  return out;
}

// A slow device (a measured microcontroller, a typo'd TOML) keeps two significant digits.
std::string tflops(FlopsPerSecond rate) {
  const double t = rate.value() / kTera;
  if (t > 0.0 && t < 0.05) return fmt::format("{:.2g}", t);
  return fixed(t, 1);
}

std::string flops(Flops work) { return fmt::format("{}", work); }

std::string grouped(std::int64_t n) {
  const std::uint64_t magnitude =
      n < 0 ? ~static_cast<std::uint64_t>(n) + 1 : static_cast<std::uint64_t>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {
std::string whole(double v) {
  if (!std::isfinite(v) || std::abs(v) >= 1e15) return fmt::format("{:.3g}", v);
  return grouped(static_cast<std::int64_t>(std::llround(v)));
}
}  // namespace

std::string dollars(double usd) { return fmt::format("${}", whole(usd)); }

std::string kwh(double kilowatt_hours) { return fmt::format("{} kWh", whole(kilowatt_hours)); }

std::string count(double n) {
  if (n >= 1e12) return fixed(n / 1e12, 2) + " T";
  if (n >= 1e9) return fmt::format("{:.2f} B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.1f} M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

std::string hours_text(Seconds s) { return fixed(hours(s), 1) + " h"; }

std::string duration(Seconds s) {
  const double secs = s.count();
  constexpr double kMinute = 60.0;
  constexpr double kHour = 3600.0;
  constexpr double kDay = 24.0 * kHour;
  constexpr double kWeek = 7.0 * kDay;
  constexpr double kYear = 365.25 * kDay;
  if (secs < kMinute) return fmt::format("{:.1f} s", secs);
  if (secs < kHour) return fmt::format("{:.1f} min", secs / kMinute);
  if (secs < 2.0 * kDay) return fmt::format("{:.1f} hours", secs / kHour);
  if (secs < 3.0 * kWeek) return fmt::format("{:.1f} days", secs / kDay);
  if (secs < kYear) return fmt::format("{:.1f} weeks", secs / kWeek);
  return fixed(secs / kYear, 1) + " years";
}

std::string duration_range(Seconds low, Seconds high) {
  const double lo = low.count();
  const double hi = high.count();
  constexpr double kHour = 3600.0;
  constexpr double kDay = 24.0 * kHour;
  constexpr double kWeek = 7.0 * kDay;
  constexpr double kYear = 365.25 * kDay;
  // Both ends in the unit the high end takes.
  const auto in = [&](double unit, const char* name) {
    return fmt::format("{:.1f}-{:.1f} {}", lo / unit, hi / unit, name);
  };
  if (hi < kHour) return in(60.0, "min");
  if (hi < 2.0 * kDay) return in(kHour, "hours");
  if (hi < 3.0 * kWeek) return in(kDay, "days");
  if (hi < kYear) return in(kWeek, "weeks");
  return in(kYear, "years");
}

// Three significant digits at most: 40 %, 80.3 %, 0.781 %.
std::string percent(double fraction) { return fmt::format("{:.3g} %", fraction * 100.0); }

std::string bytes_per_param(double b) {
  if (std::abs(b - std::round(b)) < 1e-9) return fmt::format("{:.0f}", b);
  return fmt::format("{:.4g}", b);
}

}  // namespace tb::report
