// Exact parameter counts, one named formula per building block. Sources are the Hugging Face
// transformers modeling files (modeling_<family>.py) that define each module's weights, and
// the papers where they introduced the block; docs/models.md lists them per family.
#include "trainbudget/model/param_count.hpp"

#include <cassert>

#include "trainbudget/spec/checked.hpp"

namespace tb {
namespace {

std::int64_t linear(std::int64_t in, std::int64_t out, bool bias) {
  return checked_add(checked_mul(in, out), bias ? out : 0);
}

// A gated MLP (gate_proj, up_proj: hidden -> width; down_proj: width -> hidden). Shazeer 2020
// (GLU variants), as in LlamaMLP / MistralMLP / Qwen2MLP / GemmaMLP / Phi3MLP (fused gate_up_proj,
// same count) and every MoE expert here (MixtralBlockSparseTop2MLP w1/w3/w2, Qwen3MoeMLP,
// DeepseekV3MLP), none of which has biases.
std::int64_t gated_mlp(std::int64_t hidden, std::int64_t width, bool bias) {
  return checked_add(checked_mul(2, linear(hidden, width, bias)), linear(width, hidden, bias));
}

// Queries, keys and values with their own heads: Vaswani et al. 2017 sec. 3.2.2, with grouped
// keys/values (Ainslie et al. 2023, GQA: num_kv_heads key/value heads shared by query groups).
// LlamaAttention: q_proj hidden -> heads*head_dim, k_proj/v_proj hidden -> kv_heads*head_dim,
// o_proj heads*head_dim -> hidden; biases per config.attention_bias (Qwen2: q/k/v biased,
// o_proj not). GPT-2's fused c_attn (hidden -> 3*hidden, biased) and Phi-3's qkv_proj hold
// the same weights concatenated. Qwen3Attention / Gemma3Attention add q_norm and k_norm, an
// RMSNorm over head_dim each.
std::int64_t standard_attention_params(const ModelArchitecture& arch) {
  const AttentionSpec& a = arch.attention;
  const std::int64_t q = checked_mul(a.num_heads, a.head_dim);
  const std::int64_t kv = checked_mul(a.num_kv_heads, a.head_dim);
  // Qwen3NextAttention's q_proj: hidden -> heads * head_dim * 2, queries and their gate.
  const std::int64_t n = checked_add(linear(arch.hidden, a.output_gate ? 2 * q : q, a.qkv_bias),
                                     checked_mul(2, linear(arch.hidden, kv, a.qkv_bias)),
                                     linear(q, arch.hidden, a.output_bias));
  // OLMo 2's q_norm and k_norm are as wide as q and k (Olmo2Attention).
  const std::int64_t norm_width = a.qk_norm_whole ? checked_add(q, kv) : checked_mul(2, a.head_dim);
  const std::int64_t normed = a.qk_norm ? checked_add(n, norm_width) : n;
  // gpt-oss (modeling_gpt_oss.py, GptOssAttention.sinks): one learned logit per query head,
  // joined to each row's softmax ("attention sinks", gpt-oss model card sec. 2.1).
  return a.sinks ? checked_add(normed, a.num_heads) : normed;
}

// Multi-head latent attention: DeepSeek-V2 paper (arXiv:2405.04434) sec. 2.1.2-2.1.3, as
// DeepseekV3Attention builds it: q_a_proj hidden -> q_lora_rank, q_a_layernorm (RMSNorm,
// q_lora_rank), q_b_proj q_lora_rank -> heads*(nope+rope) (or a single q_proj hidden ->
// heads*(nope+rope) when q_lora_rank is null); kv_a_proj_with_mqa hidden -> kv_lora_rank +
// rope (the decoupled RoPE key is shared by all heads), kv_a_layernorm (kv_lora_rank),
// kv_b_proj kv_lora_rank -> heads*(nope+v); o_proj heads*v -> hidden. q_a_proj,
// kv_a_proj_with_mqa and o_proj carry config.attention_bias; q_b_proj and kv_b_proj never do.
std::int64_t latent_attention_params(const ModelArchitecture& arch) {
  const AttentionSpec& a = arch.attention;
  const LatentAttentionSpec& m = *a.latent;
  const std::int64_t q_width =
      checked_mul(a.num_heads, checked_add(m.qk_nope_head_dim, m.qk_rope_head_dim));
  const std::int64_t query = m.q_lora_rank > 0
                                 ? checked_add(linear(arch.hidden, m.q_lora_rank, a.qkv_bias),
                                               m.q_lora_rank, linear(m.q_lora_rank, q_width, false))
                                 : linear(arch.hidden, q_width, false);
  const std::int64_t key_value = checked_add(
      linear(arch.hidden, checked_add(m.kv_lora_rank, m.qk_rope_head_dim), a.qkv_bias),
      m.kv_lora_rank,
      linear(m.kv_lora_rank,
             checked_mul(a.num_heads, checked_add(m.qk_nope_head_dim, m.v_head_dim)), false));
  const std::int64_t output =
      linear(checked_mul(a.num_heads, m.v_head_dim), arch.hidden, a.output_bias);
  return checked_add(query, key_value, output);
}

// The input embedding's rows: the vocabulary, plus Mllama's eight learnable_embedding rows
// (MllamaTextModel.embed_tokens = nn.Embedding(vocab_size + 8, hidden_size)).
std::int64_t token_rows(const ModelArchitecture& arch) {
  return checked_add(arch.vocab, arch.vision ? arch.vision->extra_token_rows : 0);
}

// Input embeddings: the token table (vocab x hidden), plus GPT-2's learned position table
// (n_positions x hidden, GPT2Model.wpe; Radford et al. 2019 keep GPT-1's learned positions),
// with OPT's 2 offset rows (modeling_opt.py, OPTLearnedPositionalEmbedding).
std::int64_t input_embedding_params(const ModelArchitecture& arch) {
  const std::int64_t n = checked_mul(token_rows(arch), arch.hidden);
  if (!arch.learned_positions) return n;
  return checked_add(
      n, checked_mul(checked_add(arch.max_positions, arch.position_offset), arch.hidden));
}

// The LM head (hidden -> vocab, biased in Phi only); none of its own when tied
// (Press & Wolf 2017; config.tie_word_embeddings). A score head is hidden -> num_labels, never
// tied.
std::int64_t lm_head_params(const ModelArchitecture& arch) {
  if (arch.head_outputs > 0) return checked_mul(arch.head_outputs, arch.hidden);
  if (arch.tie_embeddings) return 0;
  // PhiForCausalLM.lm_head = nn.Linear(hidden, vocab, bias=True).
  return linear(arch.hidden, arch.vocab, arch.head_bias);
}

std::int64_t routed_experts_active(const ModelArchitecture& arch) {
  return arch.moe ? checked_mul(arch.moe->experts_per_token, expert_params(arch)) : 0;
}

void add(ParamCounts& counts, const char* module, std::int64_t params, std::int64_t active) {
  if (params == 0) return;
  counts.modules.push_back({module, params, active});
}

}  // namespace

// One normalization layer over the hidden size: RMSNorm (Zhang & Sennrich 2019) has a weight
// per channel (Gemma's (1 + w) form included); LayerNorm (Ba et al. 2016) a weight and a bias
// (GPT-2 ln_1/ln_2/ln_f); OLMo 1's LayerNorm without elementwise affine has none
// (modeling_olmo.py OlmoLayerNorm; Groeneveld et al. 2024 sec. 2.1).
std::int64_t norm_params(const ModelArchitecture& arch) {
  switch (arch.norm.kind) {
    case NormKind::kRmsNorm:
      return arch.hidden;
    case NormKind::kLayerNorm:
      return arch.norm.bias ? checked_mul(2, arch.hidden) : arch.hidden;
    case NormKind::kNonParametric:
      return 0;
  }
  return 0;
}

std::int64_t attention_params(const ModelArchitecture& arch) {
  return arch.attention.latent ? latent_attention_params(arch) : standard_attention_params(arch);
}

// The dense MLP: gated (three matrices) or GPT-2's c_fc/c_proj (two, biased; Radford et al.
// 2019 keep GPT-1's 4*hidden width, config.n_inner).
std::int64_t dense_mlp_params(const ModelArchitecture& arch) {
  const MlpSpec& m = arch.mlp;
  // Apertus' XIELUActivation holds alpha_p and alpha_n as parameters (modeling_apertus.py).
  if (m.gated)
    return checked_add(gated_mlp(arch.hidden, m.intermediate, m.bias), m.activation_params);
  return checked_add(linear(arch.hidden, m.intermediate, m.bias),
                     linear(m.intermediate, arch.hidden, m.bias), m.activation_params);
}

// One routed expert: a gated MLP of width moe_intermediate_size without biases (Mixtral:
// Jiang et al. 2024 sec. 2.1, ffn_hidden 14336; Qwen3MoeSparseMoeBlock; DeepseekV3MoE), or
// with them (gpt-oss's GptOssExperts: gate_up_proj_bias 2 x width, down_proj_bias hidden).
// One expert of `width`: gated (gate, up, down), or up and down (MoeSpec::gated false).
std::int64_t expert_mlp(const ModelArchitecture& arch, std::int64_t width, bool bias) {
  if (arch.moe && !arch.moe->gated) {
    return checked_add(linear(arch.hidden, width, bias), linear(width, arch.hidden, bias));
  }
  return gated_mlp(arch.hidden, width, bias);
}

std::int64_t expert_params(const ModelArchitecture& arch) {
  return arch.moe ? expert_mlp(arch, arch.moe->expert_intermediate, arch.moe->expert_bias) : 0;
}

// Shared experts (DeepSeekMoE, Dai et al. 2024 sec. 3.2): DeepseekV3MoE builds them as one
// gated MLP of width moe_intermediate_size * n_shared_experts.
std::int64_t shared_expert_params(const ModelArchitecture& arch) {
  if (!arch.moe || arch.moe->shared_intermediate == 0) return 0;
  // Qwen2-MoE's shared_expert_gate beside it (modeling_qwen2_moe.py: nn.Linear(hidden, 1)).
  return checked_add(expert_mlp(arch, arch.moe->shared_intermediate, false),
                     arch.moe->shared_expert_gate ? linear(arch.hidden, 1, false) : 0);
}

// The router: a hidden -> num_experts linear (Mixtral block_sparse_moe.gate, Qwen3-MoE
// mlp.gate, DeepseekV3TopkRouter.weight), plus DeepSeek-V3's e_score_correction_bias, one
// value per expert for auxiliary-loss-free balancing (DeepSeek-V3 report sec. 2.1.2). That
// bias is in the checkpoint (counted) but is updated by a rule, not by gradients.
std::int64_t router_params(const ModelArchitecture& arch) {
  if (!arch.moe) return 0;
  const MoeSpec& m = *arch.moe;
  return checked_add(linear(arch.hidden, m.num_experts, m.router_bias),
                     m.router_score_bias ? m.num_experts : 0);
}

// A Gated DeltaNet layer's token mixer (modeling_qwen3_next.py Qwen3NextGatedDeltaNet, Yang et
// al. 2024 arXiv:2412.06464; shapes in LinearAttentionSpec): in_proj_qkvz (hidden -> 2 key + 2
// value widths) and in_proj_ba (hidden -> 2 value heads), Qwen3.5's in_proj_qkv, in_proj_z,
// in_proj_b, in_proj_a holding the same; conv1d weight [2 key + value widths, 1, taps] without
// bias; dt_bias and A_log (a value per value head); the gated RMSNorm's weight (value_head_dim);
// out_proj (value width -> hidden). No linear has a bias.
// A Mamba-2 mixer (transformers' FalconH1Mixer, BambaMixer, GraniteMoeHybridMambaLayer; shapes
// in LinearAttentionSpec): in_proj (hidden -> 2 d_ssm + 2 groups x d_state + heads, biased when
// in_proj_bias), the depthwise conv1d over x, B, C ([conv width, 1, taps], biased when
// conv_bias), dt_bias, A_log and D (a value per head), the gated norm's weight over d_ssm when it
// has one, out_proj (d_ssm -> hidden, biased when out_proj_bias).
namespace {
std::int64_t mamba2_params(const ModelArchitecture& arch, const LinearAttentionSpec& g) {
  const std::int64_t inner = checked_mul(g.value_heads, g.value_head_dim);
  const std::int64_t groups = checked_mul(g.key_heads, g.key_head_dim);
  const std::int64_t conv = checked_add(inner, checked_mul(2, groups));
  const std::int64_t in_proj =
      linear(arch.hidden, checked_add(inner, conv, g.value_heads), g.in_proj_bias);
  return checked_add(in_proj, checked_mul(conv, g.conv_kernel), g.conv_bias ? conv : 0,
                     checked_mul(3, g.value_heads), g.gated_norm ? inner : 0,
                     linear(inner, arch.hidden, g.out_proj_bias));
}
// LFM2's short convolution (modeling_lfm2.py Lfm2ShortConv): in_proj (hidden -> 3 x hidden), the
// depthwise conv1d [hidden, 1, taps], out_proj (hidden -> hidden), each biased with conv_bias.
std::int64_t short_conv_params(const ModelArchitecture& arch, const LinearAttentionSpec& g) {
  const std::int64_t h = arch.hidden;
  return checked_add(linear(h, checked_mul(3, h), g.conv_bias), checked_mul(h, g.conv_kernel),
                     g.conv_bias ? h : 0, linear(h, h, g.conv_bias));
}
}  // namespace

std::int64_t linear_attention_params(const ModelArchitecture& arch) {
  if (!arch.linear_attention) return 0;
  const LinearAttentionSpec& g = *arch.linear_attention;
  if (g.mixer == LinearMixer::kMamba2) return mamba2_params(arch, g);
  if (g.mixer == LinearMixer::kShortConv) return short_conv_params(arch, g);
  const std::int64_t key = checked_mul(g.key_heads, g.key_head_dim);
  const std::int64_t value = checked_mul(g.value_heads, g.value_head_dim);
  const std::int64_t conv = checked_add(checked_mul(2, key), value);
  const std::int64_t projections =
      linear(arch.hidden,
             checked_add(checked_mul(2, key), checked_mul(2, value), checked_mul(2, g.value_heads)),
             false);
  return checked_add(projections, checked_mul(conv, g.conv_kernel), checked_mul(2, g.value_heads),
                     g.value_head_dim, linear(value, arch.hidden, false));
}

std::int64_t decoder_layer_params(const ModelArchitecture& arch, bool moe_layer,
                                  bool linear_attention_layer, bool mlp) {
  const bool attends = !linear_attention_layer || arch.linear_attention->parallel;
  const std::int64_t mixer = checked_add(linear_attention_layer ? linear_attention_params(arch) : 0,
                                         attends ? attention_params(arch) : 0);
  const std::int64_t norms = arch.norms_per_layer - (mlp ? 0 : 1);
  const std::int64_t n = checked_add(mixer, checked_mul(norms, norm_params(arch)));
  if (!mlp) return n;
  if (!moe_layer) return checked_add(n, dense_mlp_params(arch));
  return checked_add(n, checked_mul(arch.moe->num_experts, expert_params(arch)),
                     shared_expert_params(arch), router_params(arch));
}

// A DeepSeek-V3 multi-token-prediction module (DeepSeek-V3 report sec. 2.2, Figure 3;
// README_WEIGHTS.md "MTP Modules"): enorm and hnorm (RMSNorm each), eh_proj (2*hidden ->
// hidden, no bias), one decoder layer of the same kind as the main model's last, and
// shared_head.norm. Its embed_tokens and shared_head.head are copies of the main model's and
// are counted apart (ParamCounts::mtp_shared_copies).
std::int64_t mtp_module_params(const ModelArchitecture& arch) {
  const bool moe = is_moe_layer(arch, arch.num_layers - 1);
  return checked_add(checked_mul(3, norm_params(arch)),
                     linear(checked_mul(2, arch.hidden), arch.hidden, false),
                     decoder_layer_params(arch, moe));
}

// SiglipVisionModel (modeling_siglip.py; Zhai et al. 2023, ViT of Dosovitskiy et al. 2021):
// patch_embedding Conv2d(channels -> hidden, kernel = stride = patch, biased), a learned
// position table of (image / patch)^2 rows, per layer two biased LayerNorms, biased q/k/v/out
// projections and a biased fc1/fc2 MLP, and post_layernorm. With vision_use_head, the
// attention-pooling head adds a probe, a biased MultiheadAttention (in_proj 3h x h, out_proj),
// a LayerNorm and another MLP.
//
// Qwen2-VL's Qwen2VisionTransformerPretrainedModel (modeling_qwen2_vl.py): PatchEmbed, a Conv3d
// over temporal_patch x patch x patch without bias; per block norm1/norm2 (LayerNorm with bias),
// attn.qkv (h -> 3h) and attn.proj, biased, and mlp.fc1/fc2 (h -> mlp_ratio h, biased); no
// position table (rotary). Qwen2.5-VL's (modeling_qwen2_5_vl.py): the same with RMSNorms and a
// gated MLP (gate_proj, up_proj, down_proj, all biased). Qwen3-VL's (modeling_qwen3_vl.py):
// Qwen2-VL's block with a biased Conv3d, a learned position table (num_position_embeddings x h) and
// mlp.linear_fc1/linear_fc2 of intermediate_size.
std::int64_t qwen_vision_tower_params(const VisionTowerSpec& v) {
  const std::int64_t h = v.hidden;
  const bool v25 = v.kind == VisionKind::kQwen25Vl;
  const std::int64_t norms = checked_mul(v25 ? 2 : 4, h);
  const std::int64_t mlp =
      v25 ? checked_add(checked_mul(2, linear(h, v.intermediate, true)),
                        linear(v.intermediate, h, true))
          : checked_add(linear(h, v.intermediate, true), linear(v.intermediate, h, true));
  const std::int64_t block =
      checked_add(norms, linear(h, checked_mul(3, h), true), linear(h, h, true), mlp);
  const bool v3 = v.kind == VisionKind::kQwen3Vl;
  const std::int64_t embed =
      checked_add(checked_mul(v.channels, v.temporal_patch, v.patch_size, v.patch_size, h),
                  v3 ? checked_add(h, checked_mul(v.position_embeddings, h)) : 0);
  return checked_add(embed, checked_mul(v.layers, block));
}

// MllamaVisionModel (modeling_mllama.py): patch_embedding Conv2d without bias, class_embedding
// (h), gated_positional_embedding (a (patches + 1) x h table, its gate, and tile_embedding: one
// max_tiles x (patches + 1) x h row per aspect-ratio id), pre_ and post_tile_positional_embedding
// (an aspect_ratio_ids x max_tiles h table and a gate each), layernorm_pre and _post (LayerNorm
// with bias), `layers` local encoder layers (q/k/v/o without bias, a biased fc1/fc2 MLP, two
// biased LayerNorms) and global_layers more with gate_attn and gate_ffn.
std::int64_t mllama_vision_tower_params(const VisionTowerSpec& v) {
  const std::int64_t h = v.hidden;
  const std::int64_t side = v.image_size / v.patch_size;
  const std::int64_t positions = checked_add(checked_mul(side, side), 1);  // + the class token
  const std::int64_t layer = checked_add(checked_mul(4, h, h), linear(h, v.intermediate, true),
                                         linear(v.intermediate, h, true), checked_mul(4, h));
  const std::int64_t tile_table = checked_mul(v.aspect_ratio_ids, v.max_tiles, h);
  return checked_add(checked_add(checked_mul(v.channels, v.patch_size, v.patch_size, h), h,
                                 checked_add(checked_mul(positions, h), 1),
                                 checked_mul(v.aspect_ratio_ids, v.max_tiles, positions, h)),
                     checked_add(checked_mul(2, checked_add(tile_table, 1)), checked_mul(4, h)),
                     checked_add(checked_mul(v.layers, layer),
                                 checked_mul(v.global_layers, checked_add(layer, 2))));
}

// Llama4VisionModel (modeling_llama4.py): patch_embedding (Llama4UnfoldConvolution, a linear of
// channels x patch^2 -> h without bias), class_embedding (h), positional_embedding_vlm
// ((image / patch)^2 + 1 rows of h), layernorm_pre and layernorm_post (LayerNorm with bias),
// `layers` Llama4VisionEncoderLayers (q/k/v/o_proj and a fc1/fc2 MLP, all biased, two biased
// LayerNorms), and vision_adapter.mlp (Llama4VisionMLP2: fc1 intermediate -> adapter_in and fc2
// adapter_out -> adapter_out, no biases).
std::int64_t llama4_vision_tower_params(const VisionTowerSpec& v) {
  const std::int64_t h = v.hidden;
  const std::int64_t side = v.image_size / v.patch_size;
  const std::int64_t positions = checked_add(checked_mul(side, side), 1);
  const std::int64_t layer =
      checked_add(checked_mul(4, linear(h, h, true)), linear(h, v.intermediate, true),
                  linear(v.intermediate, h, true), checked_mul(4, h));
  return checked_add(
      checked_add(linear(checked_mul(v.channels, v.patch_size, v.patch_size), h, false), h,
                  checked_mul(positions, h), checked_mul(4, h)),
      checked_mul(v.layers, layer),
      checked_add(linear(v.intermediate, v.adapter_in, false),
                  linear(v.adapter_out, v.adapter_out, false)));
}

// PixtralVisionModel (modeling_pixtral.py): patch_conv (Conv2d channels -> h, kernel and stride
// patch, no bias), ln_pre (RMSNorm h), `layers` PixtralAttentionLayers (attention_norm and
// ffn_norm, RMSNorms of h; q/k/v/o_proj h -> h and a gated MLP h -> intermediate -> h, no biases;
// the 2-D rotary positions hold no parameters).
std::int64_t pixtral_vision_tower_params(const VisionTowerSpec& v) {
  const std::int64_t h = v.hidden;
  const std::int64_t layer =
      checked_add(checked_mul(2, h), checked_mul(4, h, h), checked_mul(3, h, v.intermediate));
  return checked_add(checked_mul(v.channels, v.patch_size, v.patch_size, h), h,
                     checked_mul(v.layers, layer));
}

std::int64_t vision_tower_params(const ModelArchitecture& arch) {
  if (!arch.vision) return 0;
  const VisionTowerSpec& v = *arch.vision;
  if (v.kind == VisionKind::kPixtral) return pixtral_vision_tower_params(v);
  if (v.kind == VisionKind::kMllama) return mllama_vision_tower_params(v);
  if (v.kind == VisionKind::kLlama4) return llama4_vision_tower_params(v);
  if (v.kind != VisionKind::kSiglip) return qwen_vision_tower_params(v);
  const std::int64_t h = v.hidden;
  const std::int64_t side = v.image_size / v.patch_size;
  const std::int64_t patches = checked_mul(side, side);
  const std::int64_t mlp =
      checked_add(linear(h, v.intermediate, true), linear(v.intermediate, h, true));
  const std::int64_t layer =
      checked_add(checked_mul(4, h), checked_mul(4, linear(h, h, true)), mlp);
  const std::int64_t n =
      checked_add(linear(checked_mul(v.channels, v.patch_size, v.patch_size), h, true),
                  checked_mul(patches, h), checked_mul(v.layers, layer), checked_mul(2, h));
  if (!v.pooling_head) return n;
  return checked_add(n, h, linear(h, checked_mul(3, h), true), linear(h, h, true),
                     checked_mul(2, h), mlp);
}

// Gemma3MultiModalProjector: mm_input_projection_weight (vision hidden x text hidden, no bias)
// and mm_soft_emb_norm, an RMSNorm over the vision hidden size.
// Qwen2-VL's PatchMerger: ln_q (LayerNorm with bias; Qwen2.5-VL: RMSNorm) over the encoder
// width, then mlp.0 (spatial_merge^2 h -> the same, biased), GELU, mlp.2 (-> out_hidden, biased).
std::int64_t vision_projector_params(const ModelArchitecture& arch) {
  if (!arch.vision) return 0;
  const VisionTowerSpec& v = *arch.vision;
  if (v.kind == VisionKind::kSiglip) {
    return checked_add(checked_mul(v.hidden, arch.hidden), v.hidden);
  }
  // MllamaForConditionalGeneration.multi_modal_projector: Linear(vision_output_dim, hidden),
  // biased.
  if (v.kind == VisionKind::kMllama) return linear(v.output_dim, arch.hidden, true);
  // Llama4MultiModalProjector.linear_1: vision_output_dim -> hidden, no bias.
  if (v.kind == VisionKind::kLlama4) return linear(v.output_dim, arch.hidden, false);
  // Mistral3MultiModalProjector (modeling_mistral3.py): norm (RMSNorm of the vision width),
  // patch_merger.merging_layer (spatial_merge^2 h -> h, no bias), linear_1 (h x the feature
  // layers -> hidden) and linear_2 (hidden -> hidden), biased when multimodal_projector_bias.
  if (v.kind == VisionKind::kPixtral) {
    return checked_add(
        v.hidden, linear(checked_mul(v.hidden, v.spatial_merge, v.spatial_merge), v.hidden, false),
        linear(checked_mul(v.hidden, v.feature_layers), arch.hidden, v.projector_bias),
        linear(arch.hidden, arch.hidden, v.projector_bias));
  }
  const std::int64_t merged = checked_mul(v.hidden, v.spatial_merge, v.spatial_merge);
  const std::int64_t mlp =
      checked_add(linear(merged, merged, true), linear(merged, v.out_hidden, true));
  const std::int64_t merger =
      checked_add(checked_mul(v.kind == VisionKind::kQwen25Vl ? 1 : 2, v.hidden), mlp);
  // Qwen3-VL's deepstack_merger_list: the same merger with its LayerNorm after the 2 x 2 shuffle
  // (use_postshuffle_norm: over the merged width), one per deepstack_visual_indexes entry.
  return checked_add(merger,
                     checked_mul(v.deepstack_mergers, checked_add(checked_mul(2, merged), mlp)));
}

std::int64_t cross_attention_extra_params(const ModelArchitecture& arch) {
  if (!arch.vision) return 0;
  const auto layers = static_cast<std::int64_t>(arch.vision->cross_attention_layers.size());
  return checked_mul(layers, checked_add(checked_mul(2, arch.attention.head_dim), 2));
}

ParamCounts count_params(const ModelArchitecture& arch) {
  assert(architecture_problems(arch).empty());
  ParamCounts c;
  const std::int64_t moe_layers = moe_layer_count(arch);
  const std::int64_t dense_layers = arch.num_layers - moe_layers;

  c.input_embedding = input_embedding_params(arch);
  c.lm_head = lm_head_params(arch);
  c.embedding = checked_add(c.input_embedding, c.lm_head);

  const std::int64_t token_table = checked_mul(token_rows(arch), arch.hidden);
  add(c, "embed_tokens", token_table, token_table);
  add(c, "embed_positions", c.input_embedding - token_table, c.input_embedding - token_table);
  const std::int64_t gated_delta_layers = linear_attention_layer_count(arch);
  const std::int64_t attention = checked_mul(attention_layer_count(arch), attention_params(arch));
  add(c, "attention", attention, attention);
  const std::int64_t gated_delta = checked_mul(gated_delta_layers, linear_attention_params(arch));
  add(c, "linear_attention", gated_delta, gated_delta);
  const std::int64_t mlp = checked_mul(dense_layers - arch.mlp_free_layers, dense_mlp_params(arch));
  add(c, "mlp", mlp, mlp);
  if (arch.moe) {
    add(c, "routed_experts", checked_mul(moe_layers, arch.moe->num_experts, expert_params(arch)),
        checked_mul(moe_layers, routed_experts_active(arch)));
    const std::int64_t shared = checked_mul(moe_layers, shared_expert_params(arch));
    add(c, "shared_experts", shared, shared);
    const std::int64_t router = checked_mul(moe_layers, router_params(arch));
    add(c, "router", router, router);
  }
  // Per-layer norms plus the final one (ln_f / model.norm); a layer without an MLP has no
  // pre-MLP norm.
  const std::int64_t norms = checked_mul(
      checked_add(checked_mul(arch.num_layers, arch.norms_per_layer), 1 - arch.mlp_free_layers),
      norm_params(arch));
  add(c, "norms", norms, norms);
  add(c, "lm_head", c.lm_head, c.lm_head);
  // Mllama's cross-attention layers hold a decoder layer's linears, norms and MLP (counted above
  // with the others) plus q_norm and k_norm (RMSNorm over head_dim) and two scalar gates
  // (cross_attn_attn_gate, cross_attn_mlp_gate; MllamaCrossAttentionDecoderLayer).
  const std::int64_t cross = cross_attention_extra_params(arch);
  add(c, "cross_attention", cross, cross);
  add(c, "vision_tower", vision_tower_params(arch), 0);
  add(c, "multimodal_projector", vision_projector_params(arch), 0);
  c.vision = checked_add(vision_tower_params(arch), vision_projector_params(arch));

  for (const ModuleParams& m : c.modules) {
    c.total = checked_add(c.total, m.params);
    c.active = checked_add(c.active, m.active);
  }
  c.non_embedding = c.total - c.embedding;
  c.mtp = checked_mul(arch.mtp_layers, mtp_module_params(arch));
  c.mtp_shared_copies =
      arch.mtp_shares_embeddings ? 0 : checked_mul(arch.mtp_layers, 2, token_table);
  c.total_with_mtp = checked_add(c.total, c.mtp, c.mtp_shared_copies);
  return c;
}

}  // namespace tb
