// The activation view: the rows of activation_terms.cpp that exist for a setup, with their
// words, and the sums the evaluator also uses (layer_kind_bytes, head_bytes).
#include "trainbudget/eval/activation_memory.hpp"

#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb {
namespace {

// The setup's and options' part of the dims, on top of the model's widths.
StepDims dims_of(const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype,
                 const ActivationOptions& o, bool moe_layer) {
  StepDims shape = with_kernels(shape_dims(arch), setup);
  shape.keep_logits = shape.keep_logits && o.keep_logits;
  shape.logits_scaled_in_place = o.logits_scaled_in_place;
  shape.norm_statistics = o.norm_statistics;
  shape.adapter_ranks = adapter_rank_sum(o.adapters);
  shape.lora_dropout = !o.adapters.empty() && o.lora_dropout > 0.0;
  shape.adapter_inputs = shape.lora_dropout ? adapter_input_sum(o.adapters) : 0.0;
  shape.dora_outputs = dora_output_sum(o.adapters);
  if (!o.adapters.empty() && o.lora) keep_adapted_inputs(arch, *o.lora, shape);
  StepDims d = with_step(shape, setup.micro_batch, setup.seq_len, dtype, setup.attention,
                         setup.dropout, moe_layer && arch.moe.has_value());
  d.head_share = o.head_share;
  return d;
}

// The rows that exist for these dims, with their words.
std::vector<ActivationTerm> terms_of(std::span<const ActivationRow> rows, const StepDims& d) {
  std::vector<ActivationTerm> out;
  for (const ActivationRow& row : rows) {
    if (!row.applies(d)) continue;
    out.push_back({row.module, row.name, row.tensor(d), row.formula(d), row_elements(row, d),
                   element_bytes(row.bytes, d), row.attention_core});
  }
  return out;
}

LayerActivations layer_kind(const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype,
                            bool moe, std::int64_t count, const ActivationOptions& o) {
  const StepDims d = dims_of(arch, setup, dtype, o, moe);
  const LayerKindBytes bytes = layer_kind_bytes(d, setup.recompute);
  LayerActivations out;
  out.moe = moe;
  out.layers = count;
  out.recomputed = setup.recompute != Recompute::kNone;
  out.backward_workspace = bytes.backward_workspace;
  out.recompute_transient = bytes.recompute_transient;
  out.per_layer = bytes.per_layer;
  switch (setup.recompute) {
    case Recompute::kNone:
      out.terms = terms_of(decoder_layer_rows(), d);
      break;
    case Recompute::kSelective:
      for (ActivationTerm& t : terms_of(decoder_layer_rows(), d)) {
        if (!t.attention_core) out.terms.push_back(std::move(t));
      }
      break;
    case Recompute::kFull:
      out.terms = {{"checkpoint", "layer_input",
                    "decoder layer input [b, s, h] (activation dtype): the checkpoint the layer "
                    "is recomputed from",
                    "b*s*h*e", d.b * d.s * d.h, d.e, false}};
      break;
    case Recompute::kSelectiveOp:
      out.terms = {{"checkpoint", "layer_input",
                    "decoder layer input [b, s, h] (activation dtype): the region's input",
                    "b*s*h*e", d.b * d.s * d.h, d.e, false}};
      if (moe) break;
      for (ActivationTerm& t : terms_of(decoder_layer_rows(), d)) {
        if (kept_by_selective_op(t.name)) out.terms.push_back(std::move(t));
      }
      out.terms.push_back({"mlp", "down_output",
                           "down projection output [b, s, h] (activation dtype): kept by per-op "
                           "selective AC as every second matmul's output",
                           "b*s*h*e", d.b * d.s * d.h, d.e, false});
      break;
  }
  return out;
}

}  // namespace

Bytes total_bytes(const std::vector<ActivationTerm>& terms) {
  Bytes sum{0.0};
  for (const ActivationTerm& term : terms) sum += term.bytes();
  return sum;
}

std::vector<ActivationTerm> decoder_layer_activation_terms(const ModelArchitecture& arch,
                                                           const TrainingSetup& setup, DType dtype,
                                                           bool moe_layer,
                                                           const ActivationOptions& options) {
  return terms_of(decoder_layer_rows(), dims_of(arch, setup, dtype, options, moe_layer));
}

std::vector<ActivationTerm> head_activation_terms(const ModelArchitecture& arch,
                                                  const TrainingSetup& setup, DType dtype,
                                                  const ActivationOptions& options) {
  return terms_of(head_rows(), dims_of(arch, setup, dtype, options, false));
}

ActivationEstimate estimate_activations(const ModelArchitecture& arch, const TrainingSetup& setup,
                                        DType dtype, const ActivationOptions& options) {
  const StepDims d = dims_of(arch, setup, dtype, options, false);
  ActivationEstimate out;
  out.dtype = dtype;
  out.symbols = {
      {"b", d.b, "micro-batch (sequences)"},
      {"s", d.s, "sequence length (tokens)"},
      {"h", d.h, "hidden size"},
      {"a", d.a, "attention heads"},
      {"a_kv", d.a_kv, "key/value heads"},
      {"d", d.d, "query/key head dimension"},
      {"d_v", d.d_v, "value head dimension"},
      {"V", d.V, "vocabulary"},
      {"L", d.L, "decoder layers"},
      {"e", d.e, "bytes per activation element"},
      {"p", d.p, "dropout probability"},
  };
  if (d.head_share < 1.0) {
    out.symbols.push_back({"s_l", d.s * d.head_share,
                           "positions that get logits (the completion's: logits_to_keep)"});
  }
  if (arch.mlp.intermediate > 0) out.symbols.push_back({"i", d.i, "dense MLP width"});
  if (arch.moe) {
    out.symbols.push_back({"E", d.E, "routed experts"});
    out.symbols.push_back({"k", d.k, "experts per token"});
    out.symbols.push_back({"i_e", d.i_e, "routed expert width"});
    if (arch.moe->shared_intermediate > 0) {
      out.symbols.push_back({"i_s", d.i_s, "shared experts' width"});
    }
  }
  if (arch.attention.latent) {
    out.symbols.push_back({"r_q", d.r_q, "query latent rank"});
    out.symbols.push_back({"r_kv", d.r_kv, "key/value latent rank"});
  }
  const std::int64_t moe_layers = moe_layer_count(arch);
  const std::int64_t dense_layers = arch.num_layers - moe_layers;
  // Block recomputation: the recomputed layers of a kind, then the ones that keep everything.
  TrainingSetup kept = setup;
  kept.recompute = Recompute::kNone;
  const auto add_kind = [&](bool moe, std::int64_t count, std::int64_t recomputed) {
    if (count <= 0) return;
    if (setup.recompute != Recompute::kFull || recomputed < 0 || recomputed >= count) {
      out.layer_kinds.push_back(layer_kind(arch, setup, dtype, moe, count, options));
      return;
    }
    if (recomputed > 0) {
      out.layer_kinds.push_back(layer_kind(arch, setup, dtype, moe, recomputed, options));
    }
    out.layer_kinds.push_back(layer_kind(arch, kept, dtype, moe, count - recomputed, options));
  };
  add_kind(false, dense_layers, options.recomputed_dense);
  add_kind(true, moe_layers, options.recomputed_moe);
  for (const LayerActivations& kind : out.layer_kinds) {
    out.layers_total += kind.per_layer * static_cast<double>(kind.layers);
  }
  out.head = head_activation_terms(arch, setup, dtype, options);
  out.head_total = head_bytes(d);
  out.saved = out.layers_total + out.head_total;
  out.logits_gradient = logits_gradient_bytes(d);
  return out;
}

}  // namespace tb
