// /proc/cpuinfo parsing and the CPU's theoretical peak. The parsers take text so that tests can
// feed them other machines' files; only read_*() touch the file system.
#include "trainbudget/measure/cpu_info.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "kernels.hpp"

namespace tb::measure {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::optional<long> to_long(std::string_view s) {
  s = trim(s);
  long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr == s.data()) return std::nullopt;
  return v;
}

std::string read_text(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct ProcessorBlock {
  int processor{-1};
  int physical_id{0};
  int core_id{-1};
  std::string vendor;
  std::string model_name;
  int family{-1};
  int model{-1};
  double mhz{0.0};
  std::string flags;
};

std::vector<ProcessorBlock> split_blocks(std::string_view text) {
  std::vector<ProcessorBlock> blocks;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (key == "processor") {
      blocks.emplace_back();
      blocks.back().processor = static_cast<int>(to_long(value).value_or(-1));
      continue;
    }
    if (blocks.empty()) continue;
    ProcessorBlock& b = blocks.back();
    if (key == "physical id") b.physical_id = static_cast<int>(to_long(value).value_or(0));
    if (key == "core id") b.core_id = static_cast<int>(to_long(value).value_or(-1));
    if (key == "vendor_id") b.vendor = value;
    if (key == "model name") b.model_name = value;
    if (key == "cpu family") b.family = static_cast<int>(to_long(value).value_or(-1));
    if (key == "model") b.model = static_cast<int>(to_long(value).value_or(-1));
    if (key == "cpu MHz") b.mhz = to_double(value).value_or(0.0);
    if (key == "flags") b.flags = value;
  }
  return blocks;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

constexpr int kAmdFamilyZen3Zen4 = 0x19;
constexpr int kAmdFamilyZen5 = 0x1A;

enum class Uarch { kUnknown, kZen3, kZen4, kZen5Desktop, kZen5Mobile, kZen5Server, kZen5Other };

// AMD family 19h is Zen 3 and Zen 4 (only Zen 4 has AVX-512); family 1Ah is Zen 5. The segment
// (server, desktop, mobile) decides the datapath width on Zen 5 [HARDWARE.md §8, S26, S36], and
// only the marketing name tells it apart: "EPYC" is server, "Ryzen AI" (Strix Point) mobile,
// other "Ryzen" desktop. "Ryzen AI Max" (Strix Halo) is in no source we have.
Uarch detect(const CpuInfo& cpu) {
  if (cpu.vendor != "AuthenticAMD") return Uarch::kUnknown;
  if (cpu.family == kAmdFamilyZen3Zen4) return cpu.has("avx512f") ? Uarch::kZen4 : Uarch::kZen3;
  if (cpu.family != kAmdFamilyZen5) return Uarch::kUnknown;
  const std::string_view name = cpu.model_name;
  if (contains(name, "EPYC")) return Uarch::kZen5Server;
  if (contains(name, "Ryzen AI Max")) return Uarch::kZen5Other;
  if (contains(name, "Ryzen AI")) return Uarch::kZen5Mobile;
  if (contains(name, "Ryzen")) return Uarch::kZen5Desktop;
  return Uarch::kZen5Other;
}

// Widest vector ISA x an assumed 2 FMA units x 2 FLOPs per FMA. Two FMA ports has been the rule
// on x86 cores since Haswell, but some parts have one 512-bit unit: hence "derived".
PerCycle derived_fp32(const CpuInfo& cpu) {
  int lanes = 4;  // SSE
  std::string isa = "SSE (128-bit)";
  if (cpu.has("avx512f")) {
    lanes = 16;
    isa = "AVX-512 (512-bit)";
  } else if (cpu.has("avx")) {
    lanes = 8;
    isa = "AVX (256-bit)";
  }
  const bool fma = cpu.has("fma") || cpu.has("avx512f");
  // Without FMA: one multiply and one add port, the same 2 FLOPs per lane per cycle per pair.
  const double units = 2.0;
  const double per_lane = fma ? 2.0 : 1.0;
  return {static_cast<double>(lanes) * units * per_lane,
          fmt::format("derived: {} x {} lanes x 2 {} units (assumed) x {} FLOPs", isa, lanes,
                      fma ? "FMA" : "add/mul", fma ? 2 : 1),
          true};
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view cpuinfo_text, const std::vector<int>& allowed_cpus) {
  const std::vector<ProcessorBlock> blocks = split_blocks(cpuinfo_text);
  CpuInfo cpu;
  std::set<std::pair<int, int>> cores;
  const ProcessorBlock* first = nullptr;
  for (const ProcessorBlock& b : blocks) {
    if (!allowed_cpus.empty() &&
        std::find(allowed_cpus.begin(), allowed_cpus.end(), b.processor) == allowed_cpus.end()) {
      continue;
    }
    if (first == nullptr) first = &b;
    ++cpu.logical_cpus;
    // Without "core id" (some VMs, other architectures) each processor counts as a core.
    cores.emplace(b.physical_id, b.core_id >= 0 ? b.core_id : 1000000 + b.processor);
  }
  cpu.physical_cores = static_cast<int>(cores.size());
  if (first != nullptr) {
    cpu.vendor = first->vendor;
    cpu.model_name = first->model_name;
    cpu.family = first->family;
    cpu.model = first->model;
    cpu.flags = split_words(first->flags);
    if (first->mhz > 0.0) {
      cpu.clock_hz = first->mhz * 1e6;
      cpu.clock_source = "/proc/cpuinfo \"cpu MHz\" (current or nominal clock, not the boost)";
      cpu.clock_is_guess = true;
    }
  }
  return cpu;
}

CpuInfo read_cpu_info() {
  std::vector<int> allowed;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(CPU_SETSIZE); ++i) {
      if (CPU_ISSET(i, &set)) allowed.push_back(static_cast<int>(i));
    }
  }
  CpuInfo cpu = parse_cpuinfo(read_text("/proc/cpuinfo"), allowed);
  const int probe = allowed.empty() ? 0 : allowed.front();
  const std::string path =
      fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/cpuinfo_max_freq", probe);
  if (const auto khz = to_long(read_text(path.c_str())); khz && *khz > 0) {
    cpu.clock_hz = static_cast<double>(*khz) * 1e3;
    cpu.clock_source = path + " (maximum boost clock; the all-core clock under load may be lower)";
    cpu.clock_is_guess = false;
  }
  if (cpu.clock_source.empty()) cpu.clock_source = "unknown (no cpufreq, no \"cpu MHz\")";
  return cpu;
}

std::optional<double> measure_clock_hz() {
  if (!detail::have_dependent_adds()) return std::nullopt;
  using Clock = std::chrono::steady_clock;
  // 1.6 M cycles: ~0.5 ms at 3 GHz, far below a scheduler time slice, so on a loaded machine
  // some of the 100 samples still run without being preempted (about 0.05 s in all).
  constexpr std::uint64_t kIterations = 25'000;
  (void)detail::dependent_adds(20 * kIterations);  // wake the core up
  double best = 0.0;
  for (int i = 0; i < 100; ++i) {
    const auto start = Clock::now();
    const std::uint64_t sum = detail::dependent_adds(kIterations);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (sum != 64 * kIterations || seconds <= 0.0) return std::nullopt;
    best = std::max(best, 64.0 * static_cast<double>(kIterations) / seconds);
  }
  return best;
}

void use_measured_clock(CpuInfo& cpu, double measured_hz) {
  if (!cpu.clock_is_guess || measured_hz <= 0.0) return;
  const std::string reported =
      cpu.clock_hz > 0.0 ? fmt::format("; /proc/cpuinfo says {:.3f} GHz", cpu.clock_hz / 1e9)
                         : std::string{};
  cpu.clock_hz = measured_hz;
  cpu.clock_source = fmt::format(
      "measured: dependent integer ADDs at 1 cycle each on one core, fastest of 100 "
      "half-millisecond samples{} (one core's "
      "clock now; all cores under AVX-512 load may be slower)",
      reported);
  cpu.clock_is_guess = false;
}

std::optional<Bytes> parse_meminfo_field(std::string_view meminfo_text, std::string_view key) {
  const std::string label = std::string{key} + ":";
  std::size_t at = 0;
  // The key at the start of a line (MemTotal, not a suffix of another key).
  for (;;) {
    at = meminfo_text.find(label, at);
    if (at == std::string_view::npos) return std::nullopt;
    if (at == 0 || meminfo_text[at - 1] == '\n') break;
    at += label.size();
  }
  std::string_view rest = meminfo_text.substr(at + label.size());
  rest = rest.substr(0, rest.find('\n'));
  rest = trim(rest);
  if (!rest.ends_with("kB")) return std::nullopt;
  const auto kib = to_long(rest.substr(0, rest.size() - 2));
  if (!kib || *kib <= 0) return std::nullopt;
  return Bytes{static_cast<double>(*kib) * 1024.0};  // the kernel's "kB" is KiB
}

std::optional<Bytes> parse_meminfo_total(std::string_view meminfo_text) {
  return parse_meminfo_field(meminfo_text, "MemTotal");
}

std::optional<Bytes> read_memory_available() {
  return parse_meminfo_field(read_text("/proc/meminfo"), "MemAvailable");
}

std::optional<Bytes> read_memory_total() { return parse_meminfo_total(read_text("/proc/meminfo")); }

std::vector<std::string> isa_flags(const CpuInfo& cpu) {
  constexpr std::array<std::string_view, 15> kInteresting{
      "sse4_2",      "avx",      "fma",      "avx2",        "avx_vnni",
      "avx512f",     "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
      "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8",    "amx_fp16"};
  std::vector<std::string> out;
  for (const std::string_view f : kInteresting) {
    if (cpu.has(f)) out.emplace_back(f);
  }
  return out;
}

std::string microarchitecture(const CpuInfo& cpu) {
  switch (detect(cpu)) {
    case Uarch::kZen3:
      return "Zen 3";
    case Uarch::kZen4:
      return "Zen 4";
    case Uarch::kZen5Desktop:
      return "Zen 5 (desktop)";
    case Uarch::kZen5Mobile:
      return "Zen 5 (mobile)";
    case Uarch::kZen5Server:
      return "Zen 5 (server)";
    case Uarch::kZen5Other:
      return "Zen 5 (segment unknown)";
    case Uarch::kUnknown:
      break;
  }
  return "unknown";
}

// HARDWARE.md §8 (FP32 FMA FLOPs/cycle/core):
//   Zen 4: 32 — two 256-bit FMA pipes, a 512-bit FMA occupies both [S27 LLVM znver4 model from
//          AMD SOG 57647; S25; S26].
//   Zen 5 desktop (Granite Ridge): 64 measured (vfpbench, Ryzen 7 9700X, vfmaddps at IPC 2) [S25].
//   Zen 5 mobile (Strix Point): 32, 256-bit datapath retained [S26].
//   Zen 5 server (Turin): 64 expected ("AVX512 on 512-bit datapath") but no measured figure [S36].
PerCycle fp32_flops_per_cycle(const CpuInfo& cpu) {
  switch (detect(cpu)) {
    case Uarch::kZen4:
      return {32.0, "Zen 4: 32 (2 x 256-bit FMA pipes; HARDWARE.md §8 [S27][S25][S26])", false};
    case Uarch::kZen5Desktop:
      return {64.0, "Zen 5 desktop: 64, measured (HARDWARE.md §8 [S25])", false};
    case Uarch::kZen5Mobile:
      return {32.0, "Zen 5 mobile: 32, 256-bit datapath (HARDWARE.md §8 [S26])", false};
    case Uarch::kZen5Server:
      return {64.0,
              "Zen 5 server: 64 expected from AMD's 512-bit datapath, unmeasured (HARDWARE.md §8 "
              "[S36])",
              false};
    case Uarch::kZen3:
    case Uarch::kZen5Other:
    case Uarch::kUnknown:
      break;
  }
  return derived_fp32(cpu);
}

// Same instruction rate, half the lanes of FP32 (HARDWARE.md §8, FP64 column: "by vector width").
PerCycle fp64_flops_per_cycle(const CpuInfo& cpu) {
  const PerCycle fp32 = fp32_flops_per_cycle(cpu);
  return {fp32.flops / 2.0,
          fmt::format("half the FP32 figure (FP64 lanes are twice as wide); {}", fp32.basis),
          fp32.derived};
}

// AMX: Intel's 4th-gen Xeon performs 1024 BF16 operations per cycle per core (Intel, "Accelerate
// AI Workloads with Intel AMX", as quoted in Wikipedia "Advanced Matrix Extensions"). AVX512_BF16:
// VDPBF16PS zmm does 32 BF16 multiply-adds = 64 FLOPs (Intel SDM [S28]); its issue rate on any
// AMD core is in no source, so the figure assumes it issues like a ZMM FMA (2 x the FP32 rate) —
// HARDWARE.md §8 calls this an unverified hypothesis, and so do we.
PerCycle bf16_flops_per_cycle(const CpuInfo& cpu) {
  const PerCycle fp32 = fp32_flops_per_cycle(cpu);
  if (cpu.has("amx_bf16")) {
    return {1024.0, "AMX-BF16: 1024 FLOPs/cycle/core (Intel AMX overview, 4th-gen Xeon)", false};
  }
  if (cpu.has("avx512_bf16")) {
    return {2.0 * fp32.flops,
            "AVX512_BF16: VDPBF16PS = 2 x the FP32 FMA FLOPs per instruction [S28]; assumes it "
            "issues like an FMA (unverified, HARDWARE.md §8); FP32 basis: " +
                fp32.basis,
            true};
  }
  return {fp32.flops,
          fmt::format("no BF16 arithmetic in the ISA: BF16 runs as FP32; {}", fp32.basis),
          fp32.derived};
}

TheoreticalPeak theoretical_peak(const CpuInfo& cpu) {
  TheoreticalPeak peak;
  peak.microarchitecture = microarchitecture(cpu);
  const std::array<std::pair<DType, PerCycle>, 3> per_cycle{
      std::pair{DType::kFp64, fp64_flops_per_cycle(cpu)},
      std::pair{DType::kFp32, fp32_flops_per_cycle(cpu)},
      std::pair{DType::kBf16, bf16_flops_per_cycle(cpu)}};
  for (const auto& [dtype, pc] : per_cycle) {
    PeakRate r;
    r.dtype = dtype;
    r.per_cycle = pc;
    r.cores = cpu.physical_cores;
    r.clock_hz = cpu.clock_hz;
    // Theoretical peak = cores x clock x FLOPs/cycle/core (HARDWARE.md §8).
    r.rate = FlopsPerSecond{static_cast<double>(cpu.physical_cores) * cpu.clock_hz * pc.flops};
    peak.rates.push_back(std::move(r));
  }
  return peak;
}

}  // namespace tb::measure
