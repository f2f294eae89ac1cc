// Human-readable numbers: decimal units (GB = 1e9 B, TFLOP/s = 1e12), durations in words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/units/units.hpp"

namespace tb::report {

enum class Format { kTable, kJson, kCsv, kMarkdown, kHtml };
}  // namespace tb::report

template <>
struct tb::EnumNames<tb::report::Format> {
  static constexpr std::array<std::pair<tb::report::Format, std::string_view>, 5> kNames{
      {{tb::report::Format::kTable, "table"},
       {tb::report::Format::kJson, "json"},
       {tb::report::Format::kCsv, "csv"},
       {tb::report::Format::kMarkdown, "markdown"},
       {tb::report::Format::kHtml, "html"}}};
};

namespace tb::report {

// "table" | "json" | "csv" | "markdown" | "html"; throws InvalidArgument naming --format.
[[nodiscard]] Format parse_format(std::string_view text);

[[nodiscard]] std::string gb(Bytes bytes);  // "112.0 GB"
// Two sizes in GB with as many decimals (1 to 4) as it takes for the larger to read larger:
// "82.74 GB" and "82.71 GB", never "82.7 GB > 82.7 GB".
[[nodiscard]] std::pair<std::string, std::string> gb_apart(Bytes larger, Bytes smaller);
// `value` with as many decimals (1 to 4) as it takes to differ from `limit` at the same count.
[[nodiscard]] std::string decimals_apart(double value, double limit);
// `v` to `decimals` places, or "1.67e+19" past 7 integer digits (units/format.hpp).
[[nodiscard]] std::string fixed(double v, int decimals);
[[nodiscard]] std::string tflops(FlopsPerSecond rate);  // "989.5"
[[nodiscard]] std::string flops(Flops work);            // "42.0 EFLOP"
[[nodiscard]] std::string grouped(std::int64_t n);      // "8,030,261,248": exact counts
// Whole dollars and kilowatt-hours with separators: "$94", "$10,293,847", "2,058,583 kWh"
// (three significant digits past 1e15).
[[nodiscard]] std::string dollars(double usd);
[[nodiscard]] std::string kwh(double kilowatt_hours);
[[nodiscard]] std::string count(double n);        // "7.00 B", "125 M"
[[nodiscard]] std::string hours_text(Seconds s);  // "598.3 h"
[[nodiscard]] std::string duration(Seconds s);    // "24.9 days", "8.9 weeks", "1.4 years"
// A band's two ends in the unit of its high end: "4.0-5.9 hours", "17.2-27.0 days".
[[nodiscard]] std::string duration_range(Seconds low, Seconds high);
[[nodiscard]] std::string percent(double fraction);   // "40 %"
[[nodiscard]] std::string bytes_per_param(double b);  // "16", "2.0039"
// "1 sequence", "29 sequences": the count and the noun that agrees with it.
[[nodiscard]] std::string counted(std::int64_t n, std::string_view singular,
                                  std::string_view plural);

}  // namespace tb::report
