// Memory bandwidth, STREAM-style (McCalpin, "Memory Bandwidth and Machine Balance in Current High
// Performance Computers", IEEE TCCA Newsletter 1995; www.cs.virginia.edu/stream): copy and triad
// over double arrays far larger than the last-level cache, one thread per physical core.
#pragma once

#include <cstddef>
#include <vector>

#include "trainbudget/measure/records.hpp"

namespace tb::measure {

struct BandwidthOptions {
  std::size_t array_bytes{0};  // per array; see default_stream_array_bytes()
  int threads{1};
  int warmups{1};
  int repetitions{3};
};

// STREAM's rule: each array at least 4 x the last-level cache. The LLC size comes from sysfs
// (cpu0/cache/index3), else 32 MiB (one Zen 4/Zen 5 CCD) is assumed; at least 128 MiB, and never
// more than 1/16 of `memory_total` bytes.
[[nodiscard]] std::size_t default_stream_array_bytes(double memory_total);

// Writes a buffer of twice the last-level cache (64 MiB when sysfs does not say) so that what
// ran before is evicted: triton.testing.do_bench's practice (it zeroes a 256 MB buffer before
// each timed call). Not thread-safe; the buffer is kept for the next call.
void flush_cache();

// STREAM's copy (c = a: 2 x 8 bytes moved per element), then triad (a = b + s * c: 3 x 8) on the
// same arrays, counted as STREAM counts them (no write-allocate traffic).
[[nodiscard]] std::vector<BandwidthRun> measure_stream(const BandwidthOptions& options);

// The rate at which one thread writes memory the OS has just handed out (kernel "first touch"):
// an anonymous mapping of `array_bytes`, written once and unmapped, `repetitions` times. Each
// page faults on its first write and the kernel zeroes it, so this runs far below the streaming
// rate (1.7 GB/s against 25 GB/s for one thread on the 2-core VM of December 2026). It is what
// an eager CPU step pays for every tensor its allocator maps afresh (docs/time.md, "Measured").
[[nodiscard]] BandwidthRun measure_first_touch(std::size_t array_bytes, int repetitions);

}  // namespace tb::measure
