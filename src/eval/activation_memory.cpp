// Activation memory, one named term per saved tensor. Each term's derivation and source is in
// docs/activations.md; the comments here say which operation saves the tensor and why.
#include "trainbudget/eval/activation_memory.hpp"

#include <algorithm>

namespace tb {
namespace {

constexpr double kFp32 = 4.0;
constexpr double kMaskBytes = 1.0;     // torch.bool dropout masks: one byte per element
constexpr double kTokenIdBytes = 8.0;  // int64 token ids

// The shapes the formulas use, as doubles (b*a*s^2 passes 2^53 only for absurd inputs).
struct Dims {
  double b, s, h, a, a_kv, d, d_v, i, V, e, p;
  bool eager, dropout, gated;
};

Dims dims_of(const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype) {
  const AttentionSpec& at = arch.attention;
  Dims d{};
  d.b = static_cast<double>(setup.micro_batch);
  d.s = static_cast<double>(setup.seq_len);
  d.h = static_cast<double>(arch.hidden);
  d.a = static_cast<double>(at.num_heads);
  if (at.latent) {
    d.a_kv = d.a;
    d.d = static_cast<double>(at.latent->qk_nope_head_dim + at.latent->qk_rope_head_dim);
    d.d_v = static_cast<double>(at.latent->v_head_dim);
  } else {
    d.a_kv = static_cast<double>(at.num_kv_heads);
    d.d = static_cast<double>(at.head_dim);
    d.d_v = d.d;
  }
  d.i = static_cast<double>(arch.mlp.intermediate);
  d.V = static_cast<double>(arch.vocab);
  d.e = activation_bytes(dtype);
  d.p = setup.dropout;
  d.eager = setup.attention == AttentionImpl::kEager;
  d.dropout = setup.dropout > 0.0;
  d.gated = arch.mlp.gated;
  return d;
}

// Per-token fp32 statistics a norm's backward reads: RMSNorm 1 (rstd), LayerNorm 2 (mean, rstd).
double norm_statistics(NormKind kind) { return kind == NormKind::kRmsNorm ? 1.0 : 2.0; }

class TermList {
 public:
  explicit TermList(std::string module) : module_{std::move(module)} {}
  void module(std::string m) { module_ = std::move(m); }
  void add(std::string name, std::string tensor, std::string formula, double elements,
           double bytes_per_element, bool core = false) {
    terms_.push_back({module_, std::move(name), std::move(tensor), std::move(formula), elements,
                      bytes_per_element, core});
  }
  std::vector<ActivationTerm> take() { return std::move(terms_); }

 private:
  std::string module_;
  std::vector<ActivationTerm> terms_;
};

// A norm over h channels: its input (backward re-normalizes it) and, optionally, its fp32
// per-token statistics (Korthikanti et al. 2022 sec. 4.1: "LayerNorm stores its input 2sbh").
void add_norm(TermList& t, const ModelArchitecture& arch, const Dims& d, const std::string& which,
              const std::string& what, const ActivationOptions& o) {
  t.add(which + "_input", what + " (activation dtype); the norm's backward needs it", "b*s*h*e",
        d.b * d.s * d.h, d.e);
  if (o.norm_statistics) {
    const double n = norm_statistics(arch.norm.kind);
    t.add(which + "_stats",
          n == 1.0 ? "fp32 reciprocal RMS per token, saved by the norm kernel"
                   : "fp32 mean and reciprocal std per token, saved by the norm kernel",
          n == 1.0 ? "b*s*4" : "b*s*2*4", d.b * d.s * n, kFp32);
  }
}

// The attention core, QK^T -> softmax -> (dropout) -> AV, as Korthikanti et al. 2022 sec. 4.1
// count it for eager attention, or FlashAttention's saved statistics (Dao et al. 2022, Alg. 2:
// the backward keeps Q, K, V, O and the row logsumexp L, and regenerates dropout masks from the
// RNG state instead of storing them).
void add_attention_core(TermList& t, const Dims& d) {
  if (d.eager) {
    t.add("softmax_output",
          "softmax probabilities [b, a, s, s] (activation dtype): softmax's backward needs its "
          "output; without dropout it is also AV's input",
          "b*a*s^2*e", d.b * d.a * d.s * d.s, d.e, true);
    if (d.dropout) {
      t.add("attention_dropout_mask", "dropout mask on the probabilities [b, a, s, s] (bool)",
            "b*a*s^2*1", d.b * d.a * d.s * d.s, kMaskBytes, true);
      t.add("attention_dropout_output",
            "dropped-out probabilities [b, a, s, s] (activation dtype): AV's input for the "
            "gradient of V",
            "b*a*s^2*e", d.b * d.a * d.s * d.s, d.e, true);
    }
  } else {
    t.add("softmax_logsumexp",
          "FlashAttention row logsumexp [b, a, s] (fp32): the backward rebuilds the "
          "probabilities from it and Q, K",
          "b*a*s*4", d.b * d.a * d.s, kFp32, true);
  }
}

// Q, K and V as the attention kernel receives them. Eager attention with grouped KV heads
// expands K and V to all a heads before the matmuls (transformers' repeat_kv), and the matmuls
// save the expanded copies; FlashAttention takes the a_kv heads directly.
void add_qkv(TermList& t, const Dims& d, bool latent) {
  t.add("query", "queries after RoPE [b, s, a, d] (activation dtype): input of QK^T", "b*s*a*d*e",
        d.b * d.s * d.a * d.d, d.e);
  const bool grouped = d.a_kv != d.a;
  const bool expanded = d.eager && grouped;
  const std::string heads = expanded ? "a" : "a_kv";
  const double kv_heads = expanded ? d.a : d.a_kv;
  std::string key_what =
      latent ? "keys [b, s, a, d]: per-head nope part and the shared RoPE part "
               "concatenated (activation dtype): input of QK^T"
             : "keys after RoPE [b, s, " + heads + ", d] (activation dtype): input of QK^T";
  if (expanded) key_what += "; eager attention saves the copy expanded to all heads";
  t.add("key", key_what, "b*s*" + heads + "*d*e", d.b * d.s * kv_heads * d.d, d.e);
  t.add("value",
        "values [b, s, " + heads + ", d_v] (activation dtype): input of AV" +
            (expanded ? "; eager attention saves the copy expanded to all heads" : ""),
        "b*s*" + heads + "*d_v*e", d.b * d.s * kv_heads * d.d_v, d.e);
}

void attention_terms(TermList& t, const ModelArchitecture& arch, const Dims& d,
                     const ActivationOptions& o) {
  const AttentionSpec& at = arch.attention;
  t.module("attention");
  t.add("qkv_input",
        "normalized hidden states [b, s, h] (activation dtype): input of the q/k/v projections "
        "(one tensor shared by all of them), needed for their weight gradients",
        "b*s*h*e", d.b * d.s * d.h, d.e);
  if (at.latent) {
    // DeepSeek-V2 paper sec. 2.1.2 / DeepseekV3Attention: q_a_proj -> q_a_layernorm -> q_b_proj,
    // kv_a_proj_with_mqa -> kv_a_layernorm -> kv_b_proj. Each low-rank latent is saved twice:
    // as its norm's input and as the up-projection's input.
    const LatentAttentionSpec& m = *at.latent;
    const double r_q = static_cast<double>(m.q_lora_rank);
    const double r_kv = static_cast<double>(m.kv_lora_rank);
    if (m.q_lora_rank > 0) {
      t.add("q_latent_norm_input",
            "query latent [b, s, r_q] (activation dtype): q_a_layernorm input", "b*s*r_q*e",
            d.b * d.s * r_q, d.e);
      if (o.norm_statistics) {
        t.add("q_latent_norm_stats", "fp32 reciprocal RMS per token of the query latent", "b*s*4",
              d.b * d.s, kFp32);
      }
      t.add("q_latent_up_input", "normalized query latent [b, s, r_q]: q_b_proj input", "b*s*r_q*e",
            d.b * d.s * r_q, d.e);
    }
    t.add("kv_latent_norm_input",
          "key/value latent [b, s, r_kv] (activation dtype): kv_a_layernorm input", "b*s*r_kv*e",
          d.b * d.s * r_kv, d.e);
    if (o.norm_statistics) {
      t.add("kv_latent_norm_stats", "fp32 reciprocal RMS per token of the key/value latent",
            "b*s*4", d.b * d.s, kFp32);
    }
    t.add("kv_latent_up_input", "normalized key/value latent [b, s, r_kv]: kv_b_proj input",
          "b*s*r_kv*e", d.b * d.s * r_kv, d.e);
  } else if (at.qk_norm) {
    // Qwen3 / Gemma 3: an RMSNorm over head_dim on every query and key head, before RoPE.
    t.add("qk_norm_input",
          "query and key projections [b, s, a + a_kv, d] (activation dtype): q_norm/k_norm inputs",
          "b*s*(a+a_kv)*d*e", d.b * d.s * (d.a + d.a_kv) * d.d, d.e);
    if (o.norm_statistics) {
      t.add("qk_norm_stats", "fp32 reciprocal RMS per query and key head", "b*s*(a+a_kv)*4",
            d.b * d.s * (d.a + d.a_kv), kFp32);
    }
  }
  add_qkv(t, d, at.latent.has_value());
  add_attention_core(t, d);
  t.add("output_proj_input",
        "attention output [b, s, a*d_v] (activation dtype): o_proj input; FlashAttention's "
        "saved O is the same tensor",
        "b*s*a*d_v*e", d.b * d.s * d.a * d.d_v, d.e);
  if (d.dropout) {
    t.add("attention_residual_dropout_mask", "dropout mask on o_proj's output [b, s, h] (bool)",
          "b*s*h*1", d.b * d.s * d.h, kMaskBytes);
  }
}

// A gated MLP act(x W_gate) * (x W_up) -> W_down (Shazeer 2020) on `tokens` token-rows of
// width w: the activation's input (gate output), the product's two operands (activation
// output, up output) and down_proj's input.
void add_gated(TermList& t, const std::string& prefix, const std::string& rows, double tokens,
               const std::string& width, double w, double e) {
  const std::string shape = "[" + rows + ", " + width + "]";
  t.add(prefix + "gate_output",
        "gate projection output " + shape + " (activation dtype): the activation's input",
        rows + "*" + width + "*e", tokens * w, e);
  t.add(prefix + "up_output",
        "up projection output " + shape + " (activation dtype): operand of act * up",
        rows + "*" + width + "*e", tokens * w, e);
  t.add(prefix + "act_output",
        "activation output " + shape + " (activation dtype): operand of act * up",
        rows + "*" + width + "*e", tokens * w, e);
  t.add(prefix + "down_input", "act * up " + shape + " (activation dtype): down projection input",
        rows + "*" + width + "*e", tokens * w, e);
}

void mlp_terms(TermList& t, const Dims& d) {
  t.module("mlp");
  t.add("mlp_input",
        "normalized hidden states [b, s, h] (activation dtype): input of the first "
        "MLP projection(s)",
        "b*s*h*e", d.b * d.s * d.h, d.e);
  if (d.gated) {
    add_gated(t, "", "b*s", d.b * d.s, "i", d.i, d.e);
  } else {
    // GPT-2 MLP (Korthikanti et al. 2022 sec. 4.1: "GeLU input 8sbh, second linear input 8sbh"
    // for i = 4h).
    t.add("act_input", "fc1 output [b, s, i] (activation dtype): the activation's input", "b*s*i*e",
          d.b * d.s * d.i, d.e);
    t.add("fc2_input", "activation output [b, s, i] (activation dtype): fc2 input", "b*s*i*e",
          d.b * d.s * d.i, d.e);
  }
  if (d.dropout) {
    t.add("mlp_dropout_mask", "dropout mask on the MLP output [b, s, h] (bool)", "b*s*h*1",
          d.b * d.s * d.h, kMaskBytes);
  }
}

// A token-choice top-k MoE block as transformers runs it (MixtralSparseMoeBlock,
// Qwen3MoeSparseMoeBlock, DeepseekV3MoE): no capacity limit, so every token reaches k experts.
void moe_terms(TermList& t, const ModelArchitecture& arch, const Dims& d) {
  const MoeSpec& m = *arch.moe;
  const double E = static_cast<double>(m.num_experts);
  const double k = static_cast<double>(m.experts_per_token);
  const double i_e = static_cast<double>(m.expert_intermediate);
  t.module("moe");
  t.add("router_input",
        "normalized hidden states [b, s, h] (activation dtype): router input (and the shared "
        "experts' input)",
        "b*s*h*e", d.b * d.s * d.h, d.e);
  t.add("router_logits",
        "router logits [b, s, E] (activation dtype), kept for the load-balancing loss "
        "(output_router_logits)",
        "b*s*E*e", d.b * d.s * E, d.e);
  t.add("router_probs",
        "routing scores [b, s, E] (fp32 softmax or sigmoid output): the routing weights' gradient "
        "needs them",
        "b*s*E*4", d.b * d.s * E, kFp32);
  t.add("expert_inputs",
        "each routed token's hidden state, gathered per expert [b*s*k, h] (activation dtype)",
        "b*s*k*h*e", d.b * d.s * k * d.h, d.e);
  add_gated(t, "expert_", "b*s*k", d.b * d.s * k, "i_e", i_e, d.e);
  t.add("expert_outputs",
        "expert outputs before the routing weight [b*s*k, h] (activation dtype): the weight's "
        "gradient needs them",
        "b*s*k*h*e", d.b * d.s * k * d.h, d.e);
  if (m.shared_intermediate > 0) {
    add_gated(t, "shared_", "b*s", d.b * d.s, "i_s", static_cast<double>(m.shared_intermediate),
              d.e);
  }
  if (d.dropout) {
    t.add("mlp_dropout_mask", "dropout mask on the MoE output [b, s, h] (bool)", "b*s*h*1",
          d.b * d.s * d.h, kMaskBytes);
  }
}

// Adapters spread evenly over the decoder layers: per token, each adapted linear keeps its
// rank-r intermediate (A's output, B's input); its input x is the base layer's saved input.
void adapter_terms(TermList& t, const ModelArchitecture& arch, const Dims& d,
                   const ActivationOptions& o) {
  double ranks = 0.0;
  for (const AdapterShape& a : o.adapters) {
    ranks += static_cast<double>(a.rank) * static_cast<double>(a.active());
  }
  if (ranks == 0.0) return;
  t.module("adapters");
  t.add("adapter_intermediate",
        "low-rank intermediates x*A [b, s, r] of every adapter a token runs through, per layer "
        "(activation dtype): B's weight gradient needs them",
        "b*s*sum(r*n_active)/L*e", d.b * d.s * ranks / static_cast<double>(arch.num_layers), d.e);
}

std::vector<ActivationTerm> kept_terms(const std::vector<ActivationTerm>& all, Recompute mode) {
  std::vector<ActivationTerm> out;
  for (const ActivationTerm& term : all) {
    if (mode == Recompute::kSelective && term.attention_core) continue;
    out.push_back(term);
  }
  return out;
}

// Activation gradients during one layer's backward: the residual gradient arriving and the one
// leaving (b*s*h*e each) plus the gradient of the largest activation-dtype tensor it saved.
Bytes workspace(const std::vector<ActivationTerm>& all, const Dims& d) {
  double largest = 0.0;
  for (const ActivationTerm& term : all) {
    if (term.bytes_per_element == d.e) largest = std::max(largest, term.bytes().value());
  }
  return Bytes{2.0 * d.b * d.s * d.h * d.e + largest};
}

LayerActivations layer_kind(const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype,
                            bool moe, std::int64_t count, const ActivationOptions& o) {
  const Dims d = dims_of(arch, setup, dtype);
  const std::vector<ActivationTerm> all =
      decoder_layer_activation_terms(arch, setup, dtype, moe, o);
  LayerActivations out;
  out.moe = moe;
  out.layers = count;
  out.backward_workspace = workspace(all, d);
  switch (setup.recompute) {
    case Recompute::kNone:
      out.terms = all;
      break;
    case Recompute::kSelective:
      out.terms = kept_terms(all, Recompute::kSelective);
      out.recompute_transient = total_bytes(all) - total_bytes(out.terms);
      break;
    case Recompute::kFull:
      // Korthikanti et al. 2022 sec. 5 / Table 2: full recomputation keeps 2sbh per layer
      // (its 16-bit input); the layer's activations exist again only during its backward.
      out.terms = {{"checkpoint", "layer_input",
                    "decoder layer input [b, s, h] (activation dtype): the checkpoint the layer "
                    "is recomputed from",
                    "b*s*h*e", d.b * d.s * d.h, d.e, false}};
      out.recompute_transient = total_bytes(all);
      break;
  }
  out.per_layer = total_bytes(out.terms);
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
  const Dims d = dims_of(arch, setup, dtype);
  TermList t{"norms"};
  add_norm(t, arch, d, "attention_norm",
           "residual stream [b, s, h], input of the pre-attention norm", options);
  attention_terms(t, arch, d, options);
  if (arch.norms_per_layer >= 4) {
    // Gemma 2/3 also normalize each sublayer's output before adding it to the residual stream.
    t.module("norms");
    add_norm(t, arch, d, "post_attention_norm",
             "o_proj output [b, s, h], post-attention norm input", options);
  }
  t.module("norms");
  add_norm(t, arch, d, "mlp_norm", "residual stream [b, s, h], input of the pre-MLP norm", options);
  if (moe_layer && arch.moe) {
    moe_terms(t, arch, d);
  } else {
    mlp_terms(t, d);
  }
  if (arch.norms_per_layer >= 4) {
    t.module("norms");
    add_norm(t, arch, d, "post_mlp_norm", "MLP output [b, s, h], post-MLP norm input", options);
  }
  adapter_terms(t, arch, d, options);
  return t.take();
}

std::vector<ActivationTerm> head_activation_terms(const ModelArchitecture& arch,
                                                  const TrainingSetup& setup, DType dtype,
                                                  const ActivationOptions& options) {
  const Dims d = dims_of(arch, setup, dtype);
  TermList t{"head"};
  // Megatron-LM theoretical_memory_usage.py counts the int64 ids (8sb) the embedding's
  // backward scatters into.
  t.add("token_ids", "token ids [b, s] (int64): the embedding backward's indices", "b*s*8",
        d.b * d.s, kTokenIdBytes);
  if (d.dropout) {
    // Korthikanti et al. 2022 sec. 4.3: "dropout in the input embeddings ... sbhp" (p = 1).
    t.add("embedding_dropout_mask", "dropout mask on the embeddings [b, s, h] (bool)", "b*s*h*1",
          d.b * d.s * d.h, kMaskBytes);
  }
  add_norm(t, arch, d, "final_norm", "last layer's output [b, s, h], final norm input", options);
  // Korthikanti et al. 2022 sec. 4.3: "output layer projection 2sbh", "cross entropy ... 4sbv".
  t.add("lm_head_input",
        "final norm output [b, s, h] (activation dtype): the LM head's weight gradient needs it",
        "b*s*h*e", d.b * d.s * d.h, d.e);
  t.add("logits",
        "LM head output [b, s, V] (activation dtype), kept as the model's returned logits",
        "b*s*V*e", d.b * d.s * d.V, d.e);
  t.add("loss_buffer", "fp32 log-probabilities [b, s, V] the cross-entropy keeps for its backward",
        "b*s*V*4", d.b * d.s * d.V, kFp32);
  return t.take();
}

ActivationEstimate estimate_activations(const ModelArchitecture& arch, const TrainingSetup& setup,
                                        DType dtype, const ActivationOptions& options) {
  const Dims d = dims_of(arch, setup, dtype);
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
      {"L", static_cast<double>(arch.num_layers), "decoder layers"},
      {"e", d.e, "bytes per activation element"},
      {"p", d.p, "dropout probability"},
  };
  if (arch.mlp.intermediate > 0) out.symbols.push_back({"i", d.i, "dense MLP width"});
  if (arch.moe) {
    out.symbols.push_back({"E", static_cast<double>(arch.moe->num_experts), "routed experts"});
    out.symbols.push_back(
        {"k", static_cast<double>(arch.moe->experts_per_token), "experts per token"});
    out.symbols.push_back(
        {"i_e", static_cast<double>(arch.moe->expert_intermediate), "routed expert width"});
    if (arch.moe->shared_intermediate > 0) {
      out.symbols.push_back(
          {"i_s", static_cast<double>(arch.moe->shared_intermediate), "shared experts' width"});
    }
  }
  if (arch.attention.latent) {
    out.symbols.push_back(
        {"r_q", static_cast<double>(arch.attention.latent->q_lora_rank), "query latent rank"});
    out.symbols.push_back({"r_kv", static_cast<double>(arch.attention.latent->kv_lora_rank),
                           "key/value latent rank"});
  }
  const std::int64_t moe_layers = moe_layer_count(arch);
  const std::int64_t dense_layers = arch.num_layers - moe_layers;
  if (dense_layers > 0) {
    out.layer_kinds.push_back(layer_kind(arch, setup, dtype, false, dense_layers, options));
  }
  if (moe_layers > 0) {
    out.layer_kinds.push_back(layer_kind(arch, setup, dtype, true, moe_layers, options));
  }
  for (const LayerActivations& kind : out.layer_kinds) {
    out.layers_total += kind.per_layer * static_cast<double>(kind.layers);
  }
  out.head = head_activation_terms(arch, setup, dtype, options);
  out.head_total = total_bytes(out.head);
  out.saved = out.layers_total + out.head_total;
  out.logits_gradient = Bytes{d.b * d.s * d.V * kFp32};
  return out;
}

}  // namespace tb
