// axolotl's attention implementation and kernel plugins read as the fields they mean
// (docs/configs.md), and a few bookkeeping keys newer than the reader's list: Cut Cross-Entropy
// (integrations/cut_cross_entropy: the loss from the hidden states and the head without the
// logits, `cut_cross_entropy` True by default in its args.py) and Liger Kernel
// (integrations/liger/args.py: each patch its own liger_* key, none on by default).
#include <fmt/format.h>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

bool on(const json& cfg, const char* key) {
  const auto it = cfg.find(key);
  return it != cfg.end() && it->is_boolean() && it->get<bool>();
}

bool listed(const json& plugins, std::string_view suffix) {
  if (!plugins.is_array()) return false;
  for (const json& p : plugins) {
    if (p.is_string() && p.get_ref<const std::string&>().ends_with(suffix)) return true;
  }
  return false;
}

// The plugins' effects: Liger's RMSNorm and GLU patches together are use_liger_kernel (its RoPE
// patch rides with them); its fused linear cross-entropy and Cut Cross-Entropy never hold the
// logits (loss linear).
void read_plugins(const json& cfg, const json& plugins, Reader& r) {
  TrainingConfig& out = r.out;
  for (const json& p : plugins) {
    const std::string name = text_of(p);
    if (name.ends_with(".SwanLabPlugin")) {
      r.none("plugins (SwanLabPlugin: logging)");
    } else if (name.ends_with(".ExpertParallelPlugin")) {
      // Its effect is expert_parallel_size's (axolotl_parallel.cpp), read there.
      r.none("plugins (ExpertParallelPlugin: its expert_parallel_size)");
    } else if (!name.ends_with(".CutCrossEntropyPlugin") && !name.ends_with(".LigerPlugin")) {
      r.unknown(fmt::format("plugins={}", excerpt(name)));
    }
  }
  if (listed(plugins, ".CutCrossEntropyPlugin")) {
    const auto it = cfg.find("cut_cross_entropy");
    if (it == cfg.end() || !it->is_boolean() || it->get<bool>()) {
      out.values["loss"] = "linear";
      out.mapped.push_back("plugins (CutCrossEntropyPlugin) -> loss");
    } else {
      r.none("plugins (CutCrossEntropyPlugin, cut_cross_entropy false)");
    }
  }
  if (!listed(plugins, ".LigerPlugin")) return;
  if (on(cfg, "liger_rms_norm") && (on(cfg, "liger_glu_activation") || on(cfg, "liger_swiglu"))) {
    out.values["use_liger_kernel"] = "true";
    out.mapped.push_back(
        "plugins (LigerPlugin: liger_rms_norm, liger_glu_activation) -> "
        "use_liger_kernel");
  } else if (on(cfg, "liger_rms_norm") || on(cfg, "liger_glu_activation") ||
             on(cfg, "liger_swiglu") || on(cfg, "liger_rope")) {
    r.unknown(
        "plugins (LigerPlugin without both liger_rms_norm and liger_glu_activation: "
        "not modelled)");
  }
  if (on(cfg, "liger_fused_linear_cross_entropy")) {
    out.values["loss"] = "linear";
    out.mapped.push_back("plugins (LigerPlugin: liger_fused_linear_cross_entropy) -> loss");
  }
}

}  // namespace

bool read_axolotl_kernels(const json& cfg, const std::string& key, const json& v, Reader& r) {
  if (key == "lora_mlp_kernel" || key == "lora_qkv_kernel" || key == "lora_o_kernel" ||
      key == "lora_embedding_kernel" || key == "quantize_moe_experts" ||
      key == "llama4_linearized_experts") {
    return true;  // read once the method is known (axolotl_lora_kernels, read_axolotl)
  }
  if (key == "attn_implementation") {
    // transformers' attention implementations: eager materialises the scores; the fused ones
    // (flash_attention_2/3, a Hub kernel such as kernels-community/vllm-flash-attn3, sdpa's
    // flash and memory-efficient backends, flex_attention, xformers) keep O(s) statistics.
    const std::string impl = text_of(v);
    const bool fused = impl.starts_with("flash_attention") ||
                       impl.find("flash-attn") != impl.npos || impl == "sdpa" ||
                       impl == "flex_attention" || impl == "xformers";
    if (impl == "eager" || fused) {
      r.out.values["attention"] = impl == "eager" ? "eager" : "flash";
      r.out.mapped.push_back(key + " -> attention");
    } else {
      r.unknown(fmt::format("{}={}", key, excerpt(impl)));
    }
    return true;
  }
  if (key.starts_with("trackio_") || key == "eot_tokens" ||
      key == "experimental_skip_move_to_device") {
    r.none(key);  // experiment tracking, the tokenizer's end tokens, where the model loads
    return true;
  }
  if (key == "plugins") {
    if (v.is_array()) {
      read_plugins(cfg, v, r);
    } else {
      r.unknown(key);
    }
    return true;
  }
  if (key == "cut_cross_entropy" || key.starts_with("liger_")) {
    // Read with the plugins above; without its plugin a key does nothing.
    const json plugins = cfg.value("plugins", json());
    const bool plugin =
        listed(plugins, key.starts_with("liger_") ? ".LigerPlugin" : ".CutCrossEntropyPlugin");
    if (!plugin) r.none(fmt::format("{} (without its plugin)", key));
    return true;
  }
  return false;
}

// axolotl's LoRA kernels (utils/schemas/config.py check_auto_enable_lora_kernels at 067b021c8):
// on when lora_mlp_kernel says so, or, with no lora_*_kernel key given, for a LoRA or QLoRA
// fine-tune that is not RL, not an 8-bit LoRA, not trust_remote_code, not nvfp4_merge_aware and
// not FSDP1 (an fsdp_config whose fsdp_version is not 2).
void axolotl_lora_kernels(const json& cfg, TrainingConfig& out) {
  const auto method = out.values.find("method");
  if (method == out.values.end() || (method->second != "lora" && method->second != "qlora")) {
    return;
  }
  bool given = false;
  for (const char* key :
       {"lora_mlp_kernel", "lora_qkv_kernel", "lora_o_kernel", "lora_embedding_kernel"}) {
    const auto it = cfg.find(key);
    given = given || (it != cfg.end() && !it->is_null());
  }
  if (given) {
    if (on(cfg, "lora_mlp_kernel")) {
      out.values["lora_kernels"] = "true";
      out.mapped.emplace_back("lora_mlp_kernel -> lora_kernels");
    } else {
      out.no_effect.emplace_back(
          "lora_*_kernel (without lora_mlp_kernel: the adapters' adds only)");
    }
    return;
  }
  const auto fsdp = cfg.find("fsdp_config");
  const bool fsdp1 =
      fsdp != cfg.end() && !fsdp->is_null() && text_of(cfg.value("fsdp_version", json())) != "2";
  const bool eight_bit_lora = cfg.value("adapter", json()) == "lora" && on(cfg, "load_in_8bit");
  if (!cfg.value("rl", json()).is_null() || eight_bit_lora || on(cfg, "trust_remote_code") ||
      on(cfg, "nvfp4_merge_aware") || fsdp1) {
    return;
  }
  out.values["lora_kernels"] = "true";
  out.mapped.emplace_back(
      "(axolotl turns its LoRA kernels on for LoRA fine-tunes) -> lora_kernels");
}

}  // namespace tb::api::config_detail
