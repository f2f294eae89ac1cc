// Stacked and log-axis bar charts as SVG text (the same two kinds the web page draws).
#include "svg_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tb::report {
namespace {

constexpr double kWidth = 720.0, kLeft = 190.0, kRight = 110.0;
constexpr std::array<const char*, 7> kPalette{"#0b4f9c", "#d1495b", "#edae49", "#00798c",
                                              "#66a182", "#8d6a9f", "#555555"};

std::string gb_text(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_stacked(const std::string& title, const std::vector<StackedRow>& rows) {
  std::vector<std::string> names;
  double max = 1.0;
  for (const StackedRow& r : rows) {
    double sum = 0.0;
    for (const auto& [name, bytes] : r.parts) {
      sum += bytes;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    max = std::max({max, sum, r.capacity});
  }
  const double row_h = 30.0, top = 10.0;
  // The legend wraps at the chart's width: (x, line) of each name.
  std::vector<std::pair<double, int>> at_of;
  double lx = kLeft;
  int line = 0;
  for (const std::string& n : names) {
    const double w = 24.0 + 7.0 * static_cast<double>(n.size());
    if (lx + w > kWidth && lx > kLeft) {
      lx = kLeft;
      ++line;
    }
    at_of.emplace_back(lx, line);
    lx += w;
  }
  const double legend_top = top + static_cast<double>(rows.size()) * row_h + 14.0;
  const double height = legend_top + 18.0 * static_cast<double>(line + 1);
  // The bars end 190 px short of the edge: each row's total and capacity are written right of
  // both its bar and its capacity line, so no label crosses a bar.
  const auto scale = [&](double b) { return b / max * (kWidth - kLeft - 190.0); };
  std::string s = fmt::format(
      "<figure><figcaption>{}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
      "{} {}\" role=\"img\" aria-label=\"{}\" width=\"100%\">",
      html_escape(title), kWidth, height, html_escape(title));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StackedRow& r = rows[i];
    const double y = top + static_cast<double>(i) * row_h;
    s += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + 17, html_escape(r.label));
    double x = kLeft;
    for (const auto& [name, bytes] : r.parts) {
      const auto at =
          static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"{}\"><title>{}: "
          "{}</title></rect>",
          x, y + 4, std::max(scale(bytes), 0.0), kPalette[at % kPalette.size()], html_escape(name),
          gb_text(bytes));
      x += scale(bytes);
    }
    double total = 0.0;
    for (const auto& part : r.parts) total += part.second;
    double end = x;
    if (r.capacity > 0.0) {
      const double cx = kLeft + scale(r.capacity);
      s += fmt::format(
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\" "
          "stroke-width=\"3\"/>",
          cx, y, y + 26);
      end = std::max(end, cx + 2.0);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{} of {} usable</text>", end + 6.0, y + 17,
                       gb_text(total), gb_text(r.capacity));
    } else {
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>", end + 6.0, y + 17, gb_text(total));
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [x, k] = at_of[i];
    const double ly = legend_top + 18.0 * static_cast<double>(k);
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1f}\" "
        "y=\"{}\">{}</text>",
        x, ly - 10, kPalette[i % kPalette.size()], x + 16, ly, html_escape(names[i]));
  }
  return s + "</svg></figure>\n";
}

std::string svg_log_bars(const std::string& title, const std::vector<LogRow>& rows) {
  double lo = 1e300, hi = 0.0;
  for (const LogRow& r : rows) {
    if (r.value > 0.0) {
      lo = std::min(lo, r.value);
      hi = std::max(hi, r.value);
    }
  }
  if (hi <= 0.0) return {};
  const double d_lo = std::floor(std::log10(lo));
  const double d_hi = std::max(std::ceil(std::log10(hi)), d_lo + 1.0);
  const auto x_of = [&](double v) {
    return kLeft + (std::log10(v) - d_lo) / (d_hi - d_lo) * (kWidth - kLeft - kRight);
  };
  const double row_h = 28.0, top = 10.0;
  const double bottom = top + static_cast<double>(rows.size()) * row_h;
  std::string s = fmt::format(
      "<figure><figcaption>{} (log scale)</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" width=\"100%\">",
      html_escape(title), kWidth, bottom + 24, html_escape(title));
  for (double d = d_lo; d <= d_hi; d += 1.0) {
    const double x = x_of(std::pow(10.0, d));
    s += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/><text "
        "x=\"{3:.1f}\" y=\"{4}\">1e{5:.0f}</text>",
        x, top, bottom, x - 10, bottom + 16, d);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LogRow& r = rows[i];
    const double y = top + static_cast<double>(i) * row_h;
    s += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + 16, html_escape(r.label));
    if (r.value <= 0.0) continue;
    const double x = x_of(r.value);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"10\" fill=\"{}\"/><text "
        "x=\"{:.1f}\" y=\"{}\">{}</text>",
        kLeft, y + 7, std::max(x - kLeft, 1.0), r.muted ? "#b8b8b8" : "#0b4f9c", x + 6, y + 16,
        html_escape(r.text));
  }
  return s + "</svg></figure>\n";
}

}  // namespace tb::report
