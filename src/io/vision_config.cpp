// config.json's vision_config -> VisionTowerSpec, one reader per encoder, each with its
// transformers config class's defaults (configuration_<family>.py).
#include "vision_config.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tb::io {
namespace {

using Json = nlohmann::json;
using Fields = FieldReader<JsonSource>;

// Gemma3Config.vision_config, a SiglipVisionConfig. Its dimensions are required (the
// SiglipVisionConfig defaults describe a 224-pixel base model, not Gemma's tower); num_channels
// defaults to 3, num_attention_heads to 12 and vision_use_head to SiglipVisionConfig's True.
// mm_tokens_per_image (Gemma3Config, default 256) sits beside it at the top level.
VisionTowerSpec read_siglip(Fields& f, Fields& top) {
  VisionTowerSpec v;
  v.kind = VisionKind::kSiglip;
  v.hidden = f.required("hidden_size");
  v.intermediate = f.required("intermediate_size");
  v.layers = f.required("num_hidden_layers");
  v.heads = f.optional("num_attention_heads", 12);
  v.image_size = f.required("image_size");
  v.patch_size = f.required("patch_size");
  v.channels = f.optional("num_channels", 3);
  v.pooling_head = f.flag("vision_use_head", true);
  v.tokens_per_image = top.optional("mm_tokens_per_image", 256);
  return v;
}

// The keys both Qwen encoders' config classes share, with their defaults: num_heads 16,
// in_channels (in_chans in the released configs) 3, patch_size 14, spatial_merge_size 2,
// temporal_patch_size 2.
void read_qwen_patches(Fields& f, VisionTowerSpec& v) {
  v.heads = f.optional("num_heads", 16);
  v.channels = f.optional("in_channels", f.optional("in_chans", 3));
  v.patch_size = f.optional("patch_size", 14);
  v.spatial_merge = f.optional("spatial_merge_size", 2);
  v.temporal_patch = f.optional("temporal_patch_size", 2);
}

// Qwen2VLVisionConfig: depth 32, embed_dim 1280, hidden_size 3584 (the merger's output),
// mlp_ratio 4, num_heads 16, in_channels (in_chans in the released configs) 3, patch_size 14,
// spatial_merge_size 2, temporal_patch_size 2.
VisionTowerSpec read_qwen2_vl(Fields& f) {
  VisionTowerSpec v;
  v.kind = VisionKind::kQwen2Vl;
  v.layers = f.optional("depth", 32);
  v.hidden = f.optional("embed_dim", 1280);
  v.out_hidden = f.optional("hidden_size", 3584);
  const std::int64_t ratio = f.optional("mlp_ratio", 4);
  v.intermediate =
      ratio >= 1 && ratio <= 64 && v.hidden >= 0 && v.hidden <= 10'000'000 ? v.hidden * ratio : 0;
  if (v.intermediate == 0) {
    f.fail(fmt::format("mlp_ratio: {} gives no MLP width for embed_dim {}", ratio, v.hidden));
  }
  read_qwen_patches(f, v);
  return v;
}

// A list of block indexes (fullatt_block_indexes, deepstack_visual_indexes), sorted, each once;
// `defaults` when the key is absent.
std::vector<std::int64_t> block_indexes(Fields& f, const char* key,
                                        std::vector<std::int64_t> defaults) {
  std::vector<std::int64_t> out = f.present(key) ? f.integer_list(key) : std::move(defaults);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Qwen2_5_VLVisionConfig: depth 32, hidden_size 3584 (1280 in every released config),
// intermediate_size 3420, num_heads 16, in_channels 3, patch_size 14, spatial_merge_size 2,
// temporal_patch_size 2, window_size 112, out_hidden_size 3584, fullatt_block_indexes
// [7, 15, 23, 31].
VisionTowerSpec read_qwen2_5_vl(Fields& f) {
  VisionTowerSpec v;
  v.kind = VisionKind::kQwen25Vl;
  v.layers = f.optional("depth", 32);
  v.hidden = f.optional("hidden_size", 3584);
  v.intermediate = f.optional("intermediate_size", 3420);
  read_qwen_patches(f, v);
  v.window = f.optional("window_size", 112);
  v.out_hidden = f.optional("out_hidden_size", 3584);
  v.full_attention_layers = block_indexes(f, "fullatt_block_indexes", {7, 15, 23, 31});
  return v;
}

// Qwen3VLVisionConfig (configuration_qwen3_vl.py): depth 27, hidden_size 1152, intermediate_size
// 4304, num_heads 16, in_channels 3, patch_size 16, spatial_merge_size 2, temporal_patch_size 2,
// out_hidden_size 3584, num_position_embeddings 2304, deepstack_visual_indexes [8, 16, 24].
VisionTowerSpec read_qwen3_vl(Fields& f) {
  VisionTowerSpec v;
  v.kind = VisionKind::kQwen3Vl;
  v.layers = f.optional("depth", 27);
  v.hidden = f.optional("hidden_size", 1152);
  v.intermediate = f.optional("intermediate_size", 4304);
  read_qwen_patches(f, v);
  v.patch_size = f.optional("patch_size", 16);
  v.out_hidden = f.optional("out_hidden_size", 3584);
  v.position_embeddings = f.optional("num_position_embeddings", 2304);
  const std::vector<std::int64_t> deepstack =
      block_indexes(f, "deepstack_visual_indexes", {8, 16, 24});
  if (!deepstack.empty() && (deepstack.front() < 0 || deepstack.back() >= v.layers)) {
    f.fail(fmt::format("deepstack_visual_indexes: {} is not a block (0..{})",
                       deepstack.front() < 0 ? deepstack.front() : deepstack.back(), v.layers - 1));
  }
  v.deepstack_mergers = static_cast<std::int64_t>(deepstack.size());
  return v;
}

// MllamaVisionConfig (configuration_mllama.py): hidden_size 1280, intermediate_size 5120,
// num_hidden_layers 32, num_global_layers 8, attention_heads 16, num_channels 3, image_size 448
// (560 in the released configs), patch_size 14, max_num_tiles 4, vision_output_dim 7680, and
// eight supported_aspect_ratios (max_aspect_ratio_id = their count).
VisionTowerSpec read_mllama(Fields& f) {
  VisionTowerSpec v;
  v.kind = VisionKind::kMllama;
  v.hidden = f.optional("hidden_size", 1280);
  v.intermediate = f.optional("intermediate_size", 5120);
  v.layers = f.optional("num_hidden_layers", 32);
  v.global_layers = f.optional("num_global_layers", 8);
  v.heads = f.optional("attention_heads", 16);
  v.channels = f.optional("num_channels", 3);
  v.image_size = f.optional("image_size", 448);
  v.patch_size = f.optional("patch_size", 14);
  v.max_tiles = f.optional("max_num_tiles", 4);
  v.output_dim = f.optional("vision_output_dim", 7680);
  std::int64_t ratios = 8;
  if (const Json* list = f.find("supported_aspect_ratios"); list != nullptr && list->is_array()) {
    ratios = static_cast<std::int64_t>(list->size());
  } else {
    ratios = f.optional("max_aspect_ratio_id", 8);
  }
  v.aspect_ratio_ids = ratios + 1;
  return v;
}

// Llama4VisionConfig (configuration_llama4.py): hidden_size 768, intermediate_size 5632,
// num_hidden_layers 34, num_attention_heads 16, num_channels 3, image_size 448, patch_size 14,
// vision_output_dim 7680, projector_input_dim 4096, projector_output_dim 4096. The released
// configs state every dimension (Scout and Maverick: 1408 wide, 336-pixel tiles, output 4096).
VisionTowerSpec read_llama4_vision(Fields& f) {
  VisionTowerSpec v;
  v.kind = VisionKind::kLlama4;
  v.hidden = f.optional("hidden_size", 768);
  v.intermediate = f.optional("intermediate_size", 5632);
  v.layers = f.optional("num_hidden_layers", 34);
  v.heads = f.optional("num_attention_heads", 16);
  v.channels = f.optional("num_channels", 3);
  v.image_size = f.optional("image_size", 448);
  v.patch_size = f.optional("patch_size", 14);
  v.output_dim = f.optional("vision_output_dim", 7680);
  v.adapter_in = f.optional("projector_input_dim", 4096);
  v.adapter_out = f.optional("projector_output_dim", 4096);
  return v;
}

// Mistral3Config.vision_config, a PixtralVisionConfig (configuration_pixtral.py): hidden_size
// 1024, intermediate_size 4096, num_hidden_layers 24, num_attention_heads 16, num_channels 3,
// image_size 1024, patch_size 16 (Mistral3Config's own default tower: patch 14, image 1540).
// Beside it at the top level: spatial_merge_size 2, multimodal_projector_bias False and
// vision_feature_layer -1 (a list concatenates that many layers' outputs).
VisionTowerSpec read_pixtral(Fields& f, Fields& top) {
  VisionTowerSpec v;
  v.kind = VisionKind::kPixtral;
  v.hidden = f.optional("hidden_size", 1024);
  v.intermediate = f.optional("intermediate_size", 4096);
  v.layers = f.optional("num_hidden_layers", 24);
  v.heads = f.optional("num_attention_heads", 16);
  v.channels = f.optional("num_channels", 3);
  v.image_size = f.optional("image_size", 1024);
  v.patch_size = f.optional("patch_size", 16);
  v.spatial_merge = top.optional("spatial_merge_size", 2);
  v.projector_bias = top.flag("multimodal_projector_bias", false);
  if (const Json* layers = top.find("vision_feature_layer");
      layers != nullptr && layers->is_array()) {
    v.feature_layers = static_cast<std::int64_t>(layers->size());
  }
  return v;
}

}  // namespace

std::optional<VisionTowerSpec> read_vision_config(FieldReader<JsonSource>& top, VisionKind kind,
                                                  const std::string& model_type,
                                                  std::vector<std::string>& problems) {
  const Json* vision = top.find("vision_config");
  if (vision == nullptr) {
    // Qwen's and Mllama's config classes build the vision config from their defaults when it
    // is absent.
    if (kind == VisionKind::kSiglip) {
      problems.push_back(
          fmt::format("vision_config: missing (an object; model_type {})", model_type));
      return std::nullopt;
    }
  } else if (!vision->is_object()) {
    problems.push_back("vision_config: must be an object");
    return std::nullopt;
  }
  static const Json kEmpty = Json::object();
  Fields f(vision != nullptr ? *vision : kEmpty, "vision_config", problems);
  switch (kind) {
    case VisionKind::kSiglip:
      return read_siglip(f, top);
    case VisionKind::kQwen2Vl:
      return read_qwen2_vl(f);
    case VisionKind::kQwen25Vl:
      return read_qwen2_5_vl(f);
    case VisionKind::kQwen3Vl:
      return read_qwen3_vl(f);
    case VisionKind::kMllama:
      return read_mllama(f);
    case VisionKind::kLlama4:
      return read_llama4_vision(f);
    case VisionKind::kPixtral:
      return read_pixtral(f, top);
  }
  return std::nullopt;
}

}  // namespace tb::io
