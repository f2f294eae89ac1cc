// Consistency checks and layer layout of a ModelArchitecture.
#include "trainbudget/spec/architecture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

namespace tb {
namespace {

// Past any published model by orders of magnitude (the largest dense models have ~1e5 hidden,
// ~1e2 layers, ~1e6 vocab); anything beyond is a typo or a hostile file, and would overflow
// 64-bit parameter arithmetic.
constexpr std::int64_t kMaxDimension = 10'000'000;
// Layers: the deepest published decoders have about 1e2 (Llama 3.1 405B 126, PaLM 118) and
// DeepNet trained 1,000 (Wang et al. 2022); the per-layer work (pipeline stages, the planner's
// spans) grows with the count, so a request declaring 100,000 took 18-41 s (issue 43).
constexpr std::int64_t kMaxLayers = 4'096;
constexpr std::int64_t kMaxExperts = 100'000;
// Context lengths: Llama 4 Scout's 10,485,760 is the longest published; 2^30 leaves room.
constexpr std::int64_t kMaxContext = std::int64_t{1} << 30;

class Checker {
 public:
  void positive(const char* field, std::int64_t value, std::int64_t max = kMaxDimension) {
    if (value <= 0 || value > max) {
      problems_.push_back(fmt::format("{}: {} must be between 1 and {}", field, value, max));
    }
  }
  void non_negative(const char* field, std::int64_t value, std::int64_t max = kMaxDimension) {
    if (value < 0 || value > max) {
      problems_.push_back(fmt::format("{}: {} must be between 0 and {}", field, value, max));
    }
  }
  void fail(std::string message) { problems_.push_back(std::move(message)); }
  [[nodiscard]] bool ok() const { return problems_.empty(); }
  std::vector<std::string> take() { return std::move(problems_); }

 private:
  std::vector<std::string> problems_;
};

void check_attention(const ModelArchitecture& arch, Checker& c) {
  const AttentionSpec& a = arch.attention;
  c.positive("num_attention_heads", a.num_heads);
  if (a.latent) {
    const LatentAttentionSpec& m = *a.latent;
    c.non_negative("q_lora_rank", m.q_lora_rank);
    c.positive("kv_lora_rank", m.kv_lora_rank);
    c.non_negative("qk_nope_head_dim", m.qk_nope_head_dim);
    c.positive("qk_rope_head_dim", m.qk_rope_head_dim);
    c.positive("v_head_dim", m.v_head_dim);
    return;
  }
  c.positive("num_key_value_heads", a.num_kv_heads);
  c.positive("head_dim", a.head_dim);
  if (a.num_heads > 0 && a.num_kv_heads > 0 && a.num_heads % a.num_kv_heads != 0) {
    c.fail(fmt::format("num_key_value_heads: {} does not divide num_attention_heads {}",
                       a.num_kv_heads, a.num_heads));
  }
}

// The attending layers a hybrid lists: each a layer, in order, once.
void check_attention_layers(const ModelArchitecture& arch, const LinearAttentionSpec& g,
                            Checker& c) {
  for (std::size_t i = 0; i < g.attention_layers.size(); ++i) {
    const std::int64_t layer = g.attention_layers[i];
    if (layer < 0 || layer >= arch.num_layers || (i > 0 && layer <= g.attention_layers[i - 1])) {
      c.fail(fmt::format("attention layers: {} is not a layer in order below num_hidden_layers {}",
                         layer, arch.num_layers));
      return;
    }
  }
}

void check_linear_attention(const ModelArchitecture& arch, Checker& c) {
  if (!arch.linear_attention) return;
  const LinearAttentionSpec& g = *arch.linear_attention;
  if (g.mixer == LinearMixer::kShortConv) {
    c.positive("conv_L_cache", g.conv_kernel, 1'024);
    check_attention_layers(arch, g, c);
    return;
  }
  // The config keys of each mixer (Qwen3-Next's; Mamba-2's as Falcon-H1 names them).
  const bool mamba = g.mixer == LinearMixer::kMamba2;
  const char* key_heads = mamba ? "mamba_n_groups" : "linear_num_key_heads";
  const char* value_heads = mamba ? "mamba_n_heads" : "linear_num_value_heads";
  c.positive(key_heads, g.key_heads);
  c.positive(value_heads, g.value_heads);
  c.positive(mamba ? "mamba_d_state" : "linear_key_head_dim", g.key_head_dim);
  c.positive(mamba ? "mamba_d_head" : "linear_value_head_dim", g.value_head_dim);
  c.positive(mamba ? "mamba_d_conv" : "linear_conv_kernel_dim", g.conv_kernel, 1'024);
  c.positive("full_attention_interval", g.full_attention_every, kMaxLayers);
  if (mamba) c.positive("mamba_chunk_size", g.chunk_size, 1 << 20);
  if (g.key_heads > 0 && g.value_heads > 0 && g.value_heads % g.key_heads != 0) {
    c.fail(fmt::format("{}: {} does not divide {} {}", key_heads, g.key_heads, value_heads,
                       g.value_heads));
  }
  check_attention_layers(arch, g, c);
}

void check_moe(const ModelArchitecture& arch, Checker& c) {
  if (!arch.moe) return;
  const MoeSpec& m = *arch.moe;
  c.positive("num_experts", m.num_experts, kMaxExperts);
  c.positive("num_experts_per_tok", m.experts_per_token, kMaxExperts);
  c.positive("moe_intermediate_size", m.expert_intermediate);
  c.non_negative("n_shared_experts", m.num_shared_experts, kMaxExperts);
  c.non_negative("shared_expert_intermediate_size", m.shared_intermediate);
  c.non_negative("first_k_dense_replace", m.first_dense_layers, kMaxLayers);
  c.positive("decoder_sparse_step", m.layer_step, kMaxLayers);
  c.positive("moe_layer_freq", m.layer_freq, kMaxLayers);
  if (!std::is_sorted(m.dense_layers.begin(), m.dense_layers.end()) ||
      std::adjacent_find(m.dense_layers.begin(), m.dense_layers.end()) != m.dense_layers.end()) {
    c.fail("mlp_only_layers: must be sorted, each layer once");
  }
  if (m.num_experts > 0 && m.experts_per_token > m.num_experts) {
    c.fail(fmt::format("num_experts_per_tok: {} exceeds the {} experts", m.experts_per_token,
                       m.num_experts));
  }
  if ((m.num_shared_experts > 0) != (m.shared_intermediate > 0)) {
    c.fail("shared experts: a count and a width must both be given, or neither");
  }
  // Sorted: only the ends can be out of range; one problem says so.
  if (!m.dense_layers.empty() &&
      (m.dense_layers.front() < 0 || m.dense_layers.back() >= arch.num_layers)) {
    const std::int64_t layer =
        m.dense_layers.front() < 0 ? m.dense_layers.front() : m.dense_layers.back();
    c.fail(fmt::format("mlp_only_layers: layer {} is outside 0..{}", layer, arch.num_layers - 1));
  }
}

// An upper bound on the parameter count in floating point, so that absurd but individually
// in-range dimensions cannot overflow the exact 64-bit count.
double rough_param_bound(const ModelArchitecture& arch) {
  const auto d = [](std::int64_t v) { return static_cast<double>(std::max<std::int64_t>(v, 1)); };
  const AttentionSpec& a = arch.attention;
  const double hidden = d(arch.hidden);
  double attention = 4.0 * hidden * d(a.num_heads) * d(a.head_dim);
  if (a.latent) {
    // Every product of latent_attention_params (model/param_count.cpp), without the small sums.
    const LatentAttentionSpec& m = *a.latent;
    const double heads = d(a.num_heads);
    const double q_head = d(m.qk_nope_head_dim) + d(m.qk_rope_head_dim);
    attention = hidden * (d(m.q_lora_rank) + d(m.kv_lora_rank) + d(m.qk_rope_head_dim)) +
                (d(m.q_lora_rank) + hidden) * heads * q_head +
                d(m.kv_lora_rank) * heads * (d(m.qk_nope_head_dim) + d(m.v_head_dim)) +
                heads * d(m.v_head_dim) * hidden;
  }
  if (arch.linear_attention) {
    // Gated DeltaNet's projections (model/param_count.cpp), with room for the small terms.
    const LinearAttentionSpec& g = *arch.linear_attention;
    attention += hidden * (2.0 * d(g.key_heads) * d(g.key_head_dim) +
                           3.0 * d(g.value_heads) * (d(g.value_head_dim) + 1.0)) +
                 d(g.conv_kernel) * (2.0 * d(g.key_heads) * d(g.key_head_dim) +
                                     d(g.value_heads) * d(g.value_head_dim));
  }
  double mlp = d(arch.mlp.intermediate);
  if (arch.moe) {
    mlp += d(arch.moe->expert_intermediate) * d(arch.moe->num_experts) +
           d(arch.moe->shared_intermediate);
  }
  const double layer = attention + hidden * (3.0 * mlp + 8.0);
  double vision = 0.0;
  if (arch.vision) {
    const VisionTowerSpec& v = *arch.vision;
    const double patches =
        v.patch_size > 0 ? d(v.image_size) * d(v.image_size) / (d(v.patch_size) * d(v.patch_size))
                         : 0.0;
    const double merged = d(v.hidden) * d(v.spatial_merge) * d(v.spatial_merge);
    vision = d(v.layers) * d(v.hidden) * (4.0 * d(v.hidden) + 3.0 * d(v.intermediate) + 8.0) +
             (patches + d(v.channels) * d(v.temporal_patch) * d(v.patch_size) * d(v.patch_size)) *
                 d(v.hidden) +
             merged * (merged + d(v.out_hidden)) + d(v.hidden) * d(arch.hidden) +
             d(v.global_layers) * d(v.hidden) * (4.0 * d(v.hidden) + 2.0 * d(v.intermediate)) +
             d(v.aspect_ratio_ids) * d(v.max_tiles) * (patches + 1.0) * d(v.hidden) +
             d(v.output_dim) * d(arch.hidden);
  }
  return vision + d(arch.num_layers + arch.mtp_layers) * layer +
         3.0 * d(arch.vocab) * d(arch.hidden) + d(arch.max_positions) * d(arch.hidden);
}

// Over a thousand times the largest open model (DeepSeek-V3, 6.7e11), and far below the
// 9.2e18 where int64 arithmetic would overflow.
constexpr double kMaxParams = 1e15;

}  // namespace

std::vector<std::string> architecture_problems(const ModelArchitecture& arch) {
  Checker c;
  c.positive("hidden_size", arch.hidden);
  c.positive("num_hidden_layers", arch.num_layers, kMaxLayers);
  c.positive("vocab_size", arch.vocab);
  // A context length; 0 where the family has no learned table and the config leaves it out.
  if (arch.learned_positions) {
    c.positive("max_position_embeddings", arch.max_positions, kMaxContext);
  } else {
    c.non_negative("max_position_embeddings", arch.max_positions, kMaxContext);
  }
  if (arch.norms_per_layer < 0 || arch.norms_per_layer > 8) {
    c.fail(fmt::format("norms_per_layer: {} must be between 0 and 8", arch.norms_per_layer));
  }
  check_attention(arch, c);
  check_linear_attention(arch, c);
  // A dense MLP exists unless every layer is MoE.
  const bool needs_dense_mlp = !arch.moe || moe_layer_count(arch) < arch.num_layers;
  if (needs_dense_mlp || arch.mlp.intermediate != 0) {
    c.positive("intermediate_size", arch.mlp.intermediate);
  }
  check_moe(arch, c);
  if (arch.mlp_free_layers < 0 ||
      arch.mlp_free_layers >= std::max<std::int64_t>(1, arch.num_layers)) {
    c.fail(fmt::format("mlp_free_layers: {} must be from 0 to num_hidden_layers - 1",
                       arch.mlp_free_layers));
  }
  if (arch.vision) {
    const VisionTowerSpec& v = *arch.vision;
    const bool mllama = v.kind == VisionKind::kMllama;
    const bool llama4 = v.kind == VisionKind::kLlama4;
    const bool pixtral = v.kind == VisionKind::kPixtral;
    const bool siglip = v.kind == VisionKind::kSiglip || mllama || llama4 || pixtral;  // same keys
    const bool qwen2 = v.kind == VisionKind::kQwen2Vl;
    c.positive(qwen2 ? "vision_config.embed_dim" : "vision_config.hidden_size", v.hidden);
    c.positive(qwen2 ? "vision_config.mlp_ratio" : "vision_config.intermediate_size",
               v.intermediate);
    c.positive(siglip ? "vision_config.num_hidden_layers" : "vision_config.depth", v.layers,
               kMaxLayers);
    c.positive("vision_config.patch_size", v.patch_size, 4096);
    c.positive(siglip ? "vision_config.num_channels" : "vision_config.in_chans", v.channels, 64);
    const char* heads = mllama   ? "vision_config.attention_heads"
                        : siglip ? "vision_config.num_attention_heads"
                                 : "vision_config.num_heads";
    c.positive(heads, v.heads);
    if (v.heads > 0 && v.hidden % v.heads != 0) {
      c.fail(fmt::format("{}: {} does not divide the width {}", heads, v.heads, v.hidden));
    }
    if (siglip) {
      c.positive("vision_config.image_size", v.image_size);
      if (mllama) {
        c.non_negative("vision_config.num_global_layers", v.global_layers, kMaxLayers);
        c.positive("vision_config.max_num_tiles", v.max_tiles, 64);
        c.positive("vision_config.vision_output_dim", v.output_dim);
        c.positive("vision_config.supported_aspect_ratios", v.aspect_ratio_ids, 1024);
        for (const std::int64_t i : v.cross_attention_layers) {
          if (i < 0 || i >= arch.num_layers) {
            c.fail(fmt::format("cross_attention_layers: {} is not a layer (0..{})", i,
                               arch.num_layers - 1));
            break;
          }
        }
      } else if (llama4) {
        c.positive("vision_config.vision_output_dim", v.output_dim);
        c.positive("vision_config.projector_input_dim", v.adapter_in);
        c.positive("vision_config.projector_output_dim", v.adapter_out);
      } else if (pixtral) {
        c.positive("spatial_merge_size", v.spatial_merge, 64);
        c.positive("vision_feature_layer", v.feature_layers, 1024);
      } else {
        c.positive("mm_tokens_per_image", v.tokens_per_image);
      }
      if (v.patch_size > 0 && v.image_size % v.patch_size != 0) {
        c.fail(fmt::format("vision_config.patch_size: {} does not divide image_size {}",
                           v.patch_size, v.image_size));
      }
    } else {
      c.positive("vision_config.temporal_patch_size", v.temporal_patch, 64);
      c.positive("vision_config.spatial_merge_size", v.spatial_merge, 64);
      c.positive(qwen2 ? "vision_config.hidden_size" : "vision_config.out_hidden_size",
                 v.out_hidden);
      c.non_negative("vision_config.window_size", v.window);
      c.non_negative("vision_config.num_position_embeddings", v.position_embeddings, 1 << 24);
      c.non_negative("vision_config.deepstack_visual_indexes", v.deepstack_mergers, 64);
      for (const std::int64_t i : v.full_attention_layers) {
        if (i < 0 || i >= v.layers) {
          c.fail(fmt::format("vision_config.fullatt_block_indexes: {} is not a block (0..{})", i,
                             v.layers - 1));
          break;
        }
      }
    }
  }
  c.non_negative("num_nextn_predict_layers", arch.mtp_layers, kMaxLayers);
  c.non_negative("sliding_window", arch.attention.sliding_window);
  c.non_negative("sliding_window_pattern", arch.attention.global_every, kMaxLayers);
  if (c.ok() && rough_param_bound(arch) > kMaxParams) {
    c.fail(fmt::format("the dimensions give about {:.3g} parameters, past the {:.0e} accepted",
                       rough_param_bound(arch), kMaxParams));
  }
  return c.take();
}

bool is_moe_layer(const ModelArchitecture& arch, std::int64_t layer) {
  if (!arch.moe || !has_mlp(arch, layer)) return false;
  const MoeSpec& m = *arch.moe;
  if (layer < m.first_dense_layers) return false;
  if (m.layer_step <= 0 || (layer + 1) % m.layer_step != 0) return false;
  if (m.layer_freq <= 0 || layer % m.layer_freq != 0) return false;
  return !std::binary_search(m.dense_layers.begin(), m.dense_layers.end(), layer);
}

std::int64_t moe_layer_count(const ModelArchitecture& arch) {
  if (!arch.moe || arch.num_layers <= 0 || arch.num_layers > kMaxLayers) return 0;
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < arch.num_layers; ++i) n += is_moe_layer(arch, i) ? 1 : 0;
  return n;
}

bool has_mlp(const ModelArchitecture& arch, std::int64_t layer) noexcept {
  return layer < arch.num_layers - arch.mlp_free_layers;
}

std::int64_t mlp_layer_count(const ModelArchitecture& arch) noexcept {
  return std::max<std::int64_t>(0, arch.num_layers - arch.mlp_free_layers);
}

bool is_linear_attention_layer(const ModelArchitecture& arch, std::int64_t layer) {
  if (!arch.linear_attention) return false;
  const LinearAttentionSpec& g = *arch.linear_attention;
  if (g.parallel) return true;
  if (!g.attention_layers.empty()) {
    return !std::binary_search(g.attention_layers.begin(), g.attention_layers.end(), layer);
  }
  const std::int64_t every = g.full_attention_every;
  return every <= 0 || (layer + 1) % every != 0;
}

bool is_attention_layer(const ModelArchitecture& arch, std::int64_t layer) {
  return !arch.linear_attention || arch.linear_attention->parallel ||
         !is_linear_attention_layer(arch, layer);
}

std::int64_t attention_layer_count(const ModelArchitecture& arch) {
  if (!arch.linear_attention || arch.linear_attention->parallel) return arch.num_layers;
  return arch.num_layers - linear_attention_layer_count(arch);
}

std::int64_t linear_attention_layer_count(const ModelArchitecture& arch) {
  if (!arch.linear_attention || arch.num_layers <= 0 || arch.num_layers > kMaxLayers) return 0;
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < arch.num_layers; ++i) {
    n += is_linear_attention_layer(arch, i) ? 1 : 0;
  }
  return n;
}

std::int64_t attention_span(const ModelArchitecture& arch, std::int64_t layer,
                            std::int64_t seq_len) {
  const AttentionSpec& a = arch.attention;
  if (a.sliding_window <= 0) return seq_len;
  const bool global = a.global_every > 0 && (layer + 1) % a.global_every == 0;
  return global ? seq_len : std::min(seq_len, a.sliding_window);
}

std::string family_name(const std::string& model_type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 51> kNames{{
      {"qwen3_next", "Qwen3-Next"},
      {"qwen3_5", "Qwen3.5"},
      {"qwen3_5_moe", "Qwen3.5-MoE"},
      {"gpt2", "GPT-2"},
      {"falcon", "Falcon"},
      {"falcon_h1", "Falcon-H1"},
      {"bamba", "Bamba"},
      {"lfm2", "LFM2"},
      {"lfm2_moe", "LFM2-MoE"},
      {"opt", "OPT"},
      {"gpt_neox", "GPT-NeoX"},
      {"qwen2_vl", "Qwen2-VL"},
      {"qwen2_5_vl", "Qwen2.5-VL"},
      {"qwen3_vl", "Qwen3-VL"},
      {"qwen3_vl_moe", "Qwen3-VL-MoE"},
      {"llama", "Llama"},
      {"mistral", "Mistral"},
      {"mixtral", "Mixtral"},
      {"qwen2", "Qwen2"},
      {"qwen3", "Qwen3"},
      {"qwen3_moe", "Qwen3-MoE"},
      {"qwen2_moe", "Qwen2-MoE"},
      {"gemma", "Gemma"},
      {"gemma2", "Gemma 2"},
      {"gemma3", "Gemma 3"},
      {"gemma3_text", "Gemma 3"},
      {"phi", "Phi"},
      {"phi3", "Phi-3"},
      {"olmo", "OLMo"},
      {"deepseek_v3", "DeepSeek-V3"},
      {"deepseek_v2", "DeepSeek-V2"},
      {"gpt_oss", "gpt-oss"},
      {"seed_oss", "Seed-OSS"},
      {"cohere", "Cohere"},
      {"cohere2", "Cohere 2"},
      {"nemotron", "Nemotron"},
      {"nemotron_h", "Nemotron-H"},
      {"mpt", "MPT"},
      {"arcee", "Arcee"},
      {"smollm3", "SmolLM3"},
      {"granite", "Granite"},
      {"granitemoehybrid", "Granite 4.0 hybrid"},
      {"helium", "Helium"},
      {"exaone4", "EXAONE 4.0"},
      {"hunyuan_v1_dense", "Hunyuan"},
      {"olmo2", "OLMo 2"},
      {"qwen", "Qwen"},
      {"gptj", "GPT-J"},
      {"apertus", "Apertus"},
      {"olmo3", "Olmo 3"},
      {"", "unknown"},
  }};
  for (const auto& [type, name] : kNames) {
    if (type == model_type) return std::string{name};
  }
  return model_type;
}

}  // namespace tb
