// The model lines of the Job section: name, family, exact counts and where they came from.
#include <fmt/format.h>

#include "trainbudget/report/document.hpp"
#include "trainbudget/report/format.hpp"

namespace tb::report {
namespace {

std::string exact(std::int64_t n) {
  return fmt::format("{} ({})", grouped(n), count(static_cast<double>(n)));
}

std::string billions(std::int64_t n) { return count(static_cast<double>(n)); }

std::string where(const ModelSource& m) {
  if (m.kind == "preset") return fmt::format("preset {}", m.origin);
  if (m.kind == "folder") return fmt::format("model folder {}", m.origin);
  return fmt::format("config {}", m.origin);
}

}  // namespace

std::vector<std::string> model_lines(const TrainingJob& job) {
  const ModelSource& m = job.model;
  if (!m.counts || !m.architecture) {
    return {fmt::format("model     {:.0f} parameters ({}), given as a count", job.params,
                        count(job.params))};
  }
  const ParamCounts& c = *m.counts;
  const ModelArchitecture& a = *m.architecture;
  std::vector<std::string> out;
  out.push_back(fmt::format("model     {} -- {} ({}), from {}", m.name.empty() ? "?" : m.name,
                            family_name(a.model_type), a.model_type, where(m)));
  out.push_back(
      fmt::format("          {} parameters, counted from the architecture", exact(c.total)));
  out.push_back(fmt::format(
      "          embedding {} (input {}{}); non-embedding {}", billions(c.embedding),
      billions(c.input_embedding),
      c.lm_head > 0 ? fmt::format(" + {} {}", a.head_outputs > 0 ? "score head" : "LM head",
                                  billions(c.lm_head))
                    : ", LM head tied",
      billions(c.non_embedding)));
  if (!a.moe && c.active != c.total) {
    out.push_back(
        fmt::format("          active per token {} (without the vision tower)", exact(c.active)));
  }
  if (a.moe) {
    out.push_back(fmt::format("          active per token {} ({} of {} routed experts{})",
                              exact(c.active), a.moe->experts_per_token, a.moe->num_experts,
                              a.moe->num_shared_experts > 0
                                  ? fmt::format(" + {} shared", a.moe->num_shared_experts)
                                  : ""));
  }
  if (c.vision > 0) {
    out.push_back(fmt::format(
        "          vision tower and projector {} (in the total; no text token runs through them)",
        exact(c.vision)));
  }
  if (c.mtp > 0) {
    out.push_back(fmt::format(
        "          multi-token prediction: {} more ({} with its embedding and head copies; "
        "not in the total)",
        exact(c.mtp), count(static_cast<double>(c.mtp + c.mtp_shared_copies))));
  }
  if (m.checkpoint) {
    const CheckpointSummary& k = *m.checkpoint;
    std::string extra;
    if (k.buffer_elements > 0) extra += fmt::format(", {} in buffers", grouped(k.buffer_elements));
    if (k.scale_elements > 0)
      extra += fmt::format(", {} in quantization scales", grouped(k.scale_elements));
    out.push_back(fmt::format("          safetensors headers: {} file{}, {} tensors, {} elements{}",
                              k.files.size(), k.files.size() == 1 ? "" : "s", k.tensors,
                              grouped(k.elements), extra));
  }
  // A reward or value model swaps the LM head for a score head: the published count is the
  // causal LM's.
  if (!m.source.empty()) {
    out.push_back(fmt::format(
        "          source{}: {}",
        a.head_outputs > 0 ? " (of the causal LM, before its score head)" : "", m.source));
  }
  for (const std::string& w : m.warnings) out.push_back(fmt::format("          warning: {}", w));
  return out;
}

}  // namespace tb::report
