// A fabric measurement as sections and CSV rows, and as JSON.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_dump.hpp"
#include "trainbudget/report/fabric_report.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::report {
namespace {

std::string size_cell(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:g} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:g} MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0) return fmt::format("{:g} KiB", bytes / 1024.0);
  return fmt::format("{:g} B", bytes);
}

std::string us(double seconds) { return fmt::format("{:.1f}", seconds * 1e6); }
std::string gbps(double bytes_per_second) { return fmt::format("{:.2f}", bytes_per_second / 1e9); }

double error_of(const FabricCheck& c) { return c.model_seconds / c.measured_seconds - 1.0; }

}  // namespace

Document fabric_document(const FabricReport& r) {
  const measure::FabricMeasurement& m = r.measurement;
  Document doc;
  doc.title = "Fabric measurement";
  Section context;
  context.title = "Context";
  context.text(fmt::format("{} ranks on {} host{} ({} per host): {}; {} buffers; {}", m.ranks,
                           m.hosts.size(), m.hosts.size() == 1 ? "" : "s", m.ranks_per_host,
                           fmt::join(m.hosts, ", "), m.buffers, m.date));
  context.text(fmt::format("runtime: {}", m.runtime));
  context.text(
      "time: median over the repetitions of each call's slowest rank; algbw = size / time; busbw "
      "= algbw x the collective's bus factor (nccl-tests: all_reduce 2(n-1)/n, reduce_scatter, "
      "all_gather, all_to_all (n-1)/n, broadcast and send_recv 1); GB/s = 1e9 bytes/s");
  doc.sections.push_back(std::move(context));

  Section runs;
  runs.title = "Collectives";
  TextTable t({{"collective"},
               {"tier"},
               {"ranks", Align::kRight},
               {"size", Align::kRight},
               {"median us", Align::kRight},
               {"min-max us", Align::kRight},
               {"algbw GB/s", Align::kRight},
               {"busbw GB/s", Align::kRight}});
  TextTable rows({{"collective"},
                  {"tier"},
                  {"ranks"},
                  {"bytes"},
                  {"median_seconds"},
                  {"min_seconds"},
                  {"max_seconds"},
                  {"algbw_bytes_per_second"},
                  {"busbw_bytes_per_second"}});
  for (const measure::FabricRow& row : measure::fabric_rows(m)) {
    const std::string op{enum_name(row.run.op)};
    const std::string tier{enum_name(row.run.tier)};
    t.add_row({op, tier, fmt::format("{}", row.run.ranks), size_cell(row.run.bytes),
               us(row.stats.median), fmt::format("{}-{}", us(row.stats.min), us(row.stats.max)),
               gbps(row.algbw), gbps(row.busbw)});
    rows.add_row({op, tier, fmt::format("{}", row.run.ranks), fmt::format("{:g}", row.run.bytes),
                  fmt::format("{:.6g}", row.stats.median), fmt::format("{:.6g}", row.stats.min),
                  fmt::format("{:.6g}", row.stats.max), fmt::format("{:.6g}", row.algbw),
                  fmt::format("{:.6g}", row.busbw)});
  }
  runs.table(std::move(t));
  doc.sections.push_back(std::move(runs));
  doc.rows = std::move(rows);

  if (!r.saved_id.empty()) {
    Section check;
    check.title =
        fmt::format("The estimate's collectives on system {} (sizes above 1 MiB)", r.saved_id);
    check.text(
        "model: what estimates use (the measured curve); alpha-beta: the fitted links alone, as "
        "for a collective that was not measured");
    TextTable c({{"collective"},
                 {"tier"},
                 {"size", Align::kRight},
                 {"measured us", Align::kRight},
                 {"model us", Align::kRight},
                 {"error", Align::kRight},
                 {"alpha-beta us", Align::kRight}});
    for (const FabricCheck& k : r.check) {
      c.add_row({std::string(enum_name(k.op)), std::string(enum_name(k.tier)), size_cell(k.bytes),
                 us(k.measured_seconds), us(k.model_seconds),
                 fmt::format("{:+.1f} %", 100.0 * error_of(k)), us(k.alpha_beta_seconds)});
    }
    check.table(std::move(c));
    doc.sections.push_back(std::move(check));
  }
  return doc;
}

std::string fabric_json(const FabricReport& r) {
  using nlohmann::ordered_json;
  const measure::FabricMeasurement& m = r.measurement;
  ordered_json runs = ordered_json::array();
  for (const measure::FabricRow& row : measure::fabric_rows(m)) {
    runs.push_back({{"collective", enum_name(row.run.op)},
                    {"tier", enum_name(row.run.tier)},
                    {"ranks", row.run.ranks},
                    {"bytes", row.run.bytes},
                    {"median_seconds", row.stats.median},
                    {"min_seconds", row.stats.min},
                    {"max_seconds", row.stats.max},
                    {"samples_seconds", row.run.seconds},
                    {"algbw_bytes_per_second", row.algbw},
                    {"busbw_bytes_per_second", row.busbw}});
  }
  ordered_json check = ordered_json::array();
  for (const FabricCheck& k : r.check) {
    check.push_back({{"collective", enum_name(k.op)},
                     {"tier", enum_name(k.tier)},
                     {"ranks", k.ranks},
                     {"bytes", k.bytes},
                     {"measured_seconds", k.measured_seconds},
                     {"model_seconds", k.model_seconds},
                     {"error", error_of(k)},
                     {"alpha_beta_seconds", k.alpha_beta_seconds}});
  }
  ordered_json j{
      {"schema_version", kJsonSchemaVersion},
      {"kind", "fabric"},
      {"context",
       {{"hosts", m.hosts},
        {"ranks", m.ranks},
        {"ranks_per_host", m.ranks_per_host},
        {"runtime", m.runtime},
        {"buffers", m.buffers},
        {"date", m.date}}},
      {"runs", std::move(runs)},
      {"saved_system", r.saved_id.empty() ? ordered_json(nullptr) : ordered_json(r.saved_id)},
      {"check", std::move(check)}};
  return dump_json(j);
}

}  // namespace tb::report
