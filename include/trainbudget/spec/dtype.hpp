// Numeric formats a device computes in and a recipe trains in.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "trainbudget/spec/enum_names.hpp"

namespace tb {

enum class DType { kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kFp4 };

// Every dtype, in catalog order (widest first).
[[nodiscard]] std::span<const DType> all_dtypes();

// Names in catalog order: enum_name(dtype), enum_from_name<DType>(text), enum_choices<DType>().
template <>
struct EnumNames<DType> {
  static constexpr std::array<std::pair<DType, std::string_view>, 7> kNames{{{DType::kFp64, "fp64"},
                                                                             {DType::kFp32, "fp32"},
                                                                             {DType::kTf32, "tf32"},
                                                                             {DType::kBf16, "bf16"},
                                                                             {DType::kFp16, "fp16"},
                                                                             {DType::kFp8, "fp8"},
                                                                             {DType::kFp4, "fp4"}}};
};

// The rates to try, in order, when a device has no figure for `wanted`: a bf16 job on a card
// that publishes only fp16 tensor rates runs at the fp16 rate (same tensor-core path), and on a
// chip with only an fp32 figure at that. Never falls back to a *faster* format than asked for,
// except bf16 <-> fp16, which run at the same rate on every device in the catalog.
[[nodiscard]] std::span<const DType> rate_fallbacks(DType wanted);

}  // namespace tb
