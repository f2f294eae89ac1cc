// The linear layers of a decoder, named as each family's Hugging Face checkpoint names them
// (modeling_<family>.py module attributes; the names PEFT's target_modules match).
#include "trainbudget/model/linear_layers.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>

#include "linear_builder.hpp"

namespace tb {
namespace {

using detail::accumulate;
using detail::Builder;
using detail::granite_moe_block;
using detail::lfm2_moe_block;
using detail::mamba2_mixer;
using detail::short_conv_mixer;

// GPT-2 (GPT2Attention / GPT2MLP, Conv1D modules): attn.c_attn, attn.c_proj, mlp.c_fc,
// mlp.c_proj, all biased.
void gpt2_layer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const std::int64_t q = a.attention.num_heads * a.attention.head_dim;
  const std::int64_t kv = a.attention.num_kv_heads * a.attention.head_dim;
  b.add("c_attn", "attn.c_attn", LinearKind::kQkv, LinearPlace::kAttention, a.hidden, q + 2 * kv,
        a.attention.qkv_bias);
  b.add("c_proj", "attn.c_proj", LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden,
        a.attention.output_bias);
}

// GPT-NeoX (GPTNeoXAttention / GPTNeoXMLP): attention.query_key_value, attention.dense,
// mlp.dense_h_to_4h, mlp.dense_4h_to_h; Falcon names them alike under self_attention.
void gpt_neox_layer(Builder& b, const std::string& attention) {
  const ModelArchitecture& a = b.arch;
  const AttentionSpec& at = a.attention;
  const std::int64_t q = at.num_heads * at.head_dim;
  const std::int64_t kv = at.num_kv_heads * at.head_dim;
  b.add("query_key_value", attention + "query_key_value", LinearKind::kQkv, LinearPlace::kAttention,
        a.hidden, q + 2 * kv, at.qkv_bias);
  b.add("dense", attention + "dense", LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden,
        at.output_bias);
  b.add("dense_h_to_4h", "mlp.dense_h_to_4h", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
        a.mlp.intermediate, a.mlp.bias);
  b.add("dense_4h_to_h", "mlp.dense_4h_to_h", LinearKind::kDown, LinearPlace::kDenseMlp,
        a.mlp.intermediate, a.hidden, a.mlp.bias);
}

// Separate q/k/v projections, an output named `output` and a non-gated fc1/fc2 MLP under
// `mlp_prefix` (GPT-J's under attn. and named fc_in / fc_out): OPT (OPTAttention /
// OPTDecoderLayer: out_proj; fc1, fc2 at the layer's top) and
// Phi-1.5 / Phi-2 (PhiAttention / PhiMLP: dense; mlp.fc1, mlp.fc2; all biased).
void fc_mlp_layer(Builder& b, const std::string& output, const std::string& mlp_prefix,
                  const std::string& attention = "self_attn.", const char* fc1 = "fc1",
                  const char* fc2 = "fc2") {
  const ModelArchitecture& a = b.arch;
  const AttentionSpec& at = a.attention;
  const std::int64_t q = at.num_heads * at.head_dim;
  const std::int64_t kv = at.num_kv_heads * at.head_dim;
  b.add("q_proj", attention + "q_proj", LinearKind::kQuery, LinearPlace::kAttention, a.hidden, q,
        at.qkv_bias);
  b.add("k_proj", attention + "k_proj", LinearKind::kKey, LinearPlace::kAttention, a.hidden, kv,
        at.qkv_bias);
  b.add("v_proj", attention + "v_proj", LinearKind::kValue, LinearPlace::kAttention, a.hidden, kv,
        at.qkv_bias);
  b.add(output, attention + output, LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden,
        at.output_bias);
  b.add(fc1, mlp_prefix + fc1, LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
        a.mlp.intermediate, a.mlp.bias);
  b.add(fc2, mlp_prefix + fc2, LinearKind::kDown, LinearPlace::kDenseMlp, a.mlp.intermediate,
        a.hidden, a.mlp.bias);
}

// MptBlock (modeling_mpt.py): attn.Wqkv (fused) and attn.out_proj, ffn.up_proj and
// ffn.down_proj, none biased.
void mpt_layer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const std::int64_t q = a.attention.num_heads * a.attention.head_dim;
  b.add("Wqkv", "attn.Wqkv", LinearKind::kQkv, LinearPlace::kAttention, a.hidden, 3 * q, false);
  b.add("out_proj", "attn.out_proj", LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden,
        false);
  b.add("up_proj", "ffn.up_proj", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
        a.mlp.intermediate, false);
  b.add("down_proj", "ffn.down_proj", LinearKind::kDown, LinearPlace::kDenseMlp, a.mlp.intermediate,
        a.hidden, false);
}

// QWenBlock (Qwen (1)'s modeling_qwen.py): attn.c_attn (fused, biased) and attn.c_proj; mlp.w1
// (the product's up half), mlp.w2 (its SiLU half) and mlp.c_proj.
void qwen1_layer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const std::int64_t q = a.attention.num_heads * a.attention.head_dim;
  const std::int64_t w = a.mlp.intermediate;
  b.add("c_attn", "attn.c_attn", LinearKind::kQkv, LinearPlace::kAttention, a.hidden, 3 * q, true);
  b.add("c_proj", "attn.c_proj", LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden,
        a.attention.output_bias);
  b.add("w1", "mlp.w1", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden, w, a.mlp.bias);
  b.add("w2", "mlp.w2", LinearKind::kGate, LinearPlace::kDenseMlp, a.hidden, w, a.mlp.bias);
  b.add("c_proj", "mlp.c_proj", LinearKind::kDown, LinearPlace::kDenseMlp, w, a.hidden, a.mlp.bias);
}

void standard_attention(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const AttentionSpec& at = a.attention;
  const std::int64_t q = at.num_heads * at.head_dim;
  const std::int64_t kv = at.num_kv_heads * at.head_dim;
  if (at.fused_qkv) {
    // Phi3Attention.qkv_proj: hidden -> (heads + 2 * kv_heads) * head_dim.
    b.add("qkv_proj", "self_attn.qkv_proj", LinearKind::kQkv, LinearPlace::kAttention, a.hidden,
          q + 2 * kv, at.qkv_bias);
  } else {
    // Qwen3NextAttention's q_proj also writes the output gate: 2 x heads x head_dim. Nemotron-H
    // names every block's sublayer mixer.
    const std::string p = a.model_type == "nemotron_h" ? "mixer." : "self_attn.";
    b.add("q_proj", p + "q_proj", LinearKind::kQuery, LinearPlace::kAttention, a.hidden,
          at.output_gate ? 2 * q : q, at.qkv_bias);
    b.add("k_proj", p + "k_proj", LinearKind::kKey, LinearPlace::kAttention, a.hidden, kv,
          at.qkv_bias);
    b.add("v_proj", p + "v_proj", LinearKind::kValue, LinearPlace::kAttention, a.hidden, kv,
          at.qkv_bias);
  }
  // LFM2's Lfm2Attention names its output projection out_proj.
  const bool lfm2 = a.model_type.starts_with("lfm2");
  const bool nemotron_h = a.model_type == "nemotron_h";
  b.add(lfm2 ? "out_proj" : "o_proj",
        lfm2 ? "self_attn.out_proj" : (nemotron_h ? "mixer.o_proj" : "self_attn.o_proj"),
        LinearKind::kOutput, LinearPlace::kAttention, q, a.hidden, at.output_bias);
}

// DeepseekV3Attention (see param_count.cpp for the shapes' source).
void latent_attention(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const AttentionSpec& at = a.attention;
  const LatentAttentionSpec& m = *at.latent;
  const std::int64_t qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank > 0) {
    b.add("q_a_proj", "self_attn.q_a_proj", LinearKind::kQueryA, LinearPlace::kAttention, a.hidden,
          m.q_lora_rank, at.qkv_bias);
    b.add("q_b_proj", "self_attn.q_b_proj", LinearKind::kQueryB, LinearPlace::kAttention,
          m.q_lora_rank, at.num_heads * qk_head, false);
  } else {
    b.add("q_proj", "self_attn.q_proj", LinearKind::kQuery, LinearPlace::kAttention, a.hidden,
          at.num_heads * qk_head, false);
  }
  b.add("kv_a_proj_with_mqa", "self_attn.kv_a_proj_with_mqa", LinearKind::kKvA,
        LinearPlace::kAttention, a.hidden, m.kv_lora_rank + m.qk_rope_head_dim, at.qkv_bias);
  b.add("kv_b_proj", "self_attn.kv_b_proj", LinearKind::kKvB, LinearPlace::kAttention,
        m.kv_lora_rank, at.num_heads * (m.qk_nope_head_dim + m.v_head_dim), false);
  b.add("o_proj", "self_attn.o_proj", LinearKind::kOutput, LinearPlace::kAttention,
        at.num_heads * m.v_head_dim, a.hidden, at.output_bias);
}

// A Gated DeltaNet layer's projections under linear_attn (modeling_qwen3_next.py
// Qwen3NextGatedDeltaNet: in_proj_qkvz, in_proj_ba, out_proj; modeling_qwen3_5.py splits the
// first two into in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), none biased.
void gated_delta_net(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const LinearAttentionSpec& g = *a.linear_attention;
  const std::int64_t key = g.key_heads * g.key_head_dim;
  const std::int64_t value = g.value_heads * g.value_head_dim;
  const auto in = [&](const char* name, LinearKind kind, std::int64_t out) {
    b.add(name, std::string{"linear_attn."} + name, kind, LinearPlace::kAttention, a.hidden, out,
          false);
  };
  if (g.fused_projections) {
    in("in_proj_qkvz", LinearKind::kQkv, 2 * key + 2 * value);
    in("in_proj_ba", LinearKind::kGate, 2 * g.value_heads);
  } else {
    in("in_proj_qkv", LinearKind::kQkv, 2 * key + value);
    in("in_proj_z", LinearKind::kGate, value);
    in("in_proj_b", LinearKind::kGate, g.value_heads);
    in("in_proj_a", LinearKind::kGate, g.value_heads);
  }
  b.add("out_proj", "linear_attn.out_proj", LinearKind::kOutput, LinearPlace::kAttention, value,
        a.hidden, false);
}

void dense_mlp(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const MlpSpec& m = a.mlp;
  if (a.model_type.starts_with("lfm2")) {
    // Lfm2MLP (feed_forward): w2(silu(w1 x) * w3 x), no biases.
    b.add("w1", "feed_forward.w1", LinearKind::kGate, LinearPlace::kDenseMlp, a.hidden,
          m.intermediate, false);
    b.add("w3", "feed_forward.w3", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
          m.intermediate, false);
    b.add("w2", "feed_forward.w2", LinearKind::kDown, LinearPlace::kDenseMlp, m.intermediate,
          a.hidden, false);
    return;
  }
  if (a.model_type == "granitemoehybrid") {
    // GraniteMoeHybridMLP (shared_mlp): input_linear (hidden -> 2 x width, gate and up),
    // output_linear, no biases.
    b.add("input_linear", "shared_mlp.input_linear", LinearKind::kGateUp, LinearPlace::kDenseMlp,
          a.hidden, 2 * m.intermediate, false);
    b.add("output_linear", "shared_mlp.output_linear", LinearKind::kDown, LinearPlace::kDenseMlp,
          m.intermediate, a.hidden, false);
    return;
  }
  // Llama 4's decoder layer names its MLP feed_forward (Llama4TextDecoderLayer), as Falcon-H1's
  // and Bamba's do.
  const bool feed_forward =
      a.model_type.starts_with("llama4") || a.model_type == "falcon_h1" || a.model_type == "bamba";
  const std::string p = feed_forward                   ? "feed_forward."
                        : a.model_type == "nemotron_h" ? "mixer."
                                                       : "mlp.";
  if (a.model_type == "gpt2" || a.model_type == "starcoder2") {
    b.add("c_fc", "mlp.c_fc", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden, m.intermediate,
          m.bias);
    b.add("c_proj", "mlp.c_proj", LinearKind::kDown, LinearPlace::kDenseMlp, m.intermediate,
          a.hidden, m.bias);
    return;
  }
  if (m.fused_gate_up) {
    b.add("gate_up_proj", p + "gate_up_proj", LinearKind::kGateUp, LinearPlace::kDenseMlp, a.hidden,
          2 * m.intermediate, m.bias);
  } else if (m.gated) {
    b.add("gate_proj", p + "gate_proj", LinearKind::kGate, LinearPlace::kDenseMlp, a.hidden,
          m.intermediate, m.bias);
    b.add("up_proj", p + "up_proj", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
          m.intermediate, m.bias);
  } else {
    b.add("up_proj", p + "up_proj", LinearKind::kUp, LinearPlace::kDenseMlp, a.hidden,
          m.intermediate, m.bias);
  }
  b.add("down_proj", p + "down_proj", LinearKind::kDown, LinearPlace::kDenseMlp, m.intermediate,
        a.hidden, m.bias);
}

// gpt-oss (modeling_gpt_oss.py): GptOssTopKRouter holds mlp.router's weight and bias, and
// GptOssExperts all experts' fused gate_up_proj (hidden -> 2 x width) and down_proj as 3-D
// parameters with biases: no nn.Linear among them, so only PEFT's target_parameters adapts them.
void gpt_oss_moe_block(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const MoeSpec& m = *a.moe;
  const std::int64_t w = m.expert_intermediate;
  b.add("router", "mlp.router", LinearKind::kRouter, LinearPlace::kRouter, a.hidden, m.num_experts,
        m.router_bias);
  b.add("gate_up_proj", "mlp.experts.gate_up_proj", LinearKind::kGateUp, LinearPlace::kRoutedExpert,
        a.hidden, 2 * w, m.expert_bias, m.num_experts, m.experts_per_token);
  b.add("down_proj", "mlp.experts.down_proj", LinearKind::kDown, LinearPlace::kRoutedExpert, w,
        a.hidden, m.expert_bias, m.num_experts, m.experts_per_token);
  for (LinearLayer& l : b.out) {
    if (l.place == LinearPlace::kRouter || l.place == LinearPlace::kRoutedExpert) l.module = false;
  }
}

// All experts' fused gate_up_proj (hidden -> 2 x width) and down_proj under `prefix` as 3-D
// parameters, not nn.Linear: LoRA's target_modules (and "all-linear") pass them by and
// bitsandbytes leaves them as loaded.
void fused_experts(Builder& b, const std::string& prefix) {
  const ModelArchitecture& a = b.arch;
  const MoeSpec& m = *a.moe;
  const std::int64_t w = m.expert_intermediate;
  b.add("gate_up_proj", prefix + "experts.gate_up_proj", LinearKind::kGateUp,
        LinearPlace::kRoutedExpert, a.hidden, 2 * w, false, m.num_experts, m.experts_per_token);
  b.add("down_proj", prefix + "experts.down_proj", LinearKind::kDown, LinearPlace::kRoutedExpert, w,
        a.hidden, false, m.num_experts, m.experts_per_token);
  b.out[b.out.size() - 2].module = false;
  b.out.back().module = false;
}

// DBRX (modeling_dbrx.py, DbrxBlock): norm_attn_norm.attn.Wqkv (fused q/k/v) and out_proj, no
// biases; ffn.router.layer, an nn.Linear without bias; ffn.experts.mlp's w1 (gate), v1 (up) and
// w2 (down), each every expert's matrix in one 3-D parameter, not nn.Linear.
void dbrx_layer(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const AttentionSpec& at = a.attention;
  const MoeSpec& m = *a.moe;
  const std::int64_t q = at.num_heads * at.head_dim;
  const std::int64_t kv = at.num_kv_heads * at.head_dim;
  b.add("Wqkv", "norm_attn_norm.attn.Wqkv", LinearKind::kQkv, LinearPlace::kAttention, a.hidden,
        q + 2 * kv, false);
  b.add("out_proj", "norm_attn_norm.attn.out_proj", LinearKind::kOutput, LinearPlace::kAttention, q,
        a.hidden, false);
  b.add("layer", "ffn.router.layer", LinearKind::kRouter, LinearPlace::kRouter, a.hidden,
        m.num_experts, false);
  const std::int64_t w = m.expert_intermediate;
  for (const auto& [name, kind, in, out] : {std::tuple{"w1", LinearKind::kGate, a.hidden, w},
                                            std::tuple{"v1", LinearKind::kUp, a.hidden, w},
                                            std::tuple{"w2", LinearKind::kDown, w, a.hidden}}) {
    b.add(name, std::string("ffn.experts.mlp.") + name, kind, LinearPlace::kRoutedExpert, in, out,
          false, m.num_experts, m.experts_per_token);
    b.out.back().module = false;
  }
}

// One shared expert, a gated MLP of the MoE spec's shared width under `prefix`.
void shared_expert(Builder& b, const std::string& prefix) {
  const ModelArchitecture& a = b.arch;
  const std::int64_t s = a.moe->shared_intermediate;
  b.add("gate_proj", prefix + "gate_proj", LinearKind::kGate, LinearPlace::kSharedExpert, a.hidden,
        s, false);
  b.add("up_proj", prefix + "up_proj", LinearKind::kUp, LinearPlace::kSharedExpert, a.hidden, s,
        false);
  b.add("down_proj", prefix + "down_proj", LinearKind::kDown, LinearPlace::kSharedExpert, s,
        a.hidden, false);
}

// Qwen3-Next and Qwen3.5-MoE (modeling_qwen3_5_moe.py: Qwen3_5MoeTopKRouter, Qwen3NextExperts):
// the router's weight is a parameter too and the experts are fused; the shared expert and its
// gate are nn.Linear.
void fused_moe_block(Builder& b) {
  const ModelArchitecture& a = b.arch;
  b.add("gate", "mlp.gate", LinearKind::kRouter, LinearPlace::kRouter, a.hidden, a.moe->num_experts,
        false);
  b.out.back().module = false;
  fused_experts(b, "mlp.");
  if (a.moe->shared_intermediate == 0) return;
  b.add("shared_expert_gate", "mlp.shared_expert_gate", LinearKind::kRouter, LinearPlace::kRouter,
        a.hidden, 1, false);
  shared_expert(b, "mlp.shared_expert.");
}

// Llama 4 (modeling_llama4.py: Llama4TextMoe): feed_forward.router is an nn.Linear without bias,
// Llama4TextExperts the fused experts, feed_forward.shared_expert a gated MLP of their width.
void llama4_moe_block(Builder& b) {
  b.add("router", "feed_forward.router", LinearKind::kRouter, LinearPlace::kRouter, b.arch.hidden,
        b.arch.moe->num_experts, false);
  fused_experts(b, "feed_forward.");
  shared_expert(b, "feed_forward.shared_expert.");
}

// MixtralSparseMoeBlock names its experts' matrices w1 (gate), w3 (up), w2 (down) under
// block_sparse_moe; Qwen3-MoE and DeepSeek-V3 use gate_proj/up_proj/down_proj under mlp.
void moe_block(Builder& b) {
  const ModelArchitecture& a = b.arch;
  const MoeSpec& m = *a.moe;
  if (a.model_type == "gpt_oss") {
    gpt_oss_moe_block(b);
    return;
  }
  if (a.model_type == "granitemoehybrid") {
    granite_moe_block(b);
    return;
  }
  if (a.model_type == "lfm2_moe") {
    lfm2_moe_block(b);
    return;
  }
  if (a.model_type == "nemotron_h") {
    nemotron_h_moe_block(b);
    return;
  }
  if (a.linear_attention) {  // Qwen3-Next, Qwen3.5-MoE
    fused_moe_block(b);
    return;
  }
  if (a.model_type.starts_with("llama4")) {
    llama4_moe_block(b);
    return;
  }
  if (a.model_type == "mistral4") {
    // Mistral4MoE (modeling_mistral4.py): the router's weight a parameter (mlp.gate), the
    // experts fused, mlp.shared_experts a gated MLP.
    b.add("gate", "mlp.gate", LinearKind::kRouter, LinearPlace::kRouter, a.hidden, m.num_experts,
          false);
    b.out.back().module = false;
    fused_experts(b, "mlp.");
    shared_expert(b, "mlp.shared_experts.");
    return;
  }
  const bool mixtral = a.model_type == "mixtral";
  const std::string block = mixtral ? "block_sparse_moe" : "mlp";
  const std::string expert = block + ".experts.{e}.";
  b.add("gate", block + ".gate", LinearKind::kRouter, LinearPlace::kRouter, a.hidden, m.num_experts,
        m.router_bias);
  const std::int64_t w = m.expert_intermediate;
  const auto routed = [&](const char* name, const char* mixtral_name, LinearKind kind,
                          std::int64_t in, std::int64_t out) {
    const std::string n = mixtral ? mixtral_name : name;
    b.add(n, expert + n, kind, LinearPlace::kRoutedExpert, in, out, false, m.num_experts,
          m.experts_per_token);
  };
  routed("gate_proj", "w1", LinearKind::kGate, a.hidden, w);
  routed("up_proj", "w3", LinearKind::kUp, a.hidden, w);
  routed("down_proj", "w2", LinearKind::kDown, w, a.hidden);
  if (m.shared_intermediate > 0) {
    // Qwen2-MoE: one mlp.shared_expert and its mlp.shared_expert_gate; DeepSeek: shared_experts.
    const std::string shared =
        block + (m.shared_expert_gate ? ".shared_expert." : ".shared_experts.");
    if (m.shared_expert_gate) {
      b.add("shared_expert_gate", block + ".shared_expert_gate", LinearKind::kRouter,
            LinearPlace::kRouter, a.hidden, 1, false);
    }
    shared_expert(b, shared);
  }
}

}  // namespace

std::vector<LinearLayer> decoder_layer_linears(const ModelArchitecture& arch, bool moe_layer,
                                               bool linear_attention_layer, bool mlp) {
  Builder b{arch, {}};
  if (arch.model_type == "gpt_neox" || arch.model_type == "falcon") {
    gpt_neox_layer(b, arch.model_type == "falcon" ? "self_attention." : "attention.");
    return std::move(b.out);
  }
  if (arch.model_type == "dbrx") {
    dbrx_layer(b);
    return std::move(b.out);
  }
  if (arch.model_type == "mpt") {
    mpt_layer(b);
    return std::move(b.out);
  }
  if (arch.model_type == "qwen") {
    qwen1_layer(b);
    return std::move(b.out);
  }
  if (arch.model_type == "gptj") {
    // GPTJAttention: attn.q_proj, k_proj, v_proj, out_proj; GPTJMLP: mlp.fc_in, mlp.fc_out.
    fc_mlp_layer(b, "out_proj", "mlp.", "attn.", "fc_in", "fc_out");
    return std::move(b.out);
  }
  if (arch.model_type == "opt" || arch.model_type == "phi") {
    fc_mlp_layer(b, arch.model_type == "opt" ? "out_proj" : "dense",
                 arch.model_type == "opt" ? "" : "mlp.");
    return std::move(b.out);
  }
  if (linear_attention_layer && arch.linear_attention) {
    if (arch.linear_attention->mixer == LinearMixer::kMamba2) {
      mamba2_mixer(b);
    } else if (arch.linear_attention->mixer == LinearMixer::kShortConv) {
      short_conv_mixer(b);
    } else {
      gated_delta_net(b);
    }
    if (arch.linear_attention->parallel) standard_attention(b);  // Falcon-H1: side by side
  } else if (arch.model_type == "gpt2") {
    gpt2_layer(b);
  } else if (arch.attention.latent) {
    latent_attention(b);
  } else {
    standard_attention(b);
  }
  if (!mlp) return std::move(b.out);
  if (moe_layer && arch.moe) {
    moe_block(b);
  } else {
    dense_mlp(b);
  }
  return std::move(b.out);
}

std::vector<LinearLayer> model_linears(const ModelArchitecture& arch, bool include_mtp) {
  std::vector<LinearLayer> all;
  // The layers of each kind: token mixer (attention, or a linear mixer with or without attention
  // beside it) by MLP (dense or MoE) by whether they have one.
  std::array<std::int64_t, 8> kinds{};
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    ++kinds[(has_mlp(arch, i) ? 0U : 4U) + (is_moe_layer(arch, i) ? 2U : 0U) +
            (is_linear_attention_layer(arch, i) ? 1U : 0U)];
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (kinds[k] > 0) {
      accumulate(all, decoder_layer_linears(arch, k % 4 >= 2, k % 2 == 1, k < 4), kinds[k]);
    }
  }

  LinearLayer head;
  head.name = "lm_head";
  head.path = "lm_head";
  head.kind = LinearKind::kLmHead;
  head.place = LinearPlace::kHead;
  head.in_features = arch.hidden;
  head.out_features = head_width(arch);
  head.tied = arch.tie_embeddings && arch.head_outputs == 0;
  head.bias = arch.head_bias && arch.head_outputs == 0;
  all.push_back(head);

  // The vision tower's, already counted over its layers.
  for (LinearLayer& l : detail::vision_tower_linears(arch)) all.push_back(std::move(l));
  if (include_mtp && arch.mtp_layers > 0) {
    std::vector<LinearLayer> mtp;
    Builder b{arch, {}};
    b.add("eh_proj", "eh_proj", LinearKind::kMtpProjection, LinearPlace::kMtp, 2 * arch.hidden,
          arch.hidden, false);
    mtp = std::move(b.out);
    for (LinearLayer l : decoder_layer_linears(arch, is_moe_layer(arch, arch.num_layers - 1))) {
      l.path = "mtp." + l.path;
      mtp.push_back(std::move(l));
    }
    accumulate(all, mtp, arch.mtp_layers);
  }
  return all;
}

double largest_tensor_params(const ModelArchitecture& arch) {
  double largest = static_cast<double>(arch.vocab) * static_cast<double>(arch.hidden);
  for (const LinearLayer& l : model_linears(arch)) {
    largest = std::max(largest, static_cast<double>(l.weight_params()));
  }
  return largest;
}

}  // namespace tb
