// HF Trainer's optimizer names (transformers OptimizerNames, which axolotl and LLaMA-Factory pass
// on) onto trainbudget's recipes.
#include "config_formats.hpp"

namespace tb::api::config_detail {

std::string recipe_of(const std::string& optim) {
  if (optim == "adamw_bnb_8bit" || optim == "adamw_8bit" || optim == "adam_8bit")
    return "adam-8bit";
  if (optim == "paged_adamw_8bit") return "paged-adam-8bit";
  // bitsandbytes' PagedAdamW32bit: fp32 moments, as torch's AdamW keeps them (paged: they may
  // spill to the host under pressure, counted on the device as paged-adam-8bit's are).
  if (optim == "paged_adamw_32bit") return "amp-adam";
  // torchao's AdamW8bit and AdamW4bit (OptimizerNames.ADAMW_TORCH_8BIT, ADAMW_TORCH_4BIT; axolotl's
  // deprecated ao_adamw_8bit / ao_adamw_4bit).
  if (optim == "adamw_torch_8bit" || optim == "ao_adamw_8bit") return "adam-8bit";
  if (optim == "adamw_torch_4bit" || optim == "ao_adamw_4bit") return "adam-4bit";
  if (optim.ends_with("4bit")) return {};
  if (optim.rfind("adamw", 0) == 0) return "amp-adam";
  return {};
}

}  // namespace tb::api::config_detail
