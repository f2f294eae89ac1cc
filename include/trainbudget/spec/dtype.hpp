// Numeric formats a device computes in and a recipe trains in.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace tb {

enum class DType { kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kFp4 };

// Every dtype, in catalog order (widest first).
[[nodiscard]] std::span<const DType> all_dtypes();

// "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4".
[[nodiscard]] std::string_view dtype_name(DType dtype);

// Inverse of dtype_name; nullopt for anything else.
[[nodiscard]] std::optional<DType> parse_dtype(std::string_view text);

// "fp64|fp32|tf32|bf16|fp16|fp8|fp4", for error messages and --help.
[[nodiscard]] std::string_view dtype_choices();

// The rates to try, in order, when a device has no figure for `wanted`: a bf16 job on a card
// that publishes only fp16 tensor rates runs at the fp16 rate (same tensor-core path), and on a
// chip with only an fp32 figure at that. Never falls back to a *faster* format than asked for,
// except bf16 <-> fp16, which run at the same rate on every device in the catalog.
[[nodiscard]] std::span<const DType> rate_fallbacks(DType wanted);

}  // namespace tb
