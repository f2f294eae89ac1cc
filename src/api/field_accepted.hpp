// The accepted-value texts of the field table (field.cpp): what `fields`, --help, the API's
// problems and docs/fields.md say a field takes. Private to the api library.
#pragma once

#include <fmt/format.h>

#include <string>

#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::api::accepted {

inline std::string count_in(Range r) {
  return fmt::format("a count from {:g} to {:g} such as 7e9, 7B, 70b, 1.5T, 125M or 32k", r.lo,
                     r.hi);
}
inline std::string param_counts() { return count_in(kParamsRange); }
inline std::string token_counts() { return count_in(kTokensRange); }
inline std::string utilizations() {
  return fmt::format("[{:g}, {:g}]", kUtilizationRange.lo, kUtilizationRange.hi);
}
inline std::string fraction() { return "(0, 1]"; }
inline std::string flags() { return "true|false (a flag)"; }
inline std::string qlora_bits() { return "4|8"; }
inline std::string booleans() { return "true|false"; }
inline std::string recipes() { return recipe_choices(); }
inline std::string machines() { return "ID[:dtype][,ID[:dtype]...], all[:dtype] or local"; }
inline std::string model_forms() {
  return "a config.json, a model folder, a preset id or a config.json's text";
}
inline std::string methods() { return "full|lora|qlora|freeze|dora|qdora|galore"; }
inline std::string job_kinds() { return "pretraining|fine-tuning"; }
inline std::string trainers() { return enum_choices<Objective>(); }
inline std::string devices_range() { return "1..1000000"; }
inline std::string zero_stages() { return "0|1|2|3"; }
inline std::string ranks() { return "1..65536"; }
inline std::string targets() {
  return "q,k,v,o,gate,up,down, all-linear or module names such as q_proj";
}
inline std::string micro_batches() { return fmt::format("1..{}", kMaxMicroBatch); }
inline std::string seq_lens() { return fmt::format("1..{} tokens", kMaxSeqLen); }
inline std::string attentions() { return "eager|flash"; }
inline std::string recomputes() { return "none|selective|full|selective-op"; }
inline constexpr double kMaxRecomputeLayers = 100000.0;
inline std::string recompute_layer_counts() {
  return fmt::format("0..{:.0f} layers per pipeline stage", kMaxRecomputeLayers);
}
inline std::string frameworks() { return enum_choices<Framework>(); }
inline std::string losses() { return "fused|full|chunked:N (N in 2..1024)"; }
inline std::string logits_dtypes() { return enum_choices<LogitsDtype>(); }
inline std::string norms() { return enum_choices<NormImpl>(); }
inline std::string optimizer_kernels() { return enum_choices<OptimizerKernel>(); }
inline std::string grad_accumulation_kernels() { return enum_choices<GradAccumulationKernel>(); }
inline std::string attention_kernels() { return enum_choices<AttentionKernel>(); }
inline std::string activation_dtypes() { return "bf16|fp16|fp32"; }
inline std::string probability() { return "[0, 1)"; }
inline std::string accumulations() { return fmt::format("1..{}", kMaxGradAccum); }
inline std::string formats() { return "table|json|csv|markdown|html"; }
inline std::string degrees() { return fmt::format("1..{}", kMaxDegree); }
inline std::string virtual_stage_counts() { return fmt::format("1..{}", kMaxVirtualStages); }
inline std::string offloads() { return "none|optimizer|params"; }
inline std::string systems() { return "a system id from data/systems (docs/systems.md)"; }
inline std::string prices() {
  return fmt::format("{:g}..{:g} USD per device-hour", kUsdPerHourRange.lo, kUsdPerHourRange.hi);
}
inline std::string pues() { return "1..3"; }
inline std::string headrooms() { return "[0, 1]"; }
inline std::string goodputs() { return "[0.01, 1]"; }
inline std::string host_memories() { return "GB per node, 1..1e7"; }
inline std::string shares() { return "[0, 1]"; }
inline std::string efficiencies() { return "[0.01, 1]"; }

inline std::string epoch_counts() { return "(0, 10000]"; }
inline std::string step_counts() { return "1..1000000000"; }

}  // namespace tb::api::accepted
