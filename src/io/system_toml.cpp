// The system TOML schema (docs/systems.md): node shapes and their links, every problem of a file
// reported at once.
#include "trainbudget/io/system_toml.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>

#include "field_reader.hpp"
#include "toml_text.hpp"
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
// Host memory of a node, GB: a TPU pod's "node" is its whole ICI domain (8960 hosts' worth).
constexpr Range kHostMemoryRange{1e-3, 1e9};

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

System build_system(const toml::table& root, const std::string& origin) {
  std::vector<std::string> problems;
  System s;
  s.origin = origin;
  Reader top(root, "", problems);
  top.allow_only(
      {"id", "name", "device", "devices_per_node", "notes", "scale_up", "scale_out", "host"});
  s.id = top.string("id", true);
  s.name = top.string("name", true);
  s.device = top.string("device", true);
  s.notes = top.string("notes", false);
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
  if (const toml::table* up = top.object("scale_up", false)) {
    Reader r(*up, "scale_up", problems);
    r.allow_only({"name", "bandwidth_gb_per_s", "latency_us", "topology", "source"});
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
  if (const toml::table* out = top.object("scale_out", false)) {
    Reader r(*out, "scale_out", problems);
    r.allow_only({"name", "nics_per_node", "nic_gb_per_s", "latency_us", "topology",
                  "ports_per_node", "source"});
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
  if (const toml::table* host = top.object("host", false)) {
    Reader r(*host, "host", problems);
    r.allow_only({"pcie_gb_per_s", "memory_gb", "source"});
    if (auto bw = r.positive("pcie_gb_per_s", false, kBandwidthRange)) {
      s.fabric.host.bandwidth = BytesPerSecond{*bw * kGiga};
    }
    if (auto gb = r.positive("memory_gb", false, kHostMemoryRange))
      s.host_memory = Bytes{*gb * kGiga};
    s.host_source = r.string("source", true);
  }
  if (!problems.empty()) throw DataError(origin, std::move(problems));
  return s;
}

}  // namespace

System load_system_file(const fs::path& file) {
  const std::string text = read_regular_file(file, kMaxTomlBytes);
  return build_system(parse_toml_text(text, shown(file)), shown(file));
}

}  // namespace tb::io
