// The system TOML schema (docs/systems.md): node shapes and their links, every problem of a file
// reported at once.
#include "trainbudget/io/system_toml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "field_reader.hpp"
#include "toml_text.hpp"
#include "toml_write.hpp"
#include "trainbudget/io/device_toml.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/limits.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

using Reader = FieldReader<TomlSource>;

constexpr std::array<std::string_view, 6> kUpTopologies{"switched", "torus", "ring",
                                                        "mesh",     "pcie",  "point-to-point"};
constexpr std::array<std::string_view, 2> kOutTopologies{"switched", "point-to-point"};
// Collective latencies from 0.1 us to 1 s; nodes of up to 2^20 devices; 2^16 NICs.
constexpr Range kLatencyRange{0.01, 1e6};
// nccl-tests busbw over the link figure: NVLS all-reduce reaches past 1 (482 of 450 GB/s).
constexpr Range kBusbwFractionRange{0.05, 1.5};
// Host memory of a node, GB: a TPU pod's "node" is its whole ICI domain (8960 hosts' worth).
constexpr Range kHostMemoryRange{1e-3, 1e9};
// A host CPU's time for the same framework work over the reference x86 host's: 0.1x to 20x.
constexpr Range kCpuTimeRange{0.1, 20.0};
// A measured message: 1 B to 1 TB; its time: 1 ns to an hour.
constexpr Range kMessageRange{1.0, 1e12};
constexpr Range kSecondsRange{1e-9, 3600.0};

template <std::size_t N>
void check_choice(const std::string& value, const std::array<std::string_view, N>& set,
                  const std::string& name, std::vector<std::string>& problems) {
  for (const std::string_view v : set) {
    if (value == v) return;
  }
  problems.push_back(fmt::format("{}: '{}' is not one of {}", name, excerpt(value),
                                 fmt::format("{}", fmt::join(set, "|"))));
}

Seconds microseconds(double us) { return Seconds{us * 1e-6}; }

// A list of positive numbers, each within `range`; a problem for anything else.
std::vector<double> positive_list(const TomlTable& t, std::string_view key, const std::string& name,
                                  Range range, std::vector<std::string>& problems) {
  std::vector<double> out;
  const std::vector<TomlValue>* list = t.array(key);
  if (list == nullptr) {
    problems.push_back(fmt::format("{}: missing (a list of numbers > 0)", name));
    return out;
  }
  for (const TomlValue& n : *list) {
    const std::optional<double> v = n.value<double>();
    if (!v || !std::isfinite(*v) || !range.contains(*v)) {
      problems.push_back(fmt::format("{}: every value must be a number from {:g} to {:g}", name,
                                     range.lo, range.hi));
      return {};
    }
    out.push_back(*v);
  }
  return out;
}

// [measured]: what `measure --fabric` timed (docs/fabric.md, "The saved system").
MeasuredFabric read_measured(const TomlTable& t, std::vector<std::string>& problems) {
  MeasuredFabric m;
  Reader r(t, "measured", problems);
  r.allow_only({"hosts", "ranks", "ranks_per_host", "runtime", "buffers", "date", "curve"});
  if (const std::vector<TomlValue>* hosts = t.array("hosts")) {
    for (const TomlValue& h : *hosts) {
      if (const auto name = h.value<std::string>()) m.hosts.push_back(*name);
    }
  }
  m.ranks = static_cast<int>(std::clamp<std::int64_t>(r.required("ranks"), 0, 1 << 20));
  m.ranks_per_host =
      static_cast<int>(std::clamp<std::int64_t>(r.required("ranks_per_host"), 0, 1 << 20));
  m.runtime = r.string("runtime", true);
  m.buffers = r.string("buffers", true);
  m.date = r.string("date", true);
  const std::vector<TomlValue>* curves = t.array("curve");
  if (curves == nullptr) {
    problems.push_back("measured.curve: missing (a [[measured.curve]] per collective and tier)");
    return m;
  }
  std::size_t index = 0;
  for (const TomlValue& node : *curves) {
    const std::string prefix = fmt::format("measured.curve[{}]", index++);
    const TomlTable* row = node.as_table();
    if (row == nullptr) {
      problems.push_back(fmt::format("{}: must be a table", prefix));
      continue;
    }
    Reader c(*row, prefix, problems);
    c.allow_only({"op", "tier", "ranks", "bytes", "seconds"});
    CollectiveCurve curve;
    const std::string op = c.string("op", true);
    if (const auto v = enum_from_name<Collective>(op)) {
      curve.op = *v;
    } else if (!op.empty()) {
      problems.push_back(fmt::format("{}.op: '{}' is not one of {}", prefix, excerpt(op),
                                     enum_choices<Collective>()));
    }
    const std::string tier = c.string("tier", true);
    if (const auto v = enum_from_name<FabricTier>(tier)) {
      curve.tier = *v;
    } else if (!tier.empty()) {
      problems.push_back(fmt::format("{}.tier: '{}' is not one of {}", prefix, excerpt(tier),
                                     enum_choices<FabricTier>()));
    }
    const std::int64_t ranks = c.required("ranks");
    if (ranks < 2 || ranks > (1 << 20)) {
      problems.push_back(fmt::format("{}.ranks: {} is outside 2..1048576", prefix, ranks));
    }
    curve.ranks = static_cast<int>(std::clamp<std::int64_t>(ranks, 2, 1 << 20));
    curve.bytes = positive_list(*row, "bytes", prefix + ".bytes", kMessageRange, problems);
    curve.seconds = positive_list(*row, "seconds", prefix + ".seconds", kSecondsRange, problems);
    if (curve.bytes.size() != curve.seconds.size()) {
      problems.push_back(fmt::format("{}: bytes has {} values and seconds {}; they pair up", prefix,
                                     curve.bytes.size(), curve.seconds.size()));
    } else if (!std::is_sorted(curve.bytes.begin(), curve.bytes.end()) ||
               std::adjacent_find(curve.bytes.begin(), curve.bytes.end()) != curve.bytes.end()) {
      problems.push_back(fmt::format("{}.bytes: must be ascending, each size once", prefix));
    }
    if (m.find(curve.op, curve.tier) != nullptr) {
      problems.push_back(fmt::format("{}: a second {} {} curve", prefix, op, tier));
    }
    m.curves.push_back(std::move(curve));
  }
  return m;
}

System build_system(const TomlTable& root, const std::string& origin) {
  std::vector<std::string> problems;
  System s;
  s.origin = origin;
  Reader top(root, "", problems);
  top.allow_only({"id", "name", "device", "devices_per_node", "notes", "scale_up", "scale_out",
                  "host", "measured"});
  s.id = top.string("id", true);
  s.name = top.string("name", true);
  s.device = top.string("device", true);
  s.notes = top.string("notes", false);
  for (std::string problem : {s.id.empty() ? std::string{} : id_problem("id", s.id),
                              text_problem("name", s.name), text_problem("notes", s.notes)}) {
    if (!problem.empty()) problems.push_back(std::move(problem));
  }
  const fs::path stem = fs::path(origin).stem();
  if (!s.id.empty() && stem.string() != s.id) {
    problems.push_back(fmt::format("id: '{}' must equal the file name '{}'", excerpt(s.id),
                                   excerpt(stem.string())));
  }
  if (const auto n = top.integer("devices_per_node", true)) {
    if (*n < 1 || *n > (1 << 20)) {
      problems.push_back(fmt::format("devices_per_node: {} is outside 1..1048576", *n));
    } else {
      s.fabric.devices_per_node = static_cast<int>(*n);
    }
  }
  if (const TomlTable* up = top.object("scale_up", false)) {
    Reader r(*up, "scale_up", problems);
    r.allow_only(
        {"name", "bandwidth_gb_per_s", "latency_us", "busbw_fraction", "topology", "source"});
    if (auto f = r.positive("busbw_fraction", false, kBusbwFractionRange)) {
      s.fabric.scale_up.busbw_fraction = *f;
    }
    s.scale_up.name = r.string("name", true);
    if (auto bw = r.positive("bandwidth_gb_per_s", true, kBandwidthRange)) {
      s.fabric.scale_up.bandwidth = BytesPerSecond{*bw * kGiga};
    }
    if (auto us = r.positive("latency_us", false, kLatencyRange)) {
      s.fabric.scale_up.latency = microseconds(*us);
    }
    s.scale_up.topology = r.string("topology", true);
    if (!s.scale_up.topology.empty()) {
      check_choice(s.scale_up.topology, kUpTopologies, "scale_up.topology", problems);
    }
    s.scale_up.source = r.string("source", true);
  } else if (s.fabric.devices_per_node > 1) {
    problems.push_back("scale_up: missing (a node of more than one device needs its link)");
  }
  if (const TomlTable* out = top.object("scale_out", false)) {
    Reader r(*out, "scale_out", problems);
    r.allow_only({"name", "nics_per_node", "nic_gb_per_s", "latency_us", "busbw_fraction",
                  "topology", "ports_per_node", "source"});
    if (auto f = r.positive("busbw_fraction", false, kBusbwFractionRange)) {
      s.fabric.scale_out.busbw_fraction = *f;
    }
    s.scale_out.name = r.string("name", true);
    const auto nics = r.integer("nics_per_node", true);
    const auto per_nic = r.positive("nic_gb_per_s", true, kBandwidthRange);
    if (auto us = r.positive("latency_us", false, kLatencyRange)) {
      s.fabric.scale_out.latency = microseconds(*us);
    }
    s.scale_out.topology = r.string("topology", true);
    if (!s.scale_out.topology.empty()) {
      check_choice(s.scale_out.topology, kOutTopologies, "scale_out.topology", problems);
    }
    s.fabric.point_to_point = s.scale_out.topology == "point-to-point";
    if (const auto ports = r.integer("ports_per_node", false)) {
      if (*ports < 0 || *ports > 1024) {
        problems.push_back(fmt::format("scale_out.ports_per_node: {} is outside 0..1024", *ports));
      } else {
        s.fabric.ports_per_node = static_cast<int>(*ports);
      }
    }
    if (s.fabric.point_to_point && s.fabric.ports_per_node < 1) {
      problems.push_back("scale_out.ports_per_node: a point-to-point fabric needs its port count");
    }
    if (nics && (*nics < 1 || *nics > 65536)) {
      problems.push_back(fmt::format("scale_out.nics_per_node: {} is outside 1..65536", *nics));
    } else if (nics && per_nic) {
      s.scale_out.nics = static_cast<int>(*nics);
      s.scale_out.per_nic = BytesPerSecond{*per_nic * kGiga};
      // A ring over point-to-point cables sends over one cable at a time; a switched node
      // drives all its NICs at once.
      s.fabric.scale_out.bandwidth = s.fabric.point_to_point
                                         ? s.scale_out.per_nic
                                         : s.scale_out.per_nic * static_cast<double>(*nics);
    }
    s.scale_out.source = r.string("source", true);
  }
  if (const TomlTable* host = top.object("host", false)) {
    Reader r(*host, "host", problems);
    r.allow_only({"pcie_gb_per_s", "memory_gb", "devices_per_link", "cpu_time_ratio", "source"});
    if (auto bw = r.positive("pcie_gb_per_s", false, kBandwidthRange)) {
      s.fabric.host.bandwidth = BytesPerSecond{*bw * kGiga};
    }
    if (auto gb = r.positive("memory_gb", false, kHostMemoryRange))
      s.host_memory = Bytes{*gb * kGiga};
    if (const auto shared = r.integer("devices_per_link", false)) {
      if (*shared < 1 || *shared > 64) {
        problems.push_back(fmt::format("host.devices_per_link: {} is outside 1..64", *shared));
      } else {
        s.fabric.devices_per_host_link = static_cast<int>(*shared);
      }
    }
    if (auto ratio = r.positive("cpu_time_ratio", false, kCpuTimeRange)) s.host_cpu_time = *ratio;
    s.host_source = r.string("source", true);
  }
  if (const TomlTable* measured = top.object("measured", false)) {
    s.set_measured(read_measured(*measured, problems));
  }
  if (!problems.empty()) throw DataError(origin, std::move(problems));
  return s;
}

}  // namespace

System parse_system_toml(std::string_view text, const std::string& origin, bool builtin) {
  return build_system(builtin ? read_toml(text, origin) : parse_toml_text(text, origin), origin);
}

System load_system_file(const fs::path& file) {
  const std::string text = read_regular_file(file, kMaxTomlBytes);
  return build_system(parse_toml_text(text, shown(file)), shown(file));
}

namespace {

std::string line(std::string_view key, std::string_view value) {
  return fmt::format("{} = {}\n", key, value);
}

std::string number_list(const std::vector<double>& values) {
  std::vector<std::string> parts;
  parts.reserve(values.size());
  for (const double v : values) parts.push_back(number(v));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

}  // namespace

std::string system_toml(const System& s) {
  std::string out = fmt::format("# {}, in the schema of docs/systems.md.\n",
                                comment_text(s.name.empty() ? s.id : s.name));
  out += line("id", toml_string(s.id));
  out += line("name", toml_string(s.name));
  out += line("device", toml_string(s.device));
  if (s.fabric.devices_per_node > 0) {
    out += line("devices_per_node", fmt::format("{}", s.fabric.devices_per_node));
  }
  if (!s.notes.empty()) out += line("notes", toml_string(s.notes));
  if (s.fabric.scale_up.bandwidth.value() > 0.0) {
    out += "\n[scale_up]\n";
    out += line("name", toml_string(s.scale_up.name));
    out += line("bandwidth_gb_per_s", number(s.fabric.scale_up.bandwidth.value() / kGiga));
    if (s.fabric.scale_up.latency.count() > 0.0) {
      out += line("latency_us", number(s.fabric.scale_up.latency.count() * 1e6));
    }
    if (s.fabric.scale_up.busbw_fraction != 1.0) {
      out += line("busbw_fraction", number(s.fabric.scale_up.busbw_fraction));
    }
    out += line("topology", toml_string(s.scale_up.topology));
    out += line("source", toml_string(s.scale_up.source));
  }
  if (s.scale_out.nics > 0) {
    out += "\n[scale_out]\n";
    out += line("name", toml_string(s.scale_out.name));
    out += line("nics_per_node", fmt::format("{}", s.scale_out.nics));
    out += line("nic_gb_per_s", number(s.scale_out.per_nic.value() / kGiga));
    if (s.fabric.scale_out.latency.count() > 0.0) {
      out += line("latency_us", number(s.fabric.scale_out.latency.count() * 1e6));
    }
    if (s.fabric.scale_out.busbw_fraction != 1.0) {
      out += line("busbw_fraction", number(s.fabric.scale_out.busbw_fraction));
    }
    out += line("topology", toml_string(s.scale_out.topology));
    if (s.fabric.ports_per_node > 0) {
      out += line("ports_per_node", fmt::format("{}", s.fabric.ports_per_node));
    }
    out += line("source", toml_string(s.scale_out.source));
  }
  if (!s.host_source.empty()) {
    out += "\n[host]\n";
    if (s.fabric.host.bandwidth.value() > 0.0) {
      out += line("pcie_gb_per_s", number(s.fabric.host.bandwidth.value() / kGiga));
    }
    if (s.host_memory.value() > 0.0)
      out += line("memory_gb", number(s.host_memory.value() / kGiga));
    if (s.fabric.devices_per_host_link > 1)
      out += line("devices_per_link", fmt::format("{}", s.fabric.devices_per_host_link));
    if (s.host_cpu_time != 1.0) out += line("cpu_time_ratio", number(s.host_cpu_time));
    out += line("source", toml_string(s.host_source));
  }
  if (const MeasuredFabric* m = s.measured.get()) {
    out += "\n[measured]\n";
    std::vector<std::string> hosts;
    hosts.reserve(m->hosts.size());
    for (const std::string& h : m->hosts) hosts.push_back(toml_string(h));
    out += line("hosts", fmt::format("[{}]", fmt::join(hosts, ", ")));
    out += line("ranks", fmt::format("{}", m->ranks));
    out += line("ranks_per_host", fmt::format("{}", m->ranks_per_host));
    out += line("runtime", toml_string(m->runtime));
    out += line("buffers", toml_string(m->buffers));
    out += line("date", toml_string(m->date));
    for (const CollectiveCurve& c : m->curves) {
      out += "\n[[measured.curve]]\n";
      out += line("op", toml_string(enum_name(c.op)));
      out += line("tier", toml_string(enum_name(c.tier)));
      out += line("ranks", fmt::format("{}", c.ranks));
      out += line("bytes", number_list(c.bytes));
      out += line("seconds", number_list(c.seconds));
    }
  }
  return out;
}

fs::path save_system(const System& system, const fs::path& dir) {
  return save_toml_file(dir, system.id, system_toml(system));
}

}  // namespace tb::io
