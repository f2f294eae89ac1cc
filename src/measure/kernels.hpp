// The loops whose speed we measure or rely on: number conversions, random fill, the naive GEMM
// and the STREAM kernels. kernels.cpp is compiled with -O2 in every build type (see
// src/CMakeLists.txt): an unoptimised Debug loop would measure the compiler, not the memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tb::measure::detail {

// bfloat16: the top 16 bits of a binary32, rounded to nearest even.
[[nodiscard]] std::uint16_t to_bf16(float value);
[[nodiscard]] float from_bf16(std::uint16_t bits);
// binary16 for values that are exact in it and normal (|v| >= 2^-14); from_fp16 also handles 0.
[[nodiscard]] std::uint16_t to_fp16_exact(float value);
[[nodiscard]] float from_fp16(std::uint16_t bits);

// splitmix64 (Steele, Lea, Flood 2014): a fast, well-mixed 64-bit sequence from a seed.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [-1, 1), never exactly 0.
  double uniform_signed();

 private:
  std::uint64_t state_;
};

void fill_uniform(double* out, std::size_t n, SplitMix64& rng);
void fill_uniform(float* out, std::size_t n, SplitMix64& rng);
void fill_uniform_bf16(std::uint16_t* out, std::size_t n, SplitMix64& rng);
// Multiples of 2^-11 in [-1, 1), exact in binary16.
void fill_uniform_fp16(std::uint16_t* out, std::size_t n, SplitMix64& rng);

// C (m x n) = A (m x k) * B (k x n), row-major, i-k-j loop order, accumulating in the output type.
void naive_gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                std::int64_t k);
void naive_gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                std::int64_t k);
// bf16 or fp16 inputs (`half_is_fp16` picks the decoding), fp32 accumulation and output.
void naive_gemm_16(const std::uint16_t* a, const std::uint16_t* b, float* c, std::int64_t m,
                   std::int64_t n, std::int64_t k, bool half_is_fp16);

// STREAM (McCalpin): copy c[i] = a[i]; triad a[i] = b[i] + scalar * c[i]. Over [begin, end).
void stream_copy(double* c, const double* a, std::size_t begin, std::size_t end);
void stream_triad(double* a, const double* b, const double* c, double scalar, std::size_t begin,
                  std::size_t end);
// Writes every element once (first touch decides the NUMA node of a page).
void stream_init(double* x, double value, std::size_t begin, std::size_t end);

}  // namespace tb::measure::detail
