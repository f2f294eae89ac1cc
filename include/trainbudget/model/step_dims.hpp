// The shapes the activation and FLOP formulas read, as doubles: the model's widths (fixed once
// per model profile) next to the layout's micro-batch, sequence and switches (set per
// evaluation). One struct, so the evaluator and the views read the same letters.
#pragma once

#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

// Doubles, because b*a*s^2 passes 2^53 only for absurd inputs and the sums are in bytes.
struct StepDims {
  double b{0};  // micro-batch (sequences)
  double s{0};  // sequence length (tokens)
  double h{0}, a{0}, a_kv{0}, d{0}, d_v{0}, i{0}, V{0}, L{0};
  double e{2};                        // bytes per activation element
  double p{0};                        // dropout probability
  double E{0}, k{0}, i_e{0}, i_s{0};  // MoE: routed experts, top-k, expert and shared widths
  double r_q{0}, r_kv{0};             // MLA latent ranks
  // A linear mixer (LinearAttentionSpec: Gated DeltaNet, Mamba-2 or LFM2's short convolution, as
  // g_mixer says): the share of
  // the decoder layers that mix tokens with it (0: none), its key and value heads (Mamba-2: groups
  // and heads), their widths (d_state, head_dim) and the conv taps. The step prices one average
  // layer: attention's rows and kernels at attention_share (1 - linear_share, or 1 where both run
  // side by side), the mixer's at linear_share, the rest in full (norms and an MLP every layer).
  double linear_share{0};
  double attention_share{1};
  double g_kh{0}, g_vh{0}, g_dk{0}, g_dv{0}, g_conv{0};
  LinearMixer g_mixer{LinearMixer::kGatedDelta};
  // The share of the dense decoder layers with an MLP after the token mixer (1 but for
  // ModelArchitecture::mlp_free_layers; an MoE layer's rows, with_step, 1): the MLP's rows,
  // kernels and norm at that share.
  double mlp_share{1};
  double head_share{1};      // the share of the s positions that get logits (Layout::logits_share)
  double norm_stats{1};      // fp32 statistics per token of one norm: RMSNorm 1, LayerNorm 2
  double adapter_ranks{0};   // sum over adapters of rank x active copies (all layers)
  double adapter_inputs{0};  // with lora_dropout: sum over adapters of in_features x active copies
  bool lora_dropout{false};  // PEFT's lora_dropout > 0
  double dora_outputs{0};    // DoRA: sum over its adapters of out_features x active copies
  bool eager{false};         // eager attention (the s x s scores are saved)
  bool dropout{false};       // p > 0
  bool gated{true};          // gated MLP
  bool latent{false};        // multi-head latent attention
  bool q_latent{false};      // MLA with a query bottleneck (q_lora_rank > 0)
  bool qk_norm{false};       // RMSNorm on q and k heads
  bool output_gate{false};   // attention output x sigmoid(gate) before o_proj (Qwen3-Next)
  bool post_norms{false};    // Gemma 2/3: norms after each sublayer too
  // One norm feeds both attention and the MLP (a parallel block from one LayerNorm: Falcon-7B,
  // Phi-1.5/2): no pre-MLP norm, and the MLP's input is the q/k/v projections' tensor.
  bool shared_norm{false};
  bool norm_statistics{true};
  bool moe_layer{false};  // the rows of an MoE layer instead of a dense one
  bool shared_experts{false};
  // RoPE and the gated MLP's act x up as single kernels (Liger Kernel); the product's backward
  // recomputes the activation, so its output is not saved.
  bool fused_rope_swiglu{false};
  // The gated activation is one autograd function that saves only its input and recomputes
  // act(gate) in backward, so act(gate) is not kept: Liger's SiLU x up, and Megatron-Core's
  // bias_swiglu_impl / weighted_bias_swiglu_impl (fusions/fused_bias_swiglu.py at core_v0.15.0:
  // `ctx.save_for_backward(input_for_backward)`; on with bias_activation_fusion, the default of
  // Megatron-LM's arguments and of Megatron-Bridge's model providers).
  bool glu_saves_input{false};
  // axolotl's LoRA_MLP (TrainingSetup::lora_kernels) on a dense gated MLP whose gate, up and down
  // all carry adapters (mlp_fully_adapted, set by keep_adapted_inputs): ctx.save_for_backward(X,
  // X_drop, gate, up, A, B), act(gate) and act(gate) x up rebuilt in backward by its Triton
  // SwiGLU/GeGLU kernel (axolotl kernels/lora.py at 067b021c8).
  bool lora_kernels{false};
  bool mlp_fully_adapted{false};
  // Megatron-Core's grouped experts multiply each routed token by its routing weight inside the
  // activation (moe/experts.py TEGroupedMLP at core_v0.15.0: weighted_bias_swiglu_impl with
  // permuted_probs), so the experts' outputs are not saved for the weight's gradient; the
  // permuted weights [b*s*k] (fp32) are.
  bool expert_probs_in_activation{false};
  // The framework's kernels (docs/frameworks.md), set from the resolved setup per job.
  LossImpl loss{LossImpl::kFused};
  double loss_chunks{1};   // kChunked: N
  bool logits_fp32{true};  // the loss upcasts the logits to fp32 first
  bool keep_logits{true};  // the loop holds the returned logits through backward
  // TRL's online RL divides the kept logits by the temperature in place on a slice of them
  // (grpo_trainer.py `logits.div_(self.temperature)`, ppo_trainer.py `logits /= temperature`):
  // the loss's backward runs autograd's CopySlices, which holds the incoming gradient, its copy,
  // the slice's clone and the division's output at once (set by the profile).
  bool logits_scaled_in_place{false};
  NormImpl norm{NormImpl::kFused};
  bool softmax_fp32{false};  // eager attention's softmax in fp32 (transformers)
  // Whether a linear layer's input is saved: autograd keeps it only for the weight's gradient,
  // so under LoRA/QLoRA a frozen linear without an adapter keeps none (set by the profile).
  bool keep_qkv_input{true};
  bool keep_o_input{true};
  bool keep_mlp_input{true};   // gate/up (GPT-2: fc1), the experts' w1/w3
  bool keep_down_input{true};  // down (GPT-2: fc2), the experts' w2
  // The linear inputs above are saved in FP8, 1 byte each (Transformer Engine's fp8 recipes).
  bool fp8_inputs{false};
};

// The model's part of the dims (widths, heads, MoE, MLA, norms); b, s, e, p and the
// attention / dropout switches are left for the layout to set. The architecture must be valid.
[[nodiscard]] StepDims shape_dims(const ModelArchitecture& arch);

// The framework's kernels of a resolved setup (its loss, logits dtype, norm and whether the
// loop holds the logits) on top of the model's widths. Inline, like with_step.
[[nodiscard]] inline StepDims with_kernels(StepDims shape, const TrainingSetup& resolved) noexcept {
  const LossSpec loss = resolved.loss.value_or(LossSpec{});
  shape.loss = loss.impl;
  shape.loss_chunks = static_cast<double>(loss.chunks);
  shape.logits_fp32 = resolved.logits_dtype.value_or(LogitsDtype::kFp32) == LogitsDtype::kFp32;
  shape.norm = resolved.norm.value_or(NormImpl::kFused);
  shape.keep_logits = framework_profile(resolved.framework).keeps_logits;
  shape.softmax_fp32 = framework_profile(resolved.framework).softmax_fp32;
  shape.fused_rope_swiglu = resolved.liger;
  shape.lora_kernels = resolved.lora_kernels;
  const bool megatron = resolved.framework == Framework::kMegatron;
  shape.glu_saves_input = resolved.liger || megatron;
  shape.expert_probs_in_activation = megatron;
  return shape;
}

}  // namespace tb
