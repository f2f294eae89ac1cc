// A decoder-only transformer as its config.json describes it: the shapes that fix every
// parameter, every linear layer and (for part B) every activation. Pure data, no I/O.
//
// One struct covers the families trainbudget counts exactly (docs/models.md): GPT-2, Llama
// 1/2/3.x, Mistral, Mixtral, Qwen2/2.5, Qwen3, Qwen3-MoE, Gemma 1/2/3, Phi-3, OLMo and
// DeepSeek-V3/R1. Family differences are switches (norm kind, fused projections, biases, q/k
// norms, MLA, MoE layout, multi-token prediction), never family names in the counting code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

enum class NormKind {
  kRmsNorm,        // weight only (Llama, Gemma's (1 + w) form has the same count)
  kLayerNorm,      // weight, plus bias when NormSpec::bias (GPT-2)
  kNonParametric,  // no learned parameters (OLMo 1: LayerNorm without affine)
};

struct NormSpec {
  NormKind kind{NormKind::kRmsNorm};
  bool bias{false};  // only meaningful for kLayerNorm
};

// Multi-head latent attention (DeepSeek-V2 paper, sec. 2.1.2; DeepSeek-V3 modeling file):
// queries and keys/values go through low-rank bottlenecks with their own RMSNorms.
struct LatentAttentionSpec {
  std::int64_t q_lora_rank{0};  // 0: no query compression (a plain q_proj, DeepSeek-V2-Lite)
  std::int64_t kv_lora_rank{0};
  std::int64_t qk_nope_head_dim{0};
  std::int64_t qk_rope_head_dim{0};
  std::int64_t v_head_dim{0};
};

struct AttentionSpec {
  std::int64_t num_heads{0};
  std::int64_t num_kv_heads{0};  // == num_heads: MHA; 1: MQA; else GQA
  std::int64_t head_dim{0};      // may differ from hidden / num_heads (Gemma, Qwen3)
  bool qkv_bias{false};          // bias on the q, k, v projections (Qwen2, GPT-2); MLA: on
                                 // q_a_proj (or q_proj) and kv_a_proj_with_mqa
  bool output_bias{false};       // bias on the output projection (GPT-2)
  bool qk_norm{false};           // RMSNorm over head_dim on q and k (Qwen3, Gemma 3)
  // With qk_norm: the norms span the whole projection, heads x head_dim for q and kv_heads x
  // head_dim for k, one weight per channel (OLMo 2 and 3: Olmo2Attention's q_norm / k_norm).
  bool qk_norm_whole{false};
  bool fused_qkv{false};  // one projection for q, k, v (GPT-2 c_attn, Phi-3 qkv_proj)
  bool sinks{false};      // a learned logit per head in the softmax (gpt-oss `sinks`)
  // Gated attention (Qwen3-Next, Qwen3.5: modeling_qwen3_next.py Qwen3NextAttention): q_proj
  // doubled, its second half a per-channel gate, attention output x sigmoid(gate) before o_proj.
  bool output_gate{false};
  // Sliding-window (local) attention: layers attend to the last `sliding_window` tokens
  // (0: every layer is global). With global_every N > 0, layer i is global when (i + 1) % N
  // == 0 (Gemma 2: N = 2, Gemma 3: sliding_window_pattern 6); N = 0: every layer slides
  // (Mistral 7B v0.1, Phi-3).
  std::int64_t sliding_window{0};
  std::int64_t global_every{0};
  // Set: MLA. Then num_kv_heads, head_dim, qk_norm and fused_qkv are unused.
  std::optional<LatentAttentionSpec> latent;
};

// Gated DeltaNet token mixing (Yang, Kautz & Hatamizadeh 2024, "Gated Delta Networks", arXiv
// 2412.06464) in place of attention in every layer but every full_attention_every-th (layer i
// attends when (i + 1) % full_attention_every == 0: Qwen3-Next and Qwen3.5's layer_types, default
// full_attention_interval 4; configuration_qwen3_next.py). Per layer (modeling_qwen3_next.py
// Qwen3NextGatedDeltaNet; Qwen3.5 splits the projections, same count): q and k (key_heads x
// key_head_dim each), v and the output gate z (value_heads x value_head_dim each), beta and alpha
// (value_heads each) from the hidden state, no bias; a depthwise causal conv1d over q, k, v
// (conv_kernel taps, no bias); A_log and dt_bias (value_heads each); a gated RMSNorm over
// value_head_dim; out_proj (value_heads x value_head_dim -> hidden).
//
// A Mamba-2 mixer (Dao & Gu 2024, "Transformers are SSMs", arXiv 2405.21060: the SSD layer) is the
// same shape under other names (transformers' FalconH1Mixer, BambaMixer, GraniteMoeHybridMamba
// Layer): key_heads = n_groups (B and C shared by a group of heads), key_head_dim = d_state,
// value_heads = heads, value_head_dim = head_dim (heads x head_dim = d_ssm, the inner width). Its
// in_proj maps the hidden state to z and x (d_ssm each), B and C (n_groups x d_state each) and dt
// (a value per head); a depthwise conv1d over x, B, C (conv_bias: with a bias); dt_bias, A_log
// and D a value per head; the gated RMSNorm's weight over d_ssm (gated_norm; Falcon-H1's
// mamba_rms_norm false: none, the output gated by silu(z) alone); out_proj (d_ssm -> hidden).
//
// LFM2's short convolution (transformers' Lfm2ShortConv, Liquid AI's LFM2) is the third kind:
// in_proj (hidden -> B, C and x, hidden each), a depthwise causal conv1d of conv_kernel taps over
// B * x, the output C * conv, out_proj (hidden -> hidden); conv_bias biases all three. No state
// beyond the conv's taps: value_heads 1 of value_head_dim hidden, key_heads and key_head_dim 0.
enum class LinearMixer : std::uint8_t { kGatedDelta, kMamba2, kShortConv };

struct LinearAttentionSpec {
  std::int64_t key_heads{0};
  std::int64_t value_heads{0};
  std::int64_t key_head_dim{0};
  std::int64_t value_head_dim{0};
  std::int64_t conv_kernel{4};
  std::int64_t full_attention_every{4};
  bool fused_projections{false};  // Qwen3-Next: in_proj_qkvz, in_proj_ba; Qwen3.5: four
  LinearMixer mixer{LinearMixer::kGatedDelta};
  // Mamba-2 only (above): the biases, the gated norm and the SSD kernel's chunk length.
  bool conv_bias{false};
  bool in_proj_bias{false};
  bool out_proj_bias{false};
  bool gated_norm{true};
  std::int64_t chunk_size{256};
  // Every layer runs the mixer and attention side by side on the same normed input, their outputs
  // summed (Falcon-H1's parallel hybrid, modular_falcon_h1.py FalconH1DecoderLayer).
  bool parallel{false};
  // The layers (0-based, sorted, each once) that attend instead; empty: full_attention_every's
  // rule (Bamba's attn_layer_indices, Granite 4.0's layer_types).
  std::vector<std::int64_t> attention_layers;
};

struct MlpSpec {
  bool gated{true};  // gate * up -> down (SwiGLU/GeGLU); false: up -> act -> down (GPT-2)
  std::int64_t intermediate{0};
  bool bias{false};
  bool fused_gate_up{false};  // one gate_up_proj (Phi-3)
  std::string activation{"silu"};
  // Learned scalars of the activation itself (Apertus' xIELU: alpha_p and alpha_n, one each).
  std::int64_t activation_params{0};
};

// Mixture of experts replacing the dense MLP in some layers.
struct MoeSpec {
  std::int64_t num_experts{0};          // routed experts per MoE layer
  std::int64_t experts_per_token{0};    // top-k
  std::int64_t expert_intermediate{0};  // width of one routed expert (gated MLP)
  // Shared experts are one always-on gated MLP of width shared_intermediate (DeepSeek:
  // n_shared_experts * moe_intermediate_size). 0: none.
  std::int64_t num_shared_experts{0};
  std::int64_t shared_intermediate{0};
  bool router_bias{false};        // bias on the router linear
  bool router_score_bias{false};  // DeepSeek-V3 e_score_correction_bias (num_experts values)
  bool expert_bias{false};  // biased expert matrices (gpt-oss gate_up_proj_bias, down_proj_bias)
  // Gated experts (gate and up, then down); false: up, the activation, down for the routed and
  // the shared experts alike (Nemotron 3's relu2 experts, NemotronHExperts).
  bool gated{true};
  // Qwen2-MoE's shared_expert_gate: a hidden -> 1 linear (no bias) whose sigmoid scales the
  // shared expert's output.
  bool shared_expert_gate{false};
  // Which layers are MoE: layer i is MoE unless i < first_dense_layers, (i + 1) is not a
  // multiple of layer_step (Qwen's decoder_sparse_step), i is not a multiple of layer_freq
  // (DeepSeek's moe_layer_freq) or i is listed in dense_layers (sorted, each once: the parser
  // sorts Qwen's mlp_only_layers, so that a lookup is a binary search).
  std::int64_t first_dense_layers{0};
  std::int64_t layer_step{1};
  std::int64_t layer_freq{1};
  std::vector<std::int64_t> dense_layers;
};

// The vision encoder of a vision-language checkpoint and its projector into the language model.
// Images only: no text token runs through it, so it counts in the total but not in the active
// parameters. Three encoders (docs/vision.md):
// - kSiglip: Gemma 3's SiglipVisionModel + Gemma3MultiModalProjector (Zhai et al. 2023): a fixed
//   image_size, its patches average-pooled to tokens_per_image tokens;
// - kQwen2Vl: Qwen2-VL's ViT (Conv3d patch embedding over temporal_patch frames, LayerNorm,
//   fused qkv, fc1/fc2 MLP) and PatchMerger (spatial_merge^2 patches -> one token, out_hidden);
// - kQwen25Vl: Qwen2.5-VL's: RMSNorm, a gated MLP with biases, windowed attention (window
//   pixels) except in full_attention_layers;
// - kQwen3Vl: Qwen3-VL's (modeling_qwen3_vl.py): Qwen2-VL's block with a biased patch
//   embedding, a learned position table (position_embeddings rows, interpolated to the grid) and
//   a biased fc1/fc2 MLP of intermediate width, the merger, and deepstack_mergers more mergers
//   over intermediate blocks' outputs (added to the language model's first layers' inputs);
// - kMllama: Llama 3.2 Vision's MllamaVisionModel (image_size tiles, up to max_tiles per image,
//   `layers` local and `global_layers` gated global encoder layers, a vision_output_dim-wide
//   output of the last and five intermediate layers) and its projector; the language model reads
//   the image through cross-attention layers that replace self-attention in its stack.
// - kLlama4: Llama 4's Llama4VisionModel (an unfolded linear patch embedding, a class token, a
//   (patches + 1)-row position table, pre and post LayerNorms, biased ViT layers) with its
//   pixel-shuffle adapter (fc1 intermediate -> adapter_in, fc2 adapter_out -> adapter_out) and the
//   multi_modal_projector (output_dim -> the language model's width); images are not priced.
// - kPixtral: Mistral 3's PixtralVisionModel (a Conv2d patch embedding without bias, ln_pre, and
//   Mistral-style layers: RMSNorms, q/k/v/o and a gated MLP, none biased, 2-D rotary positions)
//   and Mistral3MultiModalProjector (an RMSNorm, the patch merger's spatial_merge^2 h -> h linear,
//   linear_1 and linear_2 into the language model's width, biased when projector_bias); images
//   are not priced.
enum class VisionKind : std::uint8_t {
  kSiglip,
  kQwen2Vl,
  kQwen25Vl,
  kQwen3Vl,
  kMllama,
  kLlama4,
  kPixtral
};

struct VisionTowerSpec {
  VisionKind kind{VisionKind::kSiglip};
  std::int64_t hidden{0};
  std::int64_t intermediate{0};
  std::int64_t layers{0};
  std::int64_t heads{0};
  std::int64_t image_size{0};  // SigLIP: the fixed input side; Qwen: 0 (any size)
  std::int64_t patch_size{0};
  std::int64_t channels{3};
  bool pooling_head{false};          // SiglipMultiheadAttentionPoolingHead (vision_use_head)
  std::int64_t tokens_per_image{0};  // SigLIP: mm_tokens_per_image (256)
  std::int64_t temporal_patch{1};    // Qwen: frames per patch (2)
  std::int64_t spatial_merge{1};     // Qwen: patches merged per side into one token (2)
  std::int64_t out_hidden{0};        // Qwen: the merger's output (the language model's width)
  std::int64_t window{0};            // Qwen2.5-VL: the attention window, pixels (112)
  std::vector<std::int64_t> full_attention_layers;  // Qwen2.5-VL: fullatt_block_indexes
  std::int64_t position_embeddings{0};  // Qwen3-VL: num_position_embeddings (2304, a 48 x 48 grid)
  std::int64_t deepstack_mergers{0};    // Qwen3-VL: deepstack_visual_indexes, one merger each
  std::int64_t global_layers{0};        // Mllama: num_global_layers (gated, after the local ones)
  std::int64_t max_tiles{0};            // Mllama: max_num_tiles per image (all run, padded)
  std::int64_t aspect_ratio_ids{0};     // Mllama: max_aspect_ratio_id + 1 tile-embedding rows
  std::int64_t output_dim{0};           // Mllama, Llama 4: vision_output_dim, the projector's input
  std::int64_t adapter_in{0};           // Llama 4: projector_input_dim (the adapter's fc1 output)
  std::int64_t adapter_out{0};          // Llama 4: projector_output_dim (the adapter's fc2)
  std::int64_t extra_token_rows{0};     // Mllama: embed_tokens rows past vocab_size (8)
  bool projector_bias{false};           // Pixtral: multimodal_projector_bias
  std::int64_t feature_layers{1};       // Pixtral: vision_feature_layer's count (concatenated)
  // Mllama: the language model's layers (0-based) that cross-attend to the image.
  std::vector<std::int64_t> cross_attention_layers;
};

struct ModelArchitecture {
  std::string model_type;  // the config.json model_type ("llama", "deepseek_v3", ...)
  std::string name;        // a display name (preset or folder); may be empty
  std::int64_t hidden{0};
  std::int64_t num_layers{0};
  std::int64_t vocab{0};
  std::int64_t max_positions{0};  // context length the model was built for
  bool learned_positions{false};  // a max_positions x hidden position table (GPT-2 wpe)
  // Rows of that table beyond max_positions (OPT's OPTLearnedPositionalEmbedding: 2, a
  // fairseq padding offset).
  std::int64_t position_offset{0};
  bool tie_embeddings{false};  // LM head shares the input embedding matrix
  bool head_bias{false};       // a bias on the LM head (Phi-1.5 / Phi-2's lm_head)
  // 0: the LM head over the vocabulary. n > 0: a score head of n outputs instead, as a reward or
  // value model has (transformers' AutoModelForSequenceClassification: `score`, a Linear(hidden,
  // num_labels, bias=False) over every position; TRL's PPO reads one value per token from it).
  std::int64_t head_outputs{0};
  NormSpec norm;
  // 2 (pre-attention, pre-MLP); Gemma 2/3: 4 (+ post-attn, post-MLP); Phi: 1 (attention and MLP
  // in parallel from one norm)
  int norms_per_layer{2};
  AttentionSpec attention;
  MlpSpec mlp;  // the dense MLP (all layers of a dense model; MoE models' dense layers)
  std::optional<MoeSpec> moe;
  // DeepSeek-V3 multi-token-prediction modules (num_nextn_predict_layers). Each holds an
  // embedding and an LM head (copies of the main ones in the checkpoint), enorm, hnorm,
  // eh_proj (2h -> h), one decoder layer of the last layer's kind, and a final norm.
  std::int64_t mtp_layers{0};
  // The MTP modules share the main embedding and head instead of holding copies (Qwen3-Next,
  // Qwen3.5: mtp_use_dedicated_embeddings false), and their decoder layer attends fully.
  bool mtp_shares_embeddings{false};
  std::optional<LinearAttentionSpec> linear_attention;  // Gated DeltaNet layers (above)
  // Decoder layers with a token mixer and no MLP or MoE block after it (nor its norm): the last
  // mlp_free_layers of the stack. Nemotron-H's blocks are one sublayer each (its
  // hybrid_override_pattern: M a Mamba-2 mixer, * attention, - an MLP); io pairs each MLP with a
  // mixer into one decoder layer and leaves the mixers beyond the MLPs' count without one. Every
  // count and the average layer's rows are order-free; only the pipeline's stage split sees the
  // order (docs/models.md, "Nemotron-H").
  std::int64_t mlp_free_layers{0};
  std::optional<VisionTowerSpec> vision;  // multimodal checkpoints (Gemma 3 4B and up)
};

// The head's output width: the vocabulary for an LM head, num_labels for a score head.
[[nodiscard]] constexpr std::int64_t head_width(const ModelArchitecture& arch) noexcept {
  return arch.head_outputs > 0 ? arch.head_outputs : arch.vocab;
}

// Everything wrong with an architecture, one message per problem ("hidden: 0 must be > 0").
// Empty when it is consistent. Field names are the struct's; io maps them to config keys.
[[nodiscard]] std::vector<std::string> architecture_problems(const ModelArchitecture& arch);

// Whether decoder layer `layer` (0-based) uses the MoE block instead of the dense MLP.
[[nodiscard]] bool is_moe_layer(const ModelArchitecture& arch, std::int64_t layer);
[[nodiscard]] std::int64_t moe_layer_count(const ModelArchitecture& arch);

// Whether decoder layer `layer` mixes tokens with a linear mixer (Gated DeltaNet, Mamba-2), and
// how many layers do; whether it attends (every layer of a model without one, every layer of a
// parallel hybrid, the rest of the others), and how many do.
// Whether decoder layer `layer` has an MLP (dense or MoE): all but the last mlp_free_layers; how
// many do.
[[nodiscard]] bool has_mlp(const ModelArchitecture& arch, std::int64_t layer) noexcept;
[[nodiscard]] std::int64_t mlp_layer_count(const ModelArchitecture& arch) noexcept;

[[nodiscard]] bool is_linear_attention_layer(const ModelArchitecture& arch, std::int64_t layer);
[[nodiscard]] std::int64_t linear_attention_layer_count(const ModelArchitecture& arch);
[[nodiscard]] bool is_attention_layer(const ModelArchitecture& arch, std::int64_t layer);
[[nodiscard]] std::int64_t attention_layer_count(const ModelArchitecture& arch);

// The attention span of layer `layer` in tokens for a sequence of `seq_len`: the sliding
// window where the layer uses one, else the whole sequence.
[[nodiscard]] std::int64_t attention_span(const ModelArchitecture& arch, std::int64_t layer,
                                          std::int64_t seq_len);

// The display family of a model_type ("llama" -> "Llama", "deepseek_v3" -> "DeepSeek-V3").
[[nodiscard]] std::string family_name(const std::string& model_type);

}  // namespace tb
