// Names and rate fallbacks of the numeric formats.
#include "trainbudget/spec/dtype.hpp"

#include <array>

namespace tb {
namespace {
constexpr std::array kAll{DType::kFp64, DType::kFp32, DType::kTf32, DType::kBf16,
                          DType::kFp16, DType::kFp8,  DType::kFp4};
constexpr std::array<std::string_view, 7> kNames{"fp64", "fp32", "tf32", "bf16",
                                                 "fp16", "fp8",  "fp4"};
constexpr std::array kFallFp64{DType::kFp64};
constexpr std::array kFallFp32{DType::kFp32};
constexpr std::array kFallTf32{DType::kTf32, DType::kFp32};
constexpr std::array kFallBf16{DType::kBf16, DType::kFp16, DType::kFp32};
constexpr std::array kFallFp16{DType::kFp16, DType::kBf16, DType::kFp32};
constexpr std::array kFallFp8{DType::kFp8, DType::kBf16, DType::kFp16, DType::kFp32};
constexpr std::array kFallFp4{DType::kFp4, DType::kFp8, DType::kBf16, DType::kFp16, DType::kFp32};
}  // namespace

std::span<const DType> all_dtypes() { return kAll; }

std::string_view dtype_name(DType dtype) { return kNames[static_cast<std::size_t>(dtype)]; }

std::optional<DType> parse_dtype(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return kAll[i];
  }
  return std::nullopt;
}

std::string_view dtype_choices() { return "fp64|fp32|tf32|bf16|fp16|fp8|fp4"; }

std::span<const DType> rate_fallbacks(DType wanted) {
  switch (wanted) {
    case DType::kFp64:
      return kFallFp64;
    case DType::kFp32:
      return kFallFp32;
    case DType::kTf32:
      return kFallTf32;
    case DType::kBf16:
      return kFallBf16;
    case DType::kFp16:
      return kFallFp16;
    case DType::kFp8:
      return kFallFp8;
    case DType::kFp4:
      return kFallFp4;
  }
  return kFallFp32;
}

}  // namespace tb
