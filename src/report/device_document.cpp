// The hardware catalog as sections: a list of devices, or one device with every source.
#include <fmt/format.h>

#include "trainbudget/report/document.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {
namespace {

std::string rate_cell(const Device& d, DType dtype) {
  const ComputeRate* r = d.rate(dtype);
  if (r == nullptr) return "-";
  return r->kind == RateKind::kMeasured ? tflops(r->dense) + " (m)" : tflops(r->dense);
}

// In the unit the catalog gives: "80 GiB" (HBM, binary) or "25.3 GB".
std::string capacity_text(const Device& d) {
  if (d.memory_capacity_unit == CapacityUnit::kGiB) {
    return fmt::format("{:.4g} GiB", d.memory_capacity.value() / kGibi);
  }
  return fmt::format("{:.4g} GB", d.memory_capacity.value() / kGiga);
}

std::string bandwidth_cell(const Device& d) {
  return d.memory_bandwidth ? fixed(d.memory_bandwidth->value() / kGiga, 0) : "-";
}

}  // namespace

TextTable device_rows(const std::vector<Device>& devices) {
  TextTable t({{"id"},
               {"name"},
               {"vendor"},
               {"memory", Align::kRight},
               {"GB/s", Align::kRight},
               {"fp32", Align::kRight},
               {"bf16", Align::kRight},
               {"fp8", Align::kRight}});
  for (const Device& d : devices) {
    t.add_row({d.id, d.name, d.vendor, capacity_text(d), bandwidth_cell(d),
               rate_cell(d, DType::kFp32), rate_cell(d, DType::kBf16), rate_cell(d, DType::kFp8)});
  }
  return t;
}

Document devices_document(const std::vector<Device>& devices) {
  Document doc;
  doc.title = fmt::format("{} -- dense peak TFLOP/s (no sparsity); (m) = measured",
                          counted(static_cast<std::int64_t>(devices.size()), "device", "devices"));
  Section s;
  s.table(device_rows(devices));
  s.text("'trainbudget hardware show ID' prints every figure of a device with its source.");
  doc.sections.push_back(std::move(s));
  return doc;
}

Document device_document(const Device& d) {
  Document doc;
  doc.title = fmt::format("{} ({})", d.name, d.id);
  Section about;
  about.text(fmt::format("vendor {}, category {}; from {}", d.vendor, d.category, d.origin));
  if (!d.notes.empty()) about.text(d.notes);
  doc.sections.push_back(std::move(about));

  Section memory;
  memory.title = "Memory";
  memory.text(fmt::format(
      "capacity {}{}{}", capacity_text(d),
      d.memory_capacity_unit == CapacityUnit::kGiB
          ? fmt::format(" = {:.4g} GB", d.memory_capacity.value() / kGiga)
          : std::string{},
      d.memory_bandwidth ? fmt::format(", bandwidth {} GB/s", bandwidth_cell(d)) : std::string{}));
  memory.text(fmt::format("source: {}", d.memory_source));
  doc.sections.push_back(std::move(memory));

  Section compute;
  compute.title = "Compute (dense peak; sparse figures are informational only)";
  TextTable t({{"dtype"},
               {"dense TFLOP/s", Align::kRight},
               {"sparse", Align::kRight},
               {"kind"},
               {"source"}});
  for (const ComputeRate& r : d.rates) {
    std::string source = r.source;
    if (r.kind == RateKind::kMeasured) {
      source = fmt::format("{} -- {} by {}{}", r.source, r.method, r.measured_by,
                           r.date.empty() ? "" : ", " + r.date);
    }
    if (!r.note.empty()) source += " (" + r.note + ")";
    t.add_row({std::string{enum_name(r.dtype)}, tflops(r.dense), r.sparse ? tflops(*r.sparse) : "-",
               r.kind == RateKind::kMeasured ? "measured" : "spec", source});
  }
  compute.table(std::move(t));
  doc.sections.push_back(std::move(compute));

  if (d.interconnect || d.tdp_watts || d.price) {
    Section more;
    more.title = "Interconnect, power, price";
    if (const auto& ic = d.interconnect) {
      more.text(fmt::format("{}: {:.0f} GB/s {} -- {}", ic->name, ic->bandwidth.value() / kGiga,
                            ic->bidirectional ? "bidirectional total" : "per direction",
                            ic->source));
    }
    if (d.tdp_watts)
      more.text(fmt::format("power {:.0f} W -- {}", d.tdp_watts->value(), d.power_source));
    if (const auto& p = d.price) {
      more.text(fmt::format("price ${}/h ({}) -- {}", fixed(p->usd_per_hour.value(), 2), p->date,
                            p->source));
    }
    doc.sections.push_back(std::move(more));
  }
  return doc;
}

void render_text(const Document& doc, std::ostream& out, std::size_t width) {
  const auto put = [&](const std::string& line) {
    for (const std::string& l : wrap_line(line, width)) out << l << '\n';
  };
  put(doc.title);
  for (const Section& s : doc.sections) {
    out << '\n';
    if (!s.title.empty()) put(s.title);
    for (const auto& block : s.blocks) {
      if (const auto* p = std::get_if<std::string>(&block)) {
        put("  " + *p);
      } else {
        std::get<TextTable>(block).render_text(out, "  ", width);
      }
    }
  }
}

void render_markdown(const Document& doc, std::ostream& out) {
  out << "# " << markdown_text(doc.title) << '\n';
  for (const Section& s : doc.sections) {
    out << '\n';
    if (!s.title.empty()) out << "## " << markdown_text(s.title) << "\n\n";
    for (const auto& block : s.blocks) {
      if (const auto* p = std::get_if<std::string>(&block)) {
        out << markdown_text(*p) << "\n\n";
      } else {
        std::get<TextTable>(block).render_markdown(out);
        out << '\n';
      }
    }
  }
}

}  // namespace tb::report
