// The vision encoders' and projectors' linear layers, named as each family's checkpoint names
// them (modeling_<family>.py module attributes; the names PEFT's target_modules match).
#include <algorithm>
#include <string>
#include <utility>

#include "linear_builder.hpp"

namespace tb::detail {
namespace {

// A ViT encoder layer as SigLIP and Mllama name it: self_attn.{q,k,v,<output>} (h -> h) and
// mlp.fc1 / fc2 (h -> I -> h, biased), under `prefix`; `attention_bias` for the projections.
std::vector<LinearLayer> vit_layer_linears(const ModelArchitecture& arch, const VisionTowerSpec& v,
                                           const std::string& prefix, const char* output,
                                           bool attention_bias) {
  Builder b{arch, {}};
  for (const char* name : {"q_proj", "k_proj", "v_proj", output}) {
    const LinearKind kind = name[0] == 'q'   ? LinearKind::kQuery
                            : name[0] == 'k' ? LinearKind::kKey
                            : name[0] == 'v' ? LinearKind::kValue
                                             : LinearKind::kOutput;
    b.add(name, prefix + "self_attn." + name, kind, LinearPlace::kVision, v.hidden, v.hidden,
          attention_bias, 1, 0);
  }
  b.add("fc1", prefix + "mlp.fc1", LinearKind::kUp, LinearPlace::kVision, v.hidden, v.intermediate,
        true, 1, 0);
  b.add("fc2", prefix + "mlp.fc2", LinearKind::kDown, LinearPlace::kVision, v.intermediate,
        v.hidden, true, 1, 0);
  return std::move(b.out);
}

}  // namespace

std::vector<LinearLayer> vision_tower_linears(const ModelArchitecture& arch) {
  std::vector<LinearLayer> all;
  if (!arch.vision) return all;
  if (arch.vision->kind == VisionKind::kMllama) {
    // MllamaVisionEncoderLayer: self_attn.{q,k,v,o}_proj without bias and mlp.fc1 / fc2, biased,
    // in the local and the global encoder; multi_modal_projector once. The language model's
    // cross-attention layers hold q/k/v/o_proj and the MLP under the same names as its
    // self-attention layers (listed with them above).
    const VisionTowerSpec& v = *arch.vision;
    accumulate(all, vit_layer_linears(arch, v, "vision_model.transformer.layers.", "o_proj", false),
               v.layers + v.global_layers);
    Builder m{arch, {}};
    m.add("multi_modal_projector", "multi_modal_projector", LinearKind::kUp, LinearPlace::kVision,
          v.output_dim, arch.hidden, true, 1, 0);
    accumulate(all, m.out, 1);
  } else if (arch.vision->kind == VisionKind::kLlama4) {
    // Llama4VisionEncoderLayer: self_attn.{q,k,v,o}_proj and mlp.fc1 / fc2, all biased; the
    // unfolded patch embedding's linear, the adapter's fc1 / fc2 and the projector once, no bias.
    const VisionTowerSpec& v = *arch.vision;
    accumulate(all, vit_layer_linears(arch, v, "vision_model.model.layers.", "o_proj", true),
               v.layers);
    Builder m{arch, {}};
    m.add("linear", "vision_model.patch_embedding.linear", LinearKind::kUp, LinearPlace::kVision,
          v.channels * v.patch_size * v.patch_size, v.hidden, false, 1, 0);
    m.add("fc1", "vision_model.vision_adapter.mlp.fc1", LinearKind::kUp, LinearPlace::kVision,
          v.intermediate, v.adapter_in, false, 1, 0);
    m.add("fc2", "vision_model.vision_adapter.mlp.fc2", LinearKind::kDown, LinearPlace::kVision,
          v.adapter_out, v.adapter_out, false, 1, 0);
    m.add("linear_1", "multi_modal_projector.linear_1", LinearKind::kUp, LinearPlace::kVision,
          v.output_dim, arch.hidden, false, 1, 0);
    accumulate(all, m.out, 1);
  } else if (arch.vision->kind == VisionKind::kPixtral) {
    // PixtralAttentionLayer: attention.{q,k,v,o}_proj and feed_forward.{gate,up,down}_proj, none
    // biased (the patch embedding is a Conv2d); Mistral3MultiModalProjector's merging_layer,
    // linear_1 and linear_2 once.
    const VisionTowerSpec& v = *arch.vision;
    const std::string layer = "vision_tower.transformer.layers.";
    Builder b{arch, {}};
    for (const auto& [name, kind] : {std::pair{"q_proj", LinearKind::kQuery},
                                     {"k_proj", LinearKind::kKey},
                                     {"v_proj", LinearKind::kValue},
                                     {"o_proj", LinearKind::kOutput}}) {
      b.add(name, layer + "attention." + name, kind, LinearPlace::kVision, v.hidden, v.hidden,
            false, 1, 0);
    }
    b.add("gate_proj", layer + "feed_forward.gate_proj", LinearKind::kGate, LinearPlace::kVision,
          v.hidden, v.intermediate, false, 1, 0);
    b.add("up_proj", layer + "feed_forward.up_proj", LinearKind::kUp, LinearPlace::kVision,
          v.hidden, v.intermediate, false, 1, 0);
    b.add("down_proj", layer + "feed_forward.down_proj", LinearKind::kDown, LinearPlace::kVision,
          v.intermediate, v.hidden, false, 1, 0);
    accumulate(all, b.out, v.layers);
    Builder m{arch, {}};
    m.add("merging_layer", "multi_modal_projector.patch_merger.merging_layer", LinearKind::kDown,
          LinearPlace::kVision, v.hidden * v.spatial_merge * v.spatial_merge, v.hidden, false, 1,
          0);
    m.add("linear_1", "multi_modal_projector.linear_1", LinearKind::kUp, LinearPlace::kVision,
          v.hidden * v.feature_layers, arch.hidden, v.projector_bias, 1, 0);
    m.add("linear_2", "multi_modal_projector.linear_2", LinearKind::kDown, LinearPlace::kVision,
          arch.hidden, arch.hidden, v.projector_bias, 1, 0);
    accumulate(all, m.out, 1);
  } else if (arch.vision->kind != VisionKind::kSiglip) {
    // Qwen2-VL / Qwen2.5-VL (modeling_qwen2_vl.py, modeling_qwen2_5_vl.py): visual.blocks.N's
    // attn.qkv and attn.proj, mlp.fc1/fc2 (Qwen2.5-VL: mlp.gate_proj/up_proj/down_proj), all
    // biased; visual.merger.mlp.0 and mlp.2 once. PEFT's suffix match makes "gate_proj" adapt
    // Qwen2.5-VL's vision MLP as well as the language model's.
    const VisionTowerSpec& v = *arch.vision;
    const std::int64_t h = v.hidden;
    Builder b{arch, {}};
    b.add("qkv", "visual.blocks.attn.qkv", LinearKind::kQkv, LinearPlace::kVision, h, 3 * h, true,
          1, 0);
    b.add("proj", "visual.blocks.attn.proj", LinearKind::kOutput, LinearPlace::kVision, h, h, true,
          1, 0);
    if (v.kind == VisionKind::kQwen3Vl) {
      // Qwen3VLVisionMLP: mlp.linear_fc1 / linear_fc2, biased.
      b.add("linear_fc1", "visual.blocks.mlp.linear_fc1", LinearKind::kUp, LinearPlace::kVision, h,
            v.intermediate, true, 1, 0);
      b.add("linear_fc2", "visual.blocks.mlp.linear_fc2", LinearKind::kDown, LinearPlace::kVision,
            v.intermediate, h, true, 1, 0);
    } else if (v.kind == VisionKind::kQwen25Vl) {
      b.add("gate_proj", "visual.blocks.mlp.gate_proj", LinearKind::kGate, LinearPlace::kVision, h,
            v.intermediate, true, 1, 0);
      b.add("up_proj", "visual.blocks.mlp.up_proj", LinearKind::kUp, LinearPlace::kVision, h,
            v.intermediate, true, 1, 0);
      b.add("down_proj", "visual.blocks.mlp.down_proj", LinearKind::kDown, LinearPlace::kVision,
            v.intermediate, h, true, 1, 0);
    } else {
      b.add("fc1", "visual.blocks.mlp.fc1", LinearKind::kUp, LinearPlace::kVision, h,
            v.intermediate, true, 1, 0);
      b.add("fc2", "visual.blocks.mlp.fc2", LinearKind::kDown, LinearPlace::kVision, v.intermediate,
            h, true, 1, 0);
    }
    accumulate(all, b.out, v.layers);
    const std::int64_t merged = h * v.spatial_merge * v.spatial_merge;
    Builder m{arch, {}};
    if (v.kind == VisionKind::kQwen3Vl) {
      // Qwen3VLVisionPatchMerger: linear_fc1 / linear_fc2, in the merger and in each of the
      // deepstack_merger_list's.
      m.add("linear_fc1", "visual.merger.linear_fc1", LinearKind::kUp, LinearPlace::kVision, merged,
            merged, true, 1, 0);
      m.add("linear_fc2", "visual.merger.linear_fc2", LinearKind::kDown, LinearPlace::kVision,
            merged, v.out_hidden, true, 1, 0);
    } else {
      m.add("0", "visual.merger.mlp.0", LinearKind::kUp, LinearPlace::kVision, merged, merged, true,
            1, 0);
      m.add("2", "visual.merger.mlp.2", LinearKind::kDown, LinearPlace::kVision, merged,
            v.out_hidden, true, 1, 0);
    }
    accumulate(all, m.out, 1 + v.deepstack_mergers);
  } else {
    // SiglipEncoderLayer: self_attn.{q,k,v,out}_proj and mlp.fc1 / fc2, all biased.
    const VisionTowerSpec& v = *arch.vision;
    accumulate(all, vit_layer_linears(arch, v, "vision.", "out_proj", true), v.layers);
  }
  return all;
}

}  // namespace tb::detail
