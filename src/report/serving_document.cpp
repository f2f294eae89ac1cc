// The infer command's document: the model's weights and KV cache, a row per machine, a verdict
// sentence each and the sources of the figures (table, markdown; the rows are the CSV).
#include <fmt/format.h>

#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/units/format.hpp"

namespace tb::report {
namespace {

std::string kib(Bytes b) {
  return b.value() >= 1024.0 * 1024.0 ? fmt::format("{:.2f} MiB", b.value() / 1048576.0)
                                      : fmt::format("{:.1f} KiB", b.value() / 1024.0);
}

std::string seconds_text(Seconds s) {
  const double v = s.count();
  if (v >= 1.0) return fmt::format("{:.2f} s", v);
  return fmt::format("{:.1f} ms", v * 1e3);
}

std::string tokens_per_s(double v) { return v > 0.0 ? fmt::format("{:.1f}", v) : "-"; }

std::string model_title(const ServingEstimate& e) {
  const ModelSource& m = e.job.model;
  if (m.architecture) return m.name.empty() ? family_name(m.architecture->model_type) : m.name;
  return fmt::format("{}", Params{e.job.params});
}

// How many devices serve the request: the answer first when one device does not.
std::string size_words(const ServingMachine& m, const ServingSize& z, const ServingEstimate& e) {
  const ServingSetup& s = e.job.setup;
  const std::string what = fmt::format("{} sequences of {} tokens", s.concurrency, s.context);
  if (z.devices == 0 && z.pp == 0) {
    return fmt::format(
        "  {}: no number of devices serves {}: a pipeline stage would hold less than one layer",
        m.device.id, what);
  }
  if (z.devices == 0) {
    return fmt::format("  {}: no number of devices serves {}: the runtime alone fills one",
                       m.device.id, what);
  }
  if (z.fits && z.devices == 1) return fmt::format("  {}: one device serves {}", m.device.id, what);
  if (z.fits) {
    return fmt::format(
        "  {}: serves {} on {} x {} at TP {} ({:.1f} tokens/s per sequence; "
        "{{tp}} {})",
        m.device.id, what, z.devices, m.device.id, z.tp, z.decode_tokens_per_s, z.tp);
  }
  return fmt::format(
      "  {}: serves {} on {} x {} as TP {} x PP {} ({} nodes; the pipeline is "
      "not timed)",
      m.device.id, what, z.devices, m.device.id, z.tp, z.pp, z.pp);
}

std::string verdict(const ServingMachine& m, const ServingEstimate& e) {
  const ServingSetup& s = e.job.setup;
  const std::string where =
      m.devices > 1 ? fmt::format("{} x {}", m.devices, m.device.id) : m.device.id;
  if (!m.fits) {
    std::string why =
        fmt::format("{}: does not fit: needs {} per device, {} usable", where, m.needed, m.usable);
    if (m.max_concurrency > 0 && m.max_concurrency < s.concurrency) {
      why += fmt::format("; {} sequences of {} tokens would ({{concurrency}} {})",
                         m.max_concurrency, s.context, m.max_concurrency);
    } else if (m.max_concurrency == 0) {
      why += "; the weights alone do not (a smaller {weights} format, or {tp})";
    }
    return why;
  }
  std::string out = fmt::format("{}: fits ({} of {} usable)", where, m.needed, m.usable);
  if (m.decode_tokens_per_s > 0.0) {
    out += fmt::format("; decode {:.1f} tokens/s per sequence, {:.0f} in all, {}-bound",
                       m.decode_tokens_per_s, m.aggregate_tokens_per_s, enum_name(m.bound));
    if (m.bandwidth) {
      out += fmt::format(" ({} per step at {}, {:.0f} % of {})", m.step_bytes,
                         m.bandwidth->achievable, m.bandwidth->fraction * 100.0, m.bandwidth->peak);
    }
  }
  if (m.rate) out += fmt::format("; first token after {}", seconds_text(m.prefill));
  if (e.kv_per_sequence) {
    out += fmt::format("; up to {} sequences of {} tokens", m.max_concurrency, s.context);
  }
  return out;
}

}  // namespace

Document document_of(const ServingEstimate& e) {
  const ServingSetup& s = e.job.setup;
  Document doc{fmt::format("Serving {}: {} weights, {} KV cache, {} tokens x {} sequence{}",
                           model_title(e), enum_name(s.weights), enum_name(s.kv), s.context,
                           s.concurrency, s.concurrency == 1 ? "" : "s"),
               {},
               TextTable{{}}};
  Section model{"Model", {}};
  model.text(
      fmt::format("Weights: {} at {:.3f} bits per weight; a decode step reads {} of them "
                  "(all but the input embedding table{}).",
                  e.weights.total, e.weights.bits_per_weight, e.weights.always_read,
                  e.weights.moe_layers > 0 ? " and the routed experts it does not pick" : ""));
  if (e.kv_per_token) {
    model.text(
        fmt::format("KV cache: {} per token over all layers; {} per sequence of {} tokens "
                    "(sliding-window layers keep their window).",
                    kib(*e.kv_per_token), *e.kv_per_sequence, s.context));
  } else {
    model.text("KV cache: not counted without an architecture ({model}).");
  }
  model.text(fmt::format("Compute: prefill {} for {} prompt tokens; decode {} at position {}.",
                         Flops{e.prefill_flops}, s.prompt, FlopsPerToken{e.decode_flops_per_token},
                         s.context));
  doc.sections.push_back(std::move(model));

  TextTable table{{{"Machine", Align::kLeft},
                   {"Fits", Align::kLeft},
                   {"Needs/device", Align::kRight},
                   {"Usable", Align::kRight},
                   {"Max seqs", Align::kRight},
                   {"Max ctx", Align::kRight},
                   {"Achievable BW", Align::kRight},
                   {"TTFT", Align::kRight},
                   {"Decode tok/s", Align::kRight},
                   {"Aggregate", Align::kRight},
                   {"Bound", Align::kLeft}}};
  TextTable rows{{{"id", Align::kLeft},
                  {"devices", Align::kRight},
                  {"fits", Align::kLeft},
                  {"needed_bytes", Align::kRight},
                  {"usable_bytes", Align::kRight},
                  {"weights_bytes", Align::kRight},
                  {"kv_bytes", Align::kRight},
                  {"max_concurrency", Align::kRight},
                  {"max_context", Align::kRight},
                  {"achievable_bytes_per_s", Align::kRight},
                  {"prefill_seconds", Align::kRight},
                  {"decode_tokens_per_s", Align::kRight},
                  {"aggregate_tokens_per_s", Align::kRight},
                  {"bound", Align::kLeft},
                  {"compute_bound_batch", Align::kRight}}};
  Section verdicts{"Answer", {}};
  Section sources{"Sources", {}};
  for (const ServingMachine& m : e.machines) {
    const std::string label =
        m.devices > 1 ? fmt::format("{} x {}", m.devices, m.device.name) : m.device.name;
    table.add_row({label, m.fits ? "yes" : "no", fmt::format("{}", m.needed),
                   fmt::format("{}", m.usable), fmt::format("{}", m.max_concurrency),
                   fmt::format("{}", m.max_context),
                   m.bandwidth ? fmt::format("{}", m.bandwidth->achievable) : "-",
                   m.rate ? seconds_text(m.prefill) : "-", tokens_per_s(m.decode_tokens_per_s),
                   tokens_per_s(m.aggregate_tokens_per_s), std::string{enum_name(m.bound)}});
    rows.add_row(
        {m.device.id, fmt::format("{}", m.devices), m.fits ? "true" : "false",
         fmt::format("{:.0f}", m.needed.value()), fmt::format("{:.0f}", m.usable.value()),
         fmt::format("{:.0f}", m.weights.value()), fmt::format("{:.0f}", m.kv.value()),
         fmt::format("{}", m.max_concurrency), fmt::format("{}", m.max_context),
         m.bandwidth ? fmt::format("{:.6g}", m.bandwidth->achievable.value()) : "",
         m.rate ? fmt::format("{:.6g}", m.prefill.count()) : "",
         m.decode_tokens_per_s > 0.0 ? fmt::format("{:.6g}", m.decode_tokens_per_s) : "",
         m.decode_tokens_per_s > 0.0 ? fmt::format("{:.6g}", m.aggregate_tokens_per_s) : "",
         std::string{enum_name(m.bound)},
         m.compute_bound_batch > 0 ? fmt::format("{}", m.compute_bound_batch) : ""});
    verdicts.text(verdict(m, e));
    if (m.size) verdicts.text(size_words(m, *m.size, e));
    if (m.compute_bound_batch > 0) {
      verdicts.text(fmt::format("  {}: decode turns compute-bound from {} sequences.", m.device.id,
                                m.compute_bound_batch));
    }
    for (const std::string& a : note_texts(m.assumptions))
      verdicts.text(fmt::format("  {}: {}", m.device.id, a));
    if (m.bandwidth) {
      sources.text(fmt::format("{} bandwidth: {} peak; achievable {}", m.device.id,
                               m.bandwidth->peak, m.bandwidth->source));
    }
    if (m.rate) {
      sources.text(fmt::format("{} prefill rate: {} {} dense x {:.3f} GEMM efficiency ({}); {}",
                               m.device.id, enum_name(m.rate->dtype), m.rate->dense, m.gemm.value,
                               gemm_source_text(m.gemm), m.rate->source));
    }
  }
  Section machines{"Machines", {}};
  machines.table(std::move(table));
  doc.sections.push_back(std::move(machines));
  // The answer first (issue 21): what serves and on how many devices, then the detail.
  doc.sections.insert(doc.sections.begin(), std::move(verdicts));
  doc.sections.push_back(std::move(sources));
  doc.rows = std::move(rows);
  return doc;
}

}  // namespace tb::report
