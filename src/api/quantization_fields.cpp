// QLoRA's quantized-base rows of the estimate's field table (docs/formulas.md, "LoRA"): its bits
// and bitsandbytes' double quantization.
#include <fmt/format.h>

#include <array>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::flag;
using namespace accepted;

const std::array kQuantizationFields{
    Field{"qlora_bits", FieldType::kChoice, "BITS", "", "4",
          "QLoRA's frozen base: 4 (bitsandbytes NF4) | 8 (LLM.int8: int8 weights and an fp32 "
          "scale per output row, transformers' load_in_8bit); 8 is priced as a dequantized "
          "16-bit GEMM per use, as 4 is",
          qlora_bits,
          [](V v, R r) {
            if (v != "4" && v != "8") {
              throw InvalidRequest("qlora_bits", fmt::format("'{}' is not 4 or 8", v), "4|8");
            }
            r.job.qlora.bits = v == "8" ? 8 : 4;
          },
          "job"},
    Field{"quantize_moe_experts", FieldType::kFlag, "", "", "",
          "QLoRA: also quantize the experts' fused 3-D weights (gpt-oss, Qwen3-Next, Qwen3.5-MoE), "
          "which bitsandbytes otherwise leaves as loaded (axolotl's quantize_moe_experts)",
          flags, [](V v, R r) { r.job.qlora.quantize_experts = flag(v, "quantize_moe_experts"); },
          "job"},
    Field{"no_double_quant", FieldType::kFlag, "", "", "",
          "QLoRA: fp32 absmax per 64 weights instead of double-quantized constants", flags,
          [](V v, R r) { r.job.qlora.double_quant = !flag(v, "no_double_quant"); }, "job"},
};

}  // namespace

std::span<const Field> quantization_fields() { return kQuantizationFields; }

}  // namespace tb::api
