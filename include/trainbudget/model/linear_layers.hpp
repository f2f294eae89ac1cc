// Every linear (GEMM) layer of a decoder: names as the Hugging Face checkpoint spells them,
// shapes, biases and how many of each a model holds. LoRA adapters, QLoRA quantization and
// per-token FLOPs are all sums over this list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/checked.hpp"
#include "trainbudget/spec/enum_names.hpp"

namespace tb {

// What a linear layer computes, independent of the family's module name.
enum class LinearKind {
  kQuery,          // q_proj (also DeepSeek's q_proj when q_lora_rank is 0)
  kKey,            // k_proj
  kValue,          // v_proj
  kQkv,            // fused q/k/v: GPT-2 attn.c_attn, Phi-3 qkv_proj
  kOutput,         // o_proj, GPT-2 attn.c_proj
  kQueryA,         // MLA q_a_proj: hidden -> q_lora_rank
  kQueryB,         // MLA q_b_proj: q_lora_rank -> heads * (nope + rope)
  kKvA,            // MLA kv_a_proj_with_mqa: hidden -> kv_lora_rank + rope
  kKvB,            // MLA kv_b_proj: kv_lora_rank -> heads * (nope + v)
  kGate,           // gate_proj (Mixtral w1)
  kUp,             // up_proj (Mixtral w3), GPT-2 mlp.c_fc
  kGateUp,         // fused gate/up: Phi-3 gate_up_proj
  kDown,           // down_proj (Mixtral w2), GPT-2 mlp.c_proj
  kRouter,         // MoE router (mlp.gate / block_sparse_moe.gate)
  kMtpProjection,  // DeepSeek-V3 MTP eh_proj: 2 * hidden -> hidden
  kLmHead,         // lm_head (tied or not)
};

// Where it sits.
enum class LinearPlace {
  kAttention,
  kDenseMlp,      // the MLP of a dense layer
  kRoutedExpert,  // one of MoeSpec::num_experts per MoE layer
  kSharedExpert,
  kRouter,
  kMtp,     // inside a multi-token-prediction module, outside its decoder layer
  kHead,    // the LM head
  kVision,  // a vision-tower encoder layer (SigLIP); no text token runs through it
};

template <>
struct EnumNames<LinearKind> {
  static constexpr std::array<std::pair<LinearKind, std::string_view>, 16> kNames{
      {{LinearKind::kQuery, "query"},
       {LinearKind::kKey, "key"},
       {LinearKind::kValue, "value"},
       {LinearKind::kQkv, "qkv"},
       {LinearKind::kOutput, "output"},
       {LinearKind::kQueryA, "query_a"},
       {LinearKind::kQueryB, "query_b"},
       {LinearKind::kKvA, "kv_a"},
       {LinearKind::kKvB, "kv_b"},
       {LinearKind::kGate, "gate"},
       {LinearKind::kUp, "up"},
       {LinearKind::kGateUp, "gate_up"},
       {LinearKind::kDown, "down"},
       {LinearKind::kRouter, "router"},
       {LinearKind::kMtpProjection, "mtp_projection"},
       {LinearKind::kLmHead, "lm_head"}}};
};
template <>
struct EnumNames<LinearPlace> {
  static constexpr std::array<std::pair<LinearPlace, std::string_view>, 8> kNames{
      {{LinearPlace::kAttention, "attention"},
       {LinearPlace::kDenseMlp, "mlp"},
       {LinearPlace::kRoutedExpert, "routed_expert"},
       {LinearPlace::kSharedExpert, "shared_expert"},
       {LinearPlace::kRouter, "router"},
       {LinearPlace::kMtp, "mtp"},
       {LinearPlace::kHead, "head"},
       {LinearPlace::kVision, "vision"}}};
};

struct LinearLayer {
  std::string name;  // module name as in the checkpoint: "q_proj", "c_attn", "w1", "lm_head"
  std::string path;  // inside a decoder layer: "self_attn.q_proj", "mlp.experts.{e}.up_proj"
  LinearKind kind{LinearKind::kQuery};
  LinearPlace place{LinearPlace::kAttention};
  std::int64_t in_features{0};
  std::int64_t out_features{0};
  bool bias{false};
  bool tied{false};        // the LM head's weight is the input embedding (no parameters of its own)
  std::int64_t copies{1};  // instances per holding layer (num_experts for routed experts)
  std::int64_t active_copies{1};  // instances one token runs through (top-k for routed experts)
  std::int64_t layers{1};         // decoder layers holding it (1 for the LM head)
  // An nn.Linear, which PEFT's target_modules (and "all-linear") match; false: a weight
  // tensor of another module (gpt-oss's GptOssExperts / GptOssTopKRouter), which only PEFT's
  // target_parameters reaches, by name.
  bool module{true};

  [[nodiscard]] std::int64_t weight_params() const {
    return checked_mul(in_features, out_features);
  }
  // Parameters of one instance: weight plus bias.
  [[nodiscard]] std::int64_t params() const {
    return checked_add(weight_params(), bias ? out_features : 0);
  }
  // All instances in the model: params() * copies * layers; 0 for a tied head.
  [[nodiscard]] std::int64_t total_params() const {
    return tied ? 0 : checked_mul(params(), copies, layers);
  }
};

// The linear layers of one decoder layer: a dense one (moe_layer false) or an MoE one, whose
// tokens mix by attention or (linear_attention_layer, with a LinearAttentionSpec) by Gated
// DeltaNet; without `mlp`, the token mixer's alone (ModelArchitecture::mlp_free_layers). Each
// entry has layers = 1.
[[nodiscard]] std::vector<LinearLayer> decoder_layer_linears(const ModelArchitecture& arch,
                                                             bool moe_layer,
                                                             bool linear_attention_layer = false,
                                                             bool mlp = true);

// Every linear layer of the model: the decoder layers' (an entry per distinct path and shape,
// with `layers` = how many decoder layers hold it) and the LM head (tied or not). With
// include_mtp, also the multi-token-prediction modules' eh_proj (place kMtp) and their decoder
// layer's linears (paths prefixed "mtp."; their embedding and head are copies of the main ones
// and are not listed again). A vision tower adds its encoder layers' q_proj, k_proj, v_proj,
// out_proj, fc1 and fc2 (paths prefixed "vision.", place kVision, active_copies 0). PEFT matches
// target_modules by name suffix, so "q_proj" adapts the vision tower's q_proj too.
[[nodiscard]] std::vector<LinearLayer> model_linears(const ModelArchitecture& arch,
                                                     bool include_mtp = false);

// The largest single trainable tensor of the full model, in parameters: the embedding table,
// the LM head or the widest linear weight (one expert's, not all experts').
[[nodiscard]] double largest_tensor_params(const ModelArchitecture& arch);

}  // namespace tb
