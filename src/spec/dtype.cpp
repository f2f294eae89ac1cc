// Rate fallbacks of the numeric formats.
#include "trainbudget/spec/dtype.hpp"

#include <array>

namespace tb {
namespace {
constexpr std::array kAll{DType::kFp64, DType::kFp32, DType::kTf32, DType::kBf16,
                          DType::kFp16, DType::kFp8,  DType::kFp4};
constexpr std::array kFallFp64{DType::kFp64};
constexpr std::array kFallFp32{DType::kFp32};
constexpr std::array kFallTf32{DType::kTf32, DType::kFp32};
constexpr std::array kFallBf16{DType::kBf16, DType::kFp16, DType::kFp32};
constexpr std::array kFallFp16{DType::kFp16, DType::kBf16, DType::kFp32};
constexpr std::array kFallFp8{DType::kFp8, DType::kBf16, DType::kFp16, DType::kFp32};
constexpr std::array kFallFp4{DType::kFp4, DType::kFp8, DType::kBf16, DType::kFp16, DType::kFp32};
}  // namespace

std::span<const DType> all_dtypes() { return kAll; }

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
