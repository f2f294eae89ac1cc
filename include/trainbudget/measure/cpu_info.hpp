// The CPU as the OS exposes it (/proc/cpuinfo, cpufreq, the affinity mask) and its theoretical
// peak: cores x clock x FLOPs/cycle/core, with the per-cycle figure's source named.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

// Parses /proc/cpuinfo text. Only the processors listed in `allowed_cpus` count (empty: all);
// physical cores are the distinct (physical id, core id) pairs among them. The clock is the
// "cpu MHz" of the first counted processor, marked as a guess (it is the current or nominal
// clock, not the sustained all-core one).
[[nodiscard]] CpuInfo parse_cpuinfo(std::string_view cpuinfo_text,
                                    const std::vector<int>& allowed_cpus = {});

// This machine: /proc/cpuinfo restricted to sched_getaffinity(), and the clock from
// /sys/devices/system/cpu/cpu*/cpufreq/cpuinfo_max_freq when the kernel exposes it.
[[nodiscard]] CpuInfo read_cpu_info();

// The clock of the core this thread runs on, measured: a chain of dependent integer ADDs (one
// cycle each) timed 100 times for ~0.5 ms, the fastest taken (a preempted sample only looks
// slower). nullopt off x86-64. It is one core's clock now; all cores under AVX-512 load may run
// slower, so a peak from it is still an upper-bound estimate.
[[nodiscard]] std::optional<double> measure_clock_hz();

// Replaces a guessed clock (cpuinfo "cpu MHz") with the measured one; a cpufreq maximum is kept.
void use_measured_clock(CpuInfo& cpu, double measured_hz);

// MemTotal from /proc/meminfo (KiB in the file), as bytes; nullopt when unreadable.
[[nodiscard]] std::optional<Bytes> parse_meminfo_total(std::string_view meminfo_text);
// Any "Key:   N kB" line of /proc/meminfo (MemTotal, MemAvailable), in bytes.
[[nodiscard]] std::optional<Bytes> parse_meminfo_field(std::string_view meminfo_text,
                                                       std::string_view key);
// MemAvailable: what the kernel estimates can be allocated without swapping, now.
[[nodiscard]] std::optional<Bytes> read_memory_available();
[[nodiscard]] std::optional<Bytes> read_memory_total();

// The ISA extensions that matter for GEMM throughput, in the order shown, that `cpu` has.
[[nodiscard]] std::vector<std::string> isa_flags(const CpuInfo& cpu);

// "Zen 4", "Zen 5 (server)", ... or "unknown" when the family/model/name match no rule below.
[[nodiscard]] std::string microarchitecture(const CpuInfo& cpu);

// FP32 FLOPs per cycle per core: a sourced figure for the microarchitectures in
// docs/measure.md, else derived from the widest vector ISA x 2 FMA units (marked derived).
[[nodiscard]] PerCycle fp32_flops_per_cycle(const CpuInfo& cpu);
// FP64: half the FP32 lanes at the same instruction rate.
[[nodiscard]] PerCycle fp64_flops_per_cycle(const CpuInfo& cpu);
// BF16 matrix rate: AMX tiles, else AVX512_BF16 dot products, else the FP32 rate.
[[nodiscard]] PerCycle bf16_flops_per_cycle(const CpuInfo& cpu);

// cores x clock x per-cycle figure for fp64, fp32 and bf16. Rates are zero (and the basis says
// why) when the core count or clock is unknown.
[[nodiscard]] TheoreticalPeak theoretical_peak(const CpuInfo& cpu);

}  // namespace tb::measure
