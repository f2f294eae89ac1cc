// LLaMA-Factory's keys beyond its core ones, in --config (docs/configs.md): the Megatron keys of
// its examples/megatron and examples/megatron_bridge (the mcore_adapter and Megatron-Bridge
// trainers pass them to Megatron-Core's config), the Trainer's max_steps, and bitsandbytes'
// quantization_method and double_quantization (hparams/model_args.py QuantizationArguments).
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "config_formats.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api::config_detail {
namespace {

// Megatron-Core's degrees and switches as the estimate's fields name them.
constexpr std::array<std::pair<std::string_view, const char*>, 4> kDegrees{
    {{"tensor_model_parallel_size", "tp"},
     {"pipeline_model_parallel_size", "pp"},
     {"context_parallel_size", "cp"},
     {"expert_model_parallel_size", "ep"}}};

}  // namespace

bool read_llamafactory_keys(const json& cfg, const std::string& key, const json& v, Reader& r) {
  TrainingConfig& out = r.out;
  if (key == "quantization_method") {
    // bnb (the default) is the NF4 / LLM.int8 base QLoRA counts; hqq and eetq are not.
    if (text_of(v) == "bnb") {
      r.none(key);
    } else {
      r.unknown(fmt::format("{}={} (counted as bitsandbytes')", key, excerpt(text_of(v))));
    }
    return true;
  }
  if (key == "double_quantization") {
    // Its default is true, as QLoRA's; 8-bit bases keep row scales, nothing to double-quantize.
    const auto bits = cfg.find("quantization_bit");
    const bool eight = bits != cfg.end() && bits->is_number_integer() && bits->get<int>() == 8;
    if (v.is_boolean() && !v.get<bool>() && !eight) {
      r.set("no_double_quant", true, key);
    } else {
      r.none(key);
    }
    return true;
  }
  if (key == "max_steps") {
    // TrainingArguments' max_steps: the run stops there whatever num_train_epochs says.
    if (v.is_number() && v.get<double>() > 0) {
      r.set("steps", v, key);
    } else {
      r.none(key);
    }
    return true;
  }
  for (const auto& [name, field] : kDegrees) {
    if (key != name) continue;
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1) {
      r.unknown(fmt::format("{}={}", key, excerpt(text_of(v))));
      return true;
    }
    if (out.values.try_emplace("framework", "megatron").second) {
      out.mapped.push_back("the Megatron degrees (mcore_adapter, Megatron-Bridge) -> framework");
      // Megatron-Core recomputes only under recompute_granularity: LLaMA-Factory's default
      // gradient checkpointing is the HF model's, not run here.
      if (!cfg.contains("recompute_granularity")) {
        out.values["recompute"] = "none";
        std::erase(out.mapped, std::string{"(gradient checkpointing on by default) -> recompute"});
        out.mapped.push_back(
            "(no recompute_granularity: Megatron-Core keeps every activation) -> recompute");
      }
    }
    if (v.get<std::int64_t>() > 1) r.set(field, v, key);
    // The smallest world that holds the layout: tp x pp x cp ranks, and the data-parallel ranks
    // the experts need (ep divides dp x cp, Megatron-Core's expert grid).
    const std::int64_t cp = size_of(cfg, "context_parallel_size");
    const std::int64_t world = size_of(cfg, "tensor_model_parallel_size") *
                               size_of(cfg, "pipeline_model_parallel_size") *
                               std::lcm(cp, size_of(cfg, "expert_model_parallel_size"));
    if (world > 1 && out.values.try_emplace("devices", std::to_string(world)).second) {
      out.mapped.push_back(
          fmt::format("the Megatron degrees (the smallest world, {}) -> devices", world));
    }
    return true;
  }
  if (key == "sequence_parallel") {
    r.set("sequence_parallel", v, key);
    return true;
  }
  if (key == "use_distributed_optimizer") {
    if (r.flag(v)) {
      r.set("zero", 1, key);  // the optimizer's states sharded over the data-parallel ranks
    } else {
      r.none(key);
    }
    return true;
  }
  if (key == "recompute_granularity") {
    const std::string g = text_of(v);
    if (g == "full" || g == "selective") {
      out.values["recompute"] = g;
      out.mapped.push_back("recompute_granularity -> recompute");
    } else {
      r.unknown(fmt::format("{}={}", key, excerpt(g)));
    }
    return true;
  }
  // Kernel fusions on, the data-parallel collectives overlapped, MoE's grouped GEMM and all-to-all
  // dispatcher: Megatron-Core as the megatron framework profile prices it (docs/frameworks.md);
  // another value is listed. bf16 mixed precision, packing (the estimate fills every sequence)
  // and the export are bookkeeping.
  const bool on = r.flag(v);
  const std::string text = text_of(v);
  for (const char* fused : {"bias_activation_fusion", "apply_rope_fusion", "masked_softmax_fusion",
                            "cross_entropy_loss_fusion", "overlap_param_gather",
                            "overlap_grad_reduce", "moe_grouped_gemm"}) {
    if (key != fused) continue;
    if (on) {
      r.none(key);
    } else {
      r.unknown(fmt::format("{}={}", key, excerpt(text)));
    }
    return true;
  }
  if ((key == "moe_token_dispatcher_type" && text == "alltoall") ||
      (key == "mixed_precision" && text == "bf16_mixed") || key == "use_packed_sequences" ||
      key == "export_hf_on_finish") {
    r.none(key);
    return true;
  }
  return false;
}

}  // namespace tb::api::config_detail
