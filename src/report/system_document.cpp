// Systems as sections and CSV rows, and as JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "json_dump.hpp"
#include "trainbudget/report/system_report.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {

using nlohmann::ordered_json;

std::string gbps(const Link& link) {
  return link.bandwidth.value() > 0.0 ? fmt::format("{:.4g}", link.bandwidth.value() / 1e9) : "-";
}
std::string origin_of(const System& s) { return s.measured ? "measured" : "catalog"; }

ordered_json link_json(const Link& link, const LinkInfo& info) {
  return {{"name", info.name},
          {"bandwidth_bytes_per_second", link.bandwidth.value()},
          {"latency_seconds", link.latency.count()},
          {"topology", info.topology},
          {"source", info.source}};
}

ordered_json system_object(const System& s) {
  ordered_json j{{"id", s.id},
                 {"name", s.name},
                 {"device", s.device},
                 {"devices_per_node", s.fabric.devices_per_node},
                 {"origin", origin_of(s)},
                 {"notes", s.notes}};
  j["scale_up"] = s.fabric.scale_up.bandwidth.value() > 0.0
                      ? link_json(s.fabric.scale_up, s.scale_up)
                      : ordered_json(nullptr);
  j["scale_out"] = s.fabric.scale_out.bandwidth.value() > 0.0
                       ? link_json(s.fabric.scale_out, s.scale_out)
                       : ordered_json(nullptr);
  if (s.measured) {
    ordered_json curves = ordered_json::array();
    for (const CollectiveCurve& c : s.measured->curves) {
      curves.push_back({{"collective", enum_name(c.op)},
                        {"tier", enum_name(c.tier)},
                        {"ranks", c.ranks},
                        {"bytes", c.bytes},
                        {"median_seconds", c.seconds}});
    }
    j["measured"] = {{"hosts", s.measured->hosts},
                     {"ranks", s.measured->ranks},
                     {"ranks_per_host", s.measured->ranks_per_host},
                     {"runtime", s.measured->runtime},
                     {"buffers", s.measured->buffers},
                     {"date", s.measured->date},
                     {"curves", std::move(curves)}};
  } else {
    j["measured"] = nullptr;
  }
  return j;
}

}  // namespace

Document systems_document(const std::vector<System>& systems) {
  Document doc;
  doc.title = fmt::format("{} -- links per direction, GB/s = 1e9 bytes/s",
                          counted(static_cast<std::int64_t>(systems.size()), "system", "systems"));
  TextTable t({{"id"},
               {"device"},
               {"per node", Align::kRight},
               {"scale-up GB/s", Align::kRight},
               {"scale-out GB/s/node", Align::kRight},
               {"origin"}});
  for (const System& s : systems) {
    t.add_row({s.id, s.device, fmt::format("{}", s.fabric.devices_per_node),
               gbps(s.fabric.scale_up), gbps(s.fabric.scale_out), origin_of(s)});
  }
  Section sec;
  sec.table(t);
  sec.text(
      "'trainbudget hardware show ID' prints a system's links with their sources; measured ones "
      "come from trainbudget's fabric measurement (docs/fabric.md).");
  doc.sections.push_back(std::move(sec));
  doc.rows = std::move(t);
  return doc;
}

Document system_document(const System& s) {
  Document doc;
  doc.title = fmt::format("{} ({}): system of {}", s.name, s.id, s.device);
  Section about;
  about.title = "Links";
  about.text(fmt::format("{} devices per node; {}", s.fabric.devices_per_node,
                         s.measured ? "measured" : "from the catalog (data/systems)"));
  if (!s.notes.empty()) about.text(s.notes);
  TextTable t(
      {{"link"}, {"name"}, {"GB/s", Align::kRight}, {"latency us", Align::kRight}, {"source"}});
  const auto add = [&](std::string_view which, const Link& link, const LinkInfo& info) {
    if (link.bandwidth.value() <= 0.0) {
      t.add_row({std::string{which}, "none", "-", "-", "-"});
      return;
    }
    t.add_row({std::string{which}, info.name, gbps(link),
               fmt::format("{:.3g}", link.latency.count() * 1e6), info.source});
  };
  add("scale-up (per device)", s.fabric.scale_up, s.scale_up);
  add("scale-out (per node)", s.fabric.scale_out, s.scale_out);
  about.table(t);
  doc.sections.push_back(std::move(about));
  TextTable rows({{"collective"}, {"tier"}, {"ranks"}, {"bytes"}, {"median_seconds"}});
  if (s.measured) {
    Section m;
    m.title = "Measured collectives (what estimates use for these collectives)";
    m.text(fmt::format("{} ranks on {} ({} per host), {} over {} buffers, {}", s.measured->ranks,
                       fmt::join(s.measured->hosts, ", "), s.measured->ranks_per_host,
                       s.measured->runtime, s.measured->buffers, s.measured->date));
    TextTable c({{"collective"},
                 {"tier"},
                 {"ranks", Align::kRight},
                 {"sizes", Align::kRight},
                 {"smallest us", Align::kRight},
                 {"busbw GB/s at largest", Align::kRight}});
    for (const CollectiveCurve& curve : s.measured->curves) {
      if (curve.bytes.empty()) continue;
      const double bus =
          curve.bytes.back() * bus_bandwidth_factor(curve.op, curve.ranks) / curve.seconds.back();
      c.add_row({std::string(enum_name(curve.op)), std::string(enum_name(curve.tier)),
                 fmt::format("{}", curve.ranks), fmt::format("{}", curve.bytes.size()),
                 fmt::format("{:.1f}", curve.seconds.front() * 1e6),
                 fmt::format("{:.3g}", bus / 1e9)});
      for (std::size_t i = 0; i < curve.bytes.size(); ++i) {
        rows.add_row({std::string(enum_name(curve.op)), std::string(enum_name(curve.tier)),
                      fmt::format("{}", curve.ranks), fmt::format("{:g}", curve.bytes[i]),
                      fmt::format("{:.6g}", curve.seconds[i])});
      }
    }
    m.table(c);
    doc.sections.push_back(std::move(m));
  }
  doc.rows = std::move(rows);
  return doc;
}

std::string systems_json(const std::vector<System>& systems) {
  ordered_json list = ordered_json::array();
  for (const System& s : systems) list.push_back(system_object(s));
  return dump_json(ordered_json{
      {"schema_version", kJsonSchemaVersion}, {"kind", "systems"}, {"systems", std::move(list)}});
}

std::string system_json(const System& s) {
  ordered_json j = system_object(s);
  j["schema_version"] = kJsonSchemaVersion;
  j["kind"] = "system";
  return dump_json(j);
}

}  // namespace tb::report
