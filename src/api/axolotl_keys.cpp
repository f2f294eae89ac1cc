// axolotl's keys outside the parallel and kernel ones (docs/configs.md, "axolotl YAML"): its
// bookkeeping, the deprecated batch_size, torch_compile, and the GPTQ and packing keys of its
// archived examples (axolotl at 067b021c8: src/axolotl/utils/config/__init__.py,
// normalize_config; src/axolotl/loaders/model.py, _set_quantization_config).
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// The run's files, logging, schedule, data preparation, seeds and the tokenizer (axolotl
// docs/config-reference); gradient_checkpointing_kwargs' use_reentrant changes which autograd
// path recomputes, not what is kept; reinit_weights starts from random weights of the same
// shapes; min_sample_len and dataset_exact_deduplication filter the data.
constexpr std::array<std::string_view, 68> kNoEffect{"model_type",
                                                     "chat_template",
                                                     "gradient_checkpointing_kwargs",
                                                     "trust_remote_code",
                                                     "remove_unused_columns",
                                                     "skip_prepare_dataset",
                                                     "processor_type",
                                                     "save_steps",
                                                     "save_strategy",
                                                     "save_total_limit",
                                                     "loss_watchdog_threshold",
                                                     "loss_watchdog_patience",
                                                     "seed",
                                                     "torchdistx_path",
                                                     "push_dataset_to_hub",
                                                     "ddp_find_unused_parameters",
                                                     "max_grad_norm",
                                                     "adam_beta1",
                                                     "adam_beta2",
                                                     "adam_epsilon",
                                                     "tokenizer_use_mistral_common",
                                                     "eval_steps",
                                                     "dataloader_num_workers",
                                                     "tokenizer_type",
                                                     "dataset_prepared_path",
                                                     "val_set_size",
                                                     "output_dir",
                                                     "sample_packing",
                                                     "eval_sample_packing",
                                                     "pad_to_sequence_len",
                                                     "lora_alpha",
                                                     "lora_model_dir",
                                                     "wandb_project",
                                                     "wandb_entity",
                                                     "wandb_watch",
                                                     "wandb_name",
                                                     "wandb_log_model",
                                                     "lr_scheduler",
                                                     "learning_rate",
                                                     "bf16",
                                                     "fp16",
                                                     "tf32",
                                                     "resume_from_checkpoint",
                                                     "logging_steps",
                                                     "warmup_ratio",
                                                     "warmup_steps",
                                                     "evals_per_epoch",
                                                     "saves_per_epoch",
                                                     "weight_decay",
                                                     "special_tokens",
                                                     "hub_model_id",
                                                     "strict",
                                                     "train_on_inputs",
                                                     "group_by_length",
                                                     "early_stopping_patience",
                                                     "local_rank",
                                                     "xformers_attention",
                                                     "eval_batch_size",
                                                     "save_only_model",
                                                     "shuffle_merged_datasets",
                                                     "cosine_min_lr_ratio",
                                                     "cosine_constant_lr_ratio",
                                                     "eta_min",
                                                     "debug",
                                                     "dataset_exact_deduplication",
                                                     "min_sample_len",
                                                     "reinit_weights",
                                                     "use_swanlab"};

}  // namespace

bool read_axolotl_keys(const json& cfg, const std::string& key, const json& v, Reader& r) {
  if (read_axolotl_unfrozen(cfg, key, v, r)) return true;
  if (one_of(key, kNoEffect) || key.starts_with("wandb_") || key.starts_with("swanlab_")) {
    r.none(key);
    return true;
  }
  if (key == "batch_size") {
    // normalize_config: gradient_accumulation_steps = batch_size // micro_batch_size unless
    // given (the deprecated total batch per device).
    const auto mb = cfg.find("micro_batch_size");
    const bool whole = v.is_number_integer() && mb != cfg.end() && mb->is_number_integer() &&
                       mb->get<std::int64_t>() > 0 &&
                       v.get<std::int64_t>() >= mb->get<std::int64_t>();
    if (cfg.contains("gradient_accumulation_steps")) {
      r.none(key);
    } else if (whole) {
      r.out.values["grad_accum"] = std::to_string(v.get<std::int64_t>() / mb->get<std::int64_t>());
      r.out.mapped.push_back("batch_size, micro_batch_size -> grad_accum");
    } else {
      r.unknown(
          fmt::format("batch_size={} (the deprecated batch over micro_batch_size: give "
                      "grad_accum)",
                      excerpt(text_of(v))));
    }
    return true;
  }
  if (key == "torch_compile") {
    if (!v.is_boolean()) {
      r.unknown(
          fmt::format("torch_compile={} (on where the installed torch supports it: give "
                      "compile)",
                      excerpt(text_of(v))));
    } else if (v.get<bool>()) {
      r.set("compile", v, key);
    } else {
      r.none(key);
    }
    return true;
  }
  const bool gptq = cfg.contains("gptq") && r.flag(cfg["gptq"]);
  if (key == "gptq") {
    if (gptq) {
      r.unknown("gptq=true (a GPTQ-quantised base is not modelled: counted in 16 bits)");
    } else {
      r.none(key);
    }
    return true;
  }
  if (key == "gptq_groupsize" || key == "gptq_model_v1") {
    if (gptq) {
      r.unknown(key);
    } else {
      r.none(key);  // read by the GPTQ loader only
    }
    return true;
  }
  if (key == "model_config") {
    // Overrides of the model's config.json. output_router_logits returns the MoE routers' logits
    // for the load-balancing loss (tokens x experts a layer, a sliver beside the activations);
    // any other override could change the architecture and is listed.
    bool router_only = v.is_object() && !v.empty();
    if (router_only) {
      for (const auto& [k, x] : v.items()) router_only = router_only && k == "output_router_logits";
    }
    if (router_only) {
      r.none("model_config (output_router_logits)");
    } else {
      r.unknown(fmt::format("model_config={}", excerpt(v.dump())));
    }
    return true;
  }
  if (key == "max_packed_sequence_len") {
    // The packing sample_packing replaced, gone from axolotl's schema; empty, it does nothing.
    if (v.is_null()) {
      r.none(key);
    } else {
      r.unknown(key);
    }
    return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
