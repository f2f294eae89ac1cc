// /proc/cpuinfo parsing and the theoretical peak, from other machines' files given as text.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "trainbudget/measure/cpu_info.hpp"

namespace tb::measure {
namespace {

// This project's 2-core VM: an AMD EPYC (Zen 5, family 1Ah) as /proc/cpuinfo shows it (trimmed
// to the keys we read).
constexpr std::string_view kZen5Server = R"(processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 26
model		: 2
model name	: AMD EPYC
cpu MHz		: 2096.029
physical id	: 0
siblings	: 2
core id		: 0
cpu cores	: 2
flags		: fpu sse sse2 pni ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx_vnni avx512_bf16 avx512_vnni

processor	: 1
vendor_id	: AuthenticAMD
cpu family	: 26
model		: 2
model name	: AMD EPYC
cpu MHz		: 2096.029
physical id	: 0
siblings	: 2
core id		: 1
cpu cores	: 2
flags		: fpu sse sse2 pni ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx_vnni avx512_bf16 avx512_vnni
)";

// An Intel Sapphire Rapids part with SMT: 4 logical CPUs on 2 cores, AMX.
constexpr std::string_view kIntelSpr = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 0
flags		: fpu sse sse2 avx fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8

processor	: 1
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 1
flags		: fpu sse sse2 avx fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8

processor	: 2
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 0
flags		: fpu sse sse2 avx fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8

processor	: 3
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 1
flags		: fpu sse sse2 avx fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8
)";

// The peak of `dtype`; throws (failing the test) when there is none.
const PeakRate& at(const TheoreticalPeak& peak, DType dtype) {
  const PeakRate* rate = peak.find(dtype);
  if (rate == nullptr) throw std::runtime_error("no peak for " + std::string(enum_name(dtype)));
  return *rate;
}

CpuInfo one_cpu(std::string vendor, int family, std::string name, std::string flags) {
  const std::string text = fmt::format(
      "processor : 0\nvendor_id : {}\ncpu family : {}\nmodel : 1\nmodel name : {}\ncpu MHz : "
      "3000.0\nphysical id : 0\ncore id : 0\nflags : {}\n",
      vendor, family, name, flags);
  return parse_cpuinfo(text);
}

TEST(CpuInfo, Zen5ServerCountsCoresFlagsAndClockGuess) {
  const CpuInfo cpu = parse_cpuinfo(kZen5Server);
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.model_name, "AMD EPYC");
  EXPECT_EQ(cpu.family, 26);
  EXPECT_EQ(cpu.model, 2);
  EXPECT_EQ(cpu.logical_cpus, 2);
  EXPECT_EQ(cpu.physical_cores, 2);
  EXPECT_TRUE(cpu.has("avx512_bf16"));
  EXPECT_FALSE(cpu.has("amx_bf16"));
  EXPECT_DOUBLE_EQ(cpu.clock_hz, 2096.029e6);
  EXPECT_TRUE(cpu.clock_is_guess);
  EXPECT_EQ(microarchitecture(cpu), "Zen 5 (server)");
}

TEST(CpuInfo, Zen5ServerPeakIs64Fp32FlopsPerCycleExpected) {
  const CpuInfo cpu = parse_cpuinfo(kZen5Server);
  const TheoreticalPeak peak = theoretical_peak(cpu);
  // HARDWARE.md §8: Zen 5 server 64 FP32 FLOPs/cycle/core expected; 2 cores x 2.096029 GHz.
  const double fp32 = 2 * 2096.029e6 * 64;
  EXPECT_DOUBLE_EQ(at(peak, DType::kFp32).rate.value(), fp32);
  EXPECT_FALSE(at(peak, DType::kFp32).per_cycle.derived);
  EXPECT_NE(at(peak, DType::kFp32).per_cycle.basis.find("unmeasured"), std::string::npos);
  EXPECT_DOUBLE_EQ(at(peak, DType::kFp64).rate.value(), fp32 / 2);
  // VDPBF16PS: twice the FP32 FLOPs per instruction, issue rate unverified -> derived.
  EXPECT_DOUBLE_EQ(at(peak, DType::kBf16).rate.value(), fp32 * 2);
  EXPECT_TRUE(at(peak, DType::kBf16).per_cycle.derived);
}

TEST(CpuInfo, AffinityMaskLimitsTheCores) {
  const CpuInfo cpu = parse_cpuinfo(kZen5Server, {1});
  EXPECT_EQ(cpu.logical_cpus, 1);
  EXPECT_EQ(cpu.physical_cores, 1);
}

TEST(CpuInfo, IntelWithSmtCountsPhysicalCoresAndUsesAmxForBf16) {
  const CpuInfo cpu = parse_cpuinfo(kIntelSpr);
  EXPECT_EQ(cpu.logical_cpus, 4);
  EXPECT_EQ(cpu.physical_cores, 2);
  EXPECT_EQ(microarchitecture(cpu), "unknown");
  const PerCycle fp32 = fp32_flops_per_cycle(cpu);
  // Derived: 16 AVX-512 lanes x 2 FMA units (assumed) x 2 FLOPs.
  EXPECT_DOUBLE_EQ(fp32.flops, 64.0);
  EXPECT_TRUE(fp32.derived);
  EXPECT_NE(fp32.basis.find("derived"), std::string::npos);
  // AMX: 1024 BF16 FLOPs/cycle/core.
  const TheoreticalPeak peak = theoretical_peak(cpu);
  EXPECT_DOUBLE_EQ(at(peak, DType::kBf16).rate.value(), 2 * 2000e6 * 1024);
  EXPECT_DOUBLE_EQ(at(peak, DType::kFp32).rate.value(), 2 * 2000e6 * 64);
}

TEST(CpuInfo, Zen4AndZen5SegmentsFollowHardwareMdSection8) {
  const std::string avx512 = "sse sse2 avx fma avx2 avx512f avx512_bf16";
  EXPECT_DOUBLE_EQ(
      fp32_flops_per_cycle(one_cpu("AuthenticAMD", 25, "AMD EPYC 9654 96-Core Processor", avx512))
          .flops,
      32.0);
  EXPECT_DOUBLE_EQ(fp32_flops_per_cycle(
                       one_cpu("AuthenticAMD", 26, "AMD Ryzen 7 9700X 8-Core Processor", avx512))
                       .flops,
                   64.0);
  EXPECT_DOUBLE_EQ(
      fp32_flops_per_cycle(one_cpu("AuthenticAMD", 26, "AMD Ryzen AI 9 HX 370", avx512)).flops,
      32.0);
  // Zen 3 (family 19h without AVX-512) is not in the table: derived from AVX2 + FMA.
  const PerCycle zen3 =
      fp32_flops_per_cycle(one_cpu("AuthenticAMD", 25, "AMD EPYC 7763", "sse avx fma avx2"));
  EXPECT_DOUBLE_EQ(zen3.flops, 32.0);
  EXPECT_TRUE(zen3.derived);
}

TEST(CpuInfo, WithoutBf16InstructionsBf16RunsAtTheFp32Rate) {
  const CpuInfo cpu = one_cpu("GenuineIntel", 6, "Intel(R) Core(TM) i7-8700", "sse avx fma avx2");
  EXPECT_DOUBLE_EQ(bf16_flops_per_cycle(cpu).flops, fp32_flops_per_cycle(cpu).flops);
  EXPECT_DOUBLE_EQ(fp64_flops_per_cycle(cpu).flops, 16.0);
}

TEST(CpuInfo, IsaFlagsListsOnlyTheGemmRelevantOnesInOrder) {
  const CpuInfo cpu = parse_cpuinfo(kIntelSpr);
  const std::vector<std::string> expected{"avx",      "fma",      "avx2",        "avx512f",
                                          "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16",
                                          "amx_tile", "amx_bf16", "amx_int8"};
  EXPECT_EQ(isa_flags(cpu), expected);
}

TEST(CpuInfo, MemTotalIsInKibibytes) {
  const auto total = parse_meminfo_total("MemTotal:       24683620 kB\nMemFree: 1 kB\n");
  ASSERT_TRUE(total.has_value());
  EXPECT_DOUBLE_EQ(total->value(), 24683620.0 * 1024.0);
  EXPECT_FALSE(parse_meminfo_total("MemFree: 1 kB\n").has_value());
}

TEST(CpuInfo, MemAvailableIsReadByItsOwnKey) {
  constexpr std::string_view kMeminfo =
      "MemTotal:       24683620 kB\nMemFree:          123456 kB\nMemAvailable:   22000000 kB\n";
  const auto available = parse_meminfo_field(kMeminfo, "MemAvailable");
  ASSERT_TRUE(available.has_value());
  EXPECT_DOUBLE_EQ(available->value(), 22000000.0 * 1024.0);
  // A key is matched at the start of a line only: "Free" is not MemFree.
  EXPECT_FALSE(parse_meminfo_field(kMeminfo, "Free").has_value());
  EXPECT_FALSE(parse_meminfo_field("MemTotal: 1 kB\n", "MemAvailable").has_value());
}

TEST(CpuInfo, AMeasuredClockReplacesAGuessButNotACpufreqMaximum) {
  CpuInfo guessed = parse_cpuinfo(kZen5Server);
  use_measured_clock(guessed, 3.5e9);
  EXPECT_DOUBLE_EQ(guessed.clock_hz, 3.5e9);
  EXPECT_FALSE(guessed.clock_is_guess);
  EXPECT_NE(guessed.clock_source.find("/proc/cpuinfo says 2.096 GHz"), std::string::npos)
      << guessed.clock_source;
  EXPECT_DOUBLE_EQ(at(theoretical_peak(guessed), DType::kFp32).rate.value(), 2 * 3.5e9 * 64);

  CpuInfo from_cpufreq = parse_cpuinfo(kZen5Server);
  from_cpufreq.clock_hz = 3.7e9;
  from_cpufreq.clock_is_guess = false;
  use_measured_clock(from_cpufreq, 2.0e9);
  EXPECT_DOUBLE_EQ(from_cpufreq.clock_hz, 3.7e9);
}

TEST(CpuInfo, ClockIsMeasurableOnX86) {
#if defined(__x86_64__)
  const auto hz = measure_clock_hz();
  ASSERT_TRUE(hz.has_value());
  EXPECT_GT(*hz, 0.0);
#else
  EXPECT_FALSE(measure_clock_hz().has_value());
#endif
}

TEST(CpuInfo, ThisMachineHasAtLeastOneCore) {
  const CpuInfo cpu = read_cpu_info();
  EXPECT_GE(cpu.physical_cores, 1);
  EXPECT_GE(cpu.logical_cpus, cpu.physical_cores);
  EXPECT_FALSE(cpu.clock_source.empty());
}

}  // namespace
}  // namespace tb::measure
