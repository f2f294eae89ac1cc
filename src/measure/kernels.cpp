// Conversions, random fill, the naive GEMM and the STREAM loops (always built with -O2).
#include "kernels.hpp"

#include <bit>
#include <vector>

namespace tb::measure::detail {

std::uint16_t to_bf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  // Round to nearest, ties to even: add 0x7FFF plus the lowest kept bit, then truncate.
  const std::uint32_t rounding = 0x7FFFU + ((bits >> 16U) & 1U);
  return static_cast<std::uint16_t>((bits + rounding) >> 16U);
}

float from_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16U);
}

std::uint16_t to_fp16_exact(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16U) & 0x8000U;
  if ((bits & 0x7FFFFFFFU) == 0U) return static_cast<std::uint16_t>(sign);
  // binary32 exponent bias 127, binary16 bias 15; the value is exact, so the low 13 mantissa
  // bits are zero and the top 10 are the binary16 mantissa.
  const std::uint32_t exponent = ((bits >> 23U) & 0xFFU) - 127U + 15U;
  const std::uint32_t mantissa = (bits >> 13U) & 0x3FFU;
  return static_cast<std::uint16_t>(sign | (exponent << 10U) | mantissa);
}

float from_fp16(std::uint16_t bits) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000U) << 16U;
  const std::uint32_t exponent = (bits >> 10U) & 0x1FU;
  const std::uint32_t mantissa = bits & 0x3FFU;
  if (exponent == 0U && mantissa == 0U) return std::bit_cast<float>(sign);
  if (exponent == 0U) {  // subnormal: mantissa x 2^-24
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24F;
    return sign != 0U ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent - 15U + 127U) << 23U) | (mantissa << 13U));
}

std::uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

double SplitMix64::uniform_signed() {
  // 53 random bits -> [0, 1) -> [-1, 1); a zero (probability 2^-53) becomes the smallest step.
  const double unit = static_cast<double>(next() >> 11U) * 0x1p-53;
  const double v = 2.0 * unit - 1.0;
  return v == 0.0 ? 0x1p-52 : v;
}

void fill_uniform(double* out, std::size_t n, SplitMix64& rng) {
  for (std::size_t i = 0; i < n; ++i) out[i] = rng.uniform_signed();
}

void fill_uniform(float* out, std::size_t n, SplitMix64& rng) {
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = static_cast<float>(rng.uniform_signed());
    out[i] = v == 0.0F ? 0x1p-24F : v;
  }
}

void fill_uniform_bf16(std::uint16_t* out, std::size_t n, SplitMix64& rng) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t bits = to_bf16(static_cast<float>(rng.uniform_signed()));
    if ((bits & 0x7FFFU) == 0U) bits = to_bf16(0x1p-8F);
    out[i] = bits;
  }
}

void fill_uniform_fp16(std::uint16_t* out, std::size_t n, SplitMix64& rng) {
  for (std::size_t i = 0; i < n; ++i) {
    // j / 2048 for j in [-2048, 2047] \ {0}: 11 significant bits at most, exponent >= -11.
    auto j = static_cast<std::int64_t>(rng.next() % 4096U) - 2048;
    if (j == 0) j = 1;
    out[i] = to_fp16_exact(static_cast<float>(j) * 0x1p-11F);
  }
}

namespace {

template <class In, class Acc, class Load>
void gemm_ikj(const In* a, const In* b, Acc* c, std::int64_t m, std::int64_t n, std::int64_t k,
              Load load) {
  const auto un = static_cast<std::size_t>(n);
  const auto uk = static_cast<std::size_t>(k);
  std::vector<Acc> row(un);
  for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
    std::fill(row.begin(), row.end(), Acc{0});
    for (std::size_t p = 0; p < uk; ++p) {
      const Acc aip = load(a[i * uk + p]);
      const In* brow = b + p * un;
      for (std::size_t j = 0; j < un; ++j) row[j] += aip * load(brow[j]);
    }
    std::copy(row.begin(), row.end(), c + i * un);
  }
}

}  // namespace

void naive_gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                std::int64_t k) {
  gemm_ikj(a, b, c, m, n, k, [](double v) { return v; });
}

void naive_gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                std::int64_t k) {
  gemm_ikj(a, b, c, m, n, k, [](float v) { return v; });
}

void naive_gemm_16(const std::uint16_t* a, const std::uint16_t* b, float* c, std::int64_t m,
                   std::int64_t n, std::int64_t k, bool half_is_fp16) {
  if (half_is_fp16) {
    gemm_ikj(a, b, c, m, n, k, [](std::uint16_t v) { return from_fp16(v); });
  } else {
    gemm_ikj(a, b, c, m, n, k, [](std::uint16_t v) { return from_bf16(v); });
  }
}

void stream_copy(double* c, const double* a, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) c[i] = a[i];
}

void stream_triad(double* a, const double* b, const double* c, double scalar, std::size_t begin,
                  std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + scalar * c[i];
}

void stream_init(double* x, double value, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) x[i] = value;
}

}  // namespace tb::measure::detail
