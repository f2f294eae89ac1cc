// torchtune's recipe configs read as the fields they mean (docs/configs.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "config_formats.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {

std::string_view torchtune_preset(std::string_view builder) {
  // Builder names (torchtune.models.*) onto presets.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 49> kModels{
      {{"llama3_1_8b", "llama-3.1-8b"},
       {"llama3_1_70b", "llama-3.1-70b"},
       {"llama3_1_405b", "llama-3.1-405b"},
       {"llama3_8b", "llama-3-8b"},
       {"llama3_2_1b", "llama-3.2-1b"},
       {"llama3_2_3b", "llama-3.2-3b"},
       {"llama3_3_70b", "llama-3.3-70b"},
       {"llama2_7b", "llama-2-7b"},
       {"llama2_13b", "llama-2-13b"},
       {"llama2_70b", "llama-2-70b"},
       {"mistral_7b", "mistral-7b-v0.1"},
       {"gemma_2b", "gemma-2b"},
       {"gemma_7b", "gemma-7b"},
       {"qwen2_5_7b_base", "qwen2.5-7b"},
       {"qwen2_5_0_5b", "qwen2.5-0.5b"},
       {"qwen2_5_1_5b_base", "qwen2.5-1.5b"},
       {"phi3_mini", "phi-3-mini-4k"},
       {"llama3_2_vision_11b", "llama-3.2-11b-vision"},
       {"llama3_2_vision_90b", "llama-3.2-90b-vision"},
       {"qwen2_5_7b_instruct", "qwen2.5-7b"},
       {"qwen2_5_1_5b_instruct", "qwen2.5-1.5b"},
       {"qwen2_5_3b", "qwen2.5-3b"},
       {"qwen2_5_14b_base", "qwen2.5-14b"},
       {"qwen2_5_14b_instruct", "qwen2.5-14b"},
       {"qwen2_5_32b_base", "qwen2.5-32b"},
       {"qwen2_5_32b_instruct", "qwen2.5-32b"},
       {"qwen2_5_72b_base", "qwen2.5-72b"},
       {"qwen2_5_72b_instruct", "qwen2.5-72b"},
       {"qwen3_0_6b_base", "qwen3-0.6b"},
       {"qwen3_0_6b_instruct", "qwen3-0.6b"},
       {"qwen3_1_7b_base", "qwen3-1.7b"},
       {"qwen3_1_7b_instruct", "qwen3-1.7b"},
       {"qwen3_4b_base", "qwen3-4b"},
       {"qwen3_4b_instruct", "qwen3-4b"},
       {"qwen3_8b_base", "qwen3-8b"},
       {"qwen3_8b_instruct", "qwen3-8b"},
       {"qwen3_14b_base", "qwen3-14b"},
       {"qwen3_14b_instruct", "qwen3-14b"},
       {"qwen3_32b", "qwen3-32b"},
       {"phi4_14b", "phi-4"},
       {"llama3_70b", "llama-3-70b"},
       {"qwen2_0_5b", "qwen2-0.5b"},
       {"qwen2_1_5b", "qwen2-1.5b"},
       {"qwen2_7b", "qwen2-7b"},
       {"gemma2_2b", "gemma-2-2b"},
       {"gemma2_9b", "gemma-2-9b"},
       {"gemma2_27b", "gemma-2-27b"},
       // Llama 4's builders (torchtune/models/llama4/_model_builders.py) build the language
       // model and its vision encoder, as the Hub's checkpoints hold them.
       {"llama4_scout_17b_16e", "llama-4-scout"},
       {"llama4_maverick_17b_128e", "llama-4-maverick"}}};
  const auto* preset = std::find_if(kModels.begin(), kModels.end(),
                                    [&](const auto& m) { return m.first == builder; });
  return preset == kModels.end() ? std::string_view{} : preset->second;
}

// torchtune's recipe configs (recipes/configs/*): the model builder's name gives the preset and
// the method; torchtune's profile (--framework torchtune) gives its kernels.
void read_torchtune(const json& cfg, TrainingConfig& out, const std::filesystem::path& dir) {
  Reader r{out};
  out.values["framework"] = "torchtune";
  out.mapped.push_back("(a torchtune recipe) -> framework");
  constexpr std::array<std::string_view, 19> kNoEffect{"output_dir",
                                                       "checkpointer",
                                                       "resume_from_checkpoint",
                                                       "save_adapter_weights_only",
                                                       "save_last_epoch_only",
                                                       "epochs_to_save",
                                                       "seed",
                                                       "shuffle",
                                                       "lr_scheduler",
                                                       "loss",
                                                       "max_steps_per_epoch",
                                                       "clip_grad_norm",
                                                       "metric_logger",
                                                       "log_every_n_steps",
                                                       "log_peak_memory_stats",
                                                       "log_level",
                                                       "device",
                                                       "dtype",
                                                       "profiler"};
  // The PPO recipe names its policy policy_model, beside a value and reward model.
  const bool ppo = cfg.contains("policy_model");
  for (const auto& [key, v] : cfg.items()) {
    if (key == "dataset") {
      // torchtune's builders read a local file through source "json" and data_files.
      const std::string files = v.is_object() ? text_of(v.value("data_files", json())) : "";
      if (v.is_object() && text_at(v, "source", "") == "json" && !files.empty()) {
        (void)local_dataset(files, dir, cfg.value("epochs", json()), "epochs", "dataset.data_files",
                            out);
      } else {
        r.none(key);
      }
      continue;
    }
    if (key == "epochs") {
      if (!out.values.contains("epochs")) r.none(key);  // mapped with a local dataset
      continue;
    }
    if (ppo && key != "policy_model" && torchtune_ppo_key(key)) continue;
    if ((key == "model" || key == "policy_model") && v.is_object()) {
      const std::string component = text_at(v, "_component_", "");
      std::string name = component.substr(component.rfind('.') + 1);
      std::string method = "full";
      if (name.rfind("qlora_", 0) == 0) {
        method = "qlora";
        name = name.substr(6);
      } else if (name.rfind("lora_", 0) == 0) {
        method = "lora";
        name = name.substr(5);
      }
      // The generic builder carries its dimensions in the config (torchtune_llama2.cpp).
      const bool generic = name == "llama2";
      if (generic) {
        if (const auto config = torchtune_llama2_config(v)) {
          out.values["model"] = *config;
          out.mapped.push_back(fmt::format("{}._component_ and its dimensions -> model", key));
        } else {
          r.unknown(
              fmt::format("{}._component_={} (its vocab_size, num_layers, num_heads, "
                          "embed_dim and max_seq_len are needed)",
                          key, excerpt(component)));
        }
      } else if (const std::string_view preset = torchtune_preset(name); !preset.empty()) {
        out.values["model"] = std::string{preset};
        out.mapped.push_back(fmt::format("{}._component_ -> model", key));
      } else {
        r.unknown(fmt::format("{}._component_={}", key, excerpt(component)));
      }
      out.values["method"] = method;
      out.mapped.push_back(fmt::format("{}._component_ -> method", key));
      std::vector<std::string> targets;
      std::vector<std::string> mlp;  // after the attention modules, as torchtune lists them
      for (const auto& [mk, mv] : v.items()) {
        if (mk == "_component_" || (generic && torchtune_llama2_dimension(mk))) continue;
        if (mk == "lora_attn_modules" && mv.is_array()) {
          for (const json& m : mv) {
            const std::string t = m.is_string() ? m.get<std::string>() : "";
            const std::string ours = t == "q_proj"        ? "q"
                                     : t == "k_proj"      ? "k"
                                     : t == "v_proj"      ? "v"
                                     : t == "output_proj" ? "o"
                                                          : "";
            if (ours.empty())
              r.unknown(fmt::format("model.lora_attn_modules: {}", excerpt(t)));
            else if (std::find(targets.begin(), targets.end(), ours) == targets.end())
              targets.push_back(ours);
          }
        } else if (mk == "apply_lora_to_mlp") {
          if (r.flag(mv)) mlp = {"gate", "up", "down"};
        } else if (mk == "apply_lora_to_output") {
          if (r.flag(mv))
            r.unknown("model.apply_lora_to_output=True (an adapter on the LM head: not modelled)");
        } else if (mk == "lora_rank") {
          r.set("lora_rank", mv, "model.lora_rank");
        } else if (mk == "lora_dropout") {
          r.set("lora_dropout", mv, "model.lora_dropout");
        } else if (mk == "quantize_base") {
          if (r.flag(mv)) out.values["method"] = "qlora";
        } else if (mk == "use_dora") {
          // torchtune's DoRALinear: the magnitude and the weight norm as PEFT's
          // (docs/activations.md).
          if (r.flag(mv)) {
            out.values["dora"] = "true";
            out.mapped.push_back("model.use_dora -> dora");
          }
        } else if (mk == "lora_alpha" || mk == "image_size" ||
                   (mk == "attn_dropout" && mv.is_number() && mv.get<double>() == 0.0)) {
          r.none("model." + mk);  // image_size: the vision builders' tile side (560)
        } else if (mk == "decoder_trainable" || mk == "encoder_trainable" ||
                   mk == "fusion_trainable") {
          // llama3_2_vision's parts ("full", "lora", "frozen"): adapters go where PEFT's name
          // match puts them, in every decoder layer and the encoder alike.
          r.unknown(
              fmt::format("model.{}={} (torchtune's per-part training: adapters are placed "
                          "by module name in the decoder and the encoder alike)",
                          mk, excerpt(text_of(mv))));
        } else {
          r.unknown("model." + mk);
        }
      }
      targets.insert(targets.end(), mlp.begin(), mlp.end());
      if (!targets.empty()) {
        out.values["lora_targets"] = fmt::format("{}", fmt::join(targets, ","));
        out.mapped.push_back("model.lora_attn_modules, apply_lora_to_mlp -> lora_targets");
      }
    } else if (key == "loss" && v.is_object() && !text_at(v, "_component_", "").empty() &&
               text_at(v, "_component_", "").find("CrossEntropy") == std::string::npos &&
               text_at(v, "_component_", "").find("CEWith") == std::string::npos) {
      // The loss names the recipe's objective: torchtune's preference recipes (lora_dpo_*,
      // full_dpo_distributed) use DPOLoss, DPO with a reference forward
      // (torchtune/rlhf/loss/dpo.py); distillation (ForwardKL*) and the dev GRPO losses are
      // listed: the estimate is then a supervised step's.
      const std::string component = text_at(v, "_component_", "");
      if (component.ends_with(".DPOLoss")) {
        out.values["trainer"] = "dpo";
        out.mapped.push_back("loss._component_ -> trainer");
      } else {
        r.unknown(
            fmt::format("loss._component_={} (answered as supervised fine-tuning: a "
                        "teacher's forward or a rollout is not read from this recipe; "
                        "DPOLoss is)",
                        excerpt(component)));
      }
    } else if (key == "ref_checkpointer") {
      r.none(key);  // the DPO reference's weights: the trainer's reference model
    } else if (key == "tokenizer" && v.is_object()) {
      if (v.contains("max_seq_len")) r.set("seq_len", v["max_seq_len"], "tokenizer.max_seq_len");
    } else if (key == "batch_size") {
      r.set("micro_batch", v, key);
    } else if (key == "gradient_accumulation_steps") {
      r.set("grad_accum", v, key);
    } else if (key == "enable_activation_checkpointing") {
      out.values["recompute"] = r.flag(v) ? "full" : "none";
      out.mapped.push_back("enable_activation_checkpointing -> recompute");
    } else if (key == "enable_activation_offloading") {
      // torchtune's OffloadActivations: the saved activations to the host (--offload-activations).
      if (r.flag(v)) {
        out.values["offload_activations"] = "true";
        out.mapped.push_back("enable_activation_offloading -> offload_activations");
      } else {
        r.none(key);
      }
    } else if (key == "compile") {
      r.set("compile", v, key);
    } else if (key == "optimizer_in_bwd") {
      // The full-finetune recipes step each parameter from its gradient hook
      // (register_optim_in_bwd_hooks): no gradient buffer.
      if (r.flag(v)) {
        out.values["optimizer_kernel"] = "in-backward";
        out.mapped.push_back("optimizer_in_bwd -> optimizer_kernel");
      } else {
        r.none(key);
      }
    } else if (key == "optimizer" && v.is_object()) {
      const std::string component = text_at(v, "_component_", "");
      // torchtune trains in the config's dtype: bf16 weights and AdamW moments, no fp32 master.
      const bool bf16 = text_at(cfg, "dtype", "bf16") == "bf16";
      // bitsandbytes' 32-bit optimizers keep fp32 moments for bf16 weights (Optimizer2State:
      // state1/state2 as torch.float32 when optim_bits is 32); paged: they may spill to the host.
      if (component == "torch.optim.AdamW") {
        out.values["recipe"] = bf16 ? "pure-bf16-adam" : "fp32-adam";
      } else if (component == "bitsandbytes.optim.PagedAdamW8bit" ||
                 component == "bitsandbytes.optim.AdamW8bit") {
        out.values["recipe"] = bf16 ? "bf16-adam-8bit" : "adam-8bit";
      } else if (component == "bitsandbytes.optim.PagedAdamW" ||
                 component == "bitsandbytes.optim.AdamW") {
        out.values["recipe"] = bf16 ? "bf16-adam" : "fp32-adam";
      } else {
        r.unknown(fmt::format("optimizer._component_={}", excerpt(component)));
      }
      if (out.values.contains("recipe")) out.mapped.push_back("optimizer, dtype -> recipe");
      if (v.contains("fused") && r.flag(v["fused"]) &&
          out.values.find("optimizer_kernel") == out.values.end()) {
        out.values["optimizer_kernel"] = "fused";
        out.mapped.push_back("optimizer.fused -> optimizer_kernel");
      }
    } else if (one_of(key, kNoEffect) || key == "tokenizer") {
      r.none(key);
    } else {
      r.unknown(key);
    }
  }
  if (ppo) {
    const auto model = out.values.find("model");
    read_torchtune_ppo(cfg, model == out.values.end() ? std::string{} : model->second, r);
  }
}

}  // namespace tb::api::config_detail
