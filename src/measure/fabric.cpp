// The fabric measurement's pure half: option lists, summaries and the system profile.
#include "trainbudget/measure/fabric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "trainbudget/measure/statistics.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::measure {
namespace {

constexpr double kMinMessage = 8.0;
constexpr double kMaxMessage = 1024.0 * 1024 * 1024;  // MPI counts are int: 2^31 - 1

// Latency steps a ring takes for the collective (the alpha-beta model of eval/comm.hpp), so that
// the fitted per-step latency reproduces the smallest message's time.
double ring_steps(Collective op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1.0);
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return n - 1.0;
    case Collective::kBroadcast:
      return std::max(1.0, std::ceil(std::log2(n)));
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

// The curve a link is fitted from: all-reduce where measured, else the first curve of the tier.
const CollectiveCurve* link_curve(const MeasuredFabric& m, FabricTier tier) {
  if (const CollectiveCurve* c = m.find(Collective::kAllReduce, tier)) return c;
  for (const CollectiveCurve& c : m.curves) {
    if (c.tier == tier) return &c;
  }
  return nullptr;
}

// The median bus bandwidth of the sizes past 1 MiB (of every size when none is), robust to
// the cache effects of host buffers (fast while a message fits a cache, slower past it), and
// the per-step latency of the smallest size.
Link fitted_link(const CollectiveCurve& c) {
  Link link;
  const double factor = bus_bandwidth_factor(c.op, c.ranks);
  std::vector<double> large;
  std::vector<double> all;
  for (std::size_t i = 0; i < c.bytes.size(); ++i) {
    const double bus = c.bytes[i] * factor / c.seconds[i];
    all.push_back(bus);
    if (c.bytes[i] > 1024.0 * 1024) large.push_back(bus);
  }
  link.bandwidth = BytesPerSecond{summarize(large.empty() ? all : large).median};
  link.latency = Seconds{c.seconds.front() / ring_steps(c.op, c.ranks)};
  return link;
}

std::string gb(double bytes_per_second) { return fmt::format("{:.3g}", bytes_per_second / 1e9); }

}  // namespace

std::vector<double> default_fabric_sizes() {
  std::vector<double> out;
  for (double s = kMinMessage; s <= 1024.0 * 1024 * 1024; s *= 8.0) out.push_back(s);
  out.push_back(1024.0 * 1024 * 1024);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> parse_fabric_sizes(std::string_view text, std::string_view field) {
  std::vector<double> out;
  const std::string accepted =
      "bytes from 8 to 1G, with K, M or G for binary multiples, comma-separated (8,64K,1M,1G)";
  for (std::string_view entry : split_comma_list(text, field, accepted)) {
    double scale = 1.0;
    std::string_view digits = entry;
    if (!digits.empty()) {
      switch (digits.back()) {
        case 'K':
        case 'k':
          scale = 1024.0;
          break;
        case 'M':
        case 'm':
          scale = 1024.0 * 1024;
          break;
        case 'G':
        case 'g':
          scale = 1024.0 * 1024 * 1024;
          break;
        default:
          break;
      }
      if (scale > 1.0) digits.remove_suffix(1);
    }
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    const double bytes = static_cast<double>(v) * scale;
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size() ||
        bytes < kMinMessage || bytes > kMaxMessage) {
      throw InvalidRequest(std::string{field}, fmt::format("'{}' is not a size", excerpt(entry)),
                           accepted);
    }
    out.push_back(bytes);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Collective> parse_collectives(std::string_view text, std::string_view field) {
  std::vector<Collective> out;
  const std::string accepted =
      fmt::format("{} or all, comma-separated", enum_choices<Collective>());
  for (std::string_view entry : split_comma_list(text, field, accepted)) {
    if (entry == "all") {
      out.clear();
      for (const auto& [op, name] : EnumNames<Collective>::kNames) out.push_back(op);
      return out;
    }
    const auto op = enum_from_name<Collective>(entry);
    if (!op) {
      throw InvalidRequest(std::string{field},
                           fmt::format("'{}' is not a collective", excerpt(entry)), accepted);
    }
    if (std::find(out.begin(), out.end(), *op) == out.end()) out.push_back(*op);
  }
  return out;
}

std::vector<FabricRow> fabric_rows(const FabricMeasurement& m) {
  std::vector<FabricRow> out;
  for (const FabricRun& run : m.runs) {
    if (run.seconds.empty()) continue;
    FabricRow row;
    row.run = run;
    row.stats = summarize(run.seconds);
    row.algbw = row.stats.median > 0.0 ? run.bytes / row.stats.median : 0.0;
    row.busbw = row.algbw * bus_bandwidth_factor(run.op, run.ranks);
    out.push_back(std::move(row));
  }
  return out;
}

MeasuredFabric measured_fabric(const FabricMeasurement& m) {
  MeasuredFabric out;
  out.hosts = m.hosts;
  out.ranks = m.ranks;
  out.ranks_per_host = m.ranks_per_host;
  out.runtime = m.runtime;
  out.buffers = m.buffers;
  out.date = m.date;
  for (const FabricRow& row : fabric_rows(m)) {
    CollectiveCurve* curve = nullptr;
    for (CollectiveCurve& c : out.curves) {
      if (c.op == row.run.op && c.tier == row.run.tier) curve = &c;
    }
    if (curve == nullptr) {
      out.curves.push_back(CollectiveCurve{row.run.op, row.run.tier, row.run.ranks, {}, {}});
      curve = &out.curves.back();
    }
    curve->bytes.push_back(row.run.bytes);
    curve->seconds.push_back(row.stats.median);
  }
  for (CollectiveCurve& c : out.curves) {
    std::vector<std::size_t> order(c.bytes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return c.bytes[a] < c.bytes[b]; });
    std::vector<double> bytes;
    std::vector<double> seconds;
    for (const std::size_t i : order) {
      if (!bytes.empty() && bytes.back() == c.bytes[i]) continue;
      bytes.push_back(c.bytes[i]);
      seconds.push_back(c.seconds[i]);
    }
    c.bytes = std::move(bytes);
    c.seconds = std::move(seconds);
  }
  return out;
}

System fabric_system(const FabricMeasurement& m, std::string id, std::string device) {
  MeasuredFabric measured = measured_fabric(m);
  if (measured.curves.empty()) throw Error("measure: the fabric run timed nothing to save");
  System s;
  s.id = std::move(id);
  s.device = std::move(device);
  const std::string where =
      measured.hosts.size() == 1
          ? fmt::format("{} ranks on {}", measured.ranks, measured.hosts.front())
          : fmt::format("{} ranks on {} hosts ({} per host)", measured.ranks, measured.hosts.size(),
                        measured.ranks_per_host);
  s.name = fmt::format("Measured fabric: {}", where);
  const std::string source = fmt::format(
      "measured by trainbudget's fabric measurement (docs/fabric.md): {}, {} over {} "
      "buffers, {}",
      where, measured.runtime, measured.buffers, measured.date);
  s.notes =
      "Measured by trainbudget's fabric measurement (docs/fabric.md): the [measured] curves "
      "price every collective they cover; the links are fitted to them for the rest.";
  s.fabric.devices_per_node = std::max(1, measured.ranks_per_host);
  if (const CollectiveCurve* c = link_curve(measured, FabricTier::kIntraNode)) {
    s.fabric.scale_up = fitted_link(*c);
    s.scale_up.name = fmt::format("measured {} (bus bandwidth {} GB/s)", enum_name(c->op),
                                  gb(s.fabric.scale_up.bandwidth.value()));
    s.scale_up.topology = "switched";
    s.scale_up.source = source;
  } else {
    // One rank per host: no link inside a node to describe; the node is one device.
    s.fabric.devices_per_node = 1;
  }
  if (const CollectiveCurve* c = link_curve(measured, FabricTier::kInterNode)) {
    // Timed with every rank of a host in its own cross-host communicator at once: the host's
    // link is the sum of their shares.
    Link link = fitted_link(*c);
    link.bandwidth = link.bandwidth * static_cast<double>(std::max(1, measured.ranks_per_host));
    s.fabric.scale_out = link;
    s.scale_out.name = fmt::format("measured {} between hosts (bus bandwidth {} GB/s)",
                                   enum_name(c->op), gb(link.bandwidth.value()));
    s.scale_out.topology = "switched";
    s.scale_out.nics = 1;
    s.scale_out.per_nic = link.bandwidth;
    s.scale_out.source = source;
  }
  s.set_measured(std::move(measured));
  return s;
}

}  // namespace tb::measure
