// The MPI plugin of the fabric measurement (fabric_plugin.hpp): every rank times the collectives
// of the options over host buffers, inside each host and between hosts; rank 0 gathers each
// call's slowest-rank time. Built as its own shared library, linked to MPI, loaded only by
// `measure` (so that nothing else pays MPI's start-up).
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "trainbudget/measure/fabric_plugin.hpp"

namespace {

using tb::Collective;
using tb::FabricTier;
using tb::measure::FabricMeasurement;
using tb::measure::FabricOptions;
using tb::measure::FabricRun;

// The watchdog: a collective that has not returned by its deadline ends the process (mpirun
// then ends the others), so a hung or dead peer never leaves the run waiting forever.
struct Watchdog {
  std::atomic<long long> deadline_ns{0};  // steady_clock; 0: nothing in flight
  std::atomic<bool> stop{false};
  char what[256]{};
  int rank{0};
  std::thread thread;

  void start() {
    thread = std::thread([this] {
      while (!stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const long long d = deadline_ns.load();
        const long long now = std::chrono::steady_clock::now().time_since_epoch().count();
        if (d != 0 && now > d) {
          std::fprintf(stderr,
                       "trainbudget: error: rank %d: %s did not finish in time (a rank died or "
                       "hangs); ending the run, nothing saved\n",
                       rank, what);
          std::fflush(stderr);
          std::_Exit(4);
        }
      }
    });
  }
  void arm(double seconds, const std::string& text) {
    std::snprintf(what, sizeof what, "%s", text.c_str());
    const auto d = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds));
    deadline_ns.store(d.time_since_epoch().count());
  }
  void disarm() { deadline_ns.store(0); }
  void finish() {
    stop.store(true);
    if (thread.joinable()) thread.join();
  }
};

// The test hook of tests/cli/fabric.sh (docs/fabric.md, "When a rank fails"):
// TRAINBUDGET_FABRIC_FAULT=exit:R ends rank R as a crash would, hang:R stops it answering,
// both at the first timed collective.
void inject_fault(int rank) {
  static bool done = false;
  const char* fault = std::getenv("TRAINBUDGET_FABRIC_FAULT");
  if (done || fault == nullptr) return;
  done = true;
  const std::string f{fault};
  const auto colon = f.find(':');
  if (colon == std::string::npos || std::atoi(f.c_str() + colon + 1) != rank) return;
  if (f.compare(0, colon, "exit") == 0) std::_Exit(9);
  if (f.compare(0, colon, "hang") == 0) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

// One call of `op` with `bytes` (as Collective defines them) on `comm`; returns the bytes the
// call really moved in those terms (counts rounded down to whole elements per rank).
double call(Collective op, double bytes, MPI_Comm comm, std::vector<char>& a,
            std::vector<char>& b) {
  int n = 1;
  int rank = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &rank);
  const auto whole = [](double v) { return std::max(1LL, static_cast<long long>(v)); };
  switch (op) {
    case Collective::kAllReduce: {
      const long long count = whole(bytes / 4.0);
      MPI_Allreduce(a.data(), b.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
      return static_cast<double>(count) * 4.0;
    }
    case Collective::kReduceScatter: {
      const long long per_rank = whole(bytes / 4.0 / n);
      MPI_Reduce_scatter_block(a.data(), b.data(), static_cast<int>(per_rank), MPI_FLOAT, MPI_SUM,
                               comm);
      return static_cast<double>(per_rank) * 4.0 * n;
    }
    case Collective::kAllGather: {
      const long long per_rank = whole(bytes / n);
      MPI_Allgather(a.data(), static_cast<int>(per_rank), MPI_BYTE, b.data(),
                    static_cast<int>(per_rank), MPI_BYTE, comm);
      return static_cast<double>(per_rank) * n;
    }
    case Collective::kAllToAll: {
      const long long per_peer = whole(bytes / n);
      MPI_Alltoall(a.data(), static_cast<int>(per_peer), MPI_BYTE, b.data(),
                   static_cast<int>(per_peer), MPI_BYTE, comm);
      return static_cast<double>(per_peer) * n;
    }
    case Collective::kBroadcast: {
      const long long count = whole(bytes);
      MPI_Bcast(a.data(), static_cast<int>(count), MPI_BYTE, 0, comm);
      return static_cast<double>(count);
    }
    case Collective::kSendRecv: {
      const long long count = whole(bytes);
      MPI_Sendrecv(a.data(), static_cast<int>(count), MPI_BYTE, (rank + 1) % n, 0, b.data(),
                   static_cast<int>(count), MPI_BYTE, (rank + n - 1) % n, 0, comm,
                   MPI_STATUS_IGNORE);
      return static_cast<double>(count);
    }
  }
  return bytes;
}

std::string size_text(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%g GiB", bytes / (1024.0 * 1024 * 1024));
  } else if (bytes >= 1024.0 * 1024) {
    std::snprintf(text, sizeof text, "%g MiB", bytes / (1024.0 * 1024));
  } else if (bytes >= 1024.0) {
    std::snprintf(text, sizeof text, "%g KiB", bytes / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%g B", bytes);
  }
  return text;
}

// Times every size of `op` on `comm` (every member calls this together); the slowest rank's
// time of each call.
std::vector<FabricRun> sweep(Collective op, FabricTier tier, MPI_Comm comm, const FabricOptions& o,
                             std::vector<char>& a, std::vector<char>& b, Watchdog& watchdog) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  std::vector<FabricRun> out;
  for (const double bytes : o.sizes) {
    FabricRun run;
    run.op = op;
    run.tier = tier;
    run.ranks = n;
    const std::string what = std::string(tb::enum_name(op)) + " of " + size_text(bytes) + " (" +
                             std::string(tb::enum_name(tier)) + ", " + std::to_string(n) +
                             " ranks)";
    watchdog.arm(o.timeout_seconds, what);
    inject_fault(watchdog.rank);
    for (int i = 0; i < o.warmups; ++i) run.bytes = call(op, bytes, comm, a, b);
    for (int i = 0; i < o.repetitions; ++i) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      run.bytes = call(op, bytes, comm, a, b);
      const double mine = MPI_Wtime() - t0;
      double slowest = 0.0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      run.seconds.push_back(std::max(slowest, 1e-9));
    }
    watchdog.disarm();
    out.push_back(std::move(run));
  }
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING]{};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string v(text, static_cast<std::size_t>(std::max(0, length)));
  v = v.substr(0, v.find_first_of("\n,"));
  while (!v.empty() && (v.back() == ' ' || v.back() == '\n')) v.pop_back();
  return v;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int trainbudget_fabric_measure(
    const FabricOptions* options, FabricMeasurement* out, char* error, std::size_t error_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto fail = [&](const std::string& why) {
    std::snprintf(error, error_size, "%s", why.c_str());
    MPI_Finalize();
    return rank == 0 ? tb::measure::kFabricFailed : tb::measure::kFabricFailedQuietly;
  };
  if (size < 2) {
    return fail(
        "the fabric measurement needs at least 2 ranks (mpirun -n 2 or more); this run has 1");
  }

  // Hosts: every rank's processor name, hosts numbered in order of first appearance.
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME, '\0');
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  MPI_Get_processor_name(mine.data(), &length);
  MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  std::vector<int> host_of(static_cast<std::size_t>(size));
  std::map<std::string, int> per_host;
  for (int r = 0; r < size; ++r) {
    const std::string name(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    const auto it = std::find(hosts.begin(), hosts.end(), name);
    host_of[static_cast<std::size_t>(r)] = static_cast<int>(it - hosts.begin());
    if (it == hosts.end()) hosts.push_back(name);
    ++per_host[name];
  }
  const int ranks_per_host = per_host[hosts.front()];
  for (const auto& [name, count] : per_host) {
    if (count != ranks_per_host) {
      return fail("every host must run the same number of ranks (" + hosts.front() + " runs " +
                  std::to_string(ranks_per_host) + ", " + name + " " + std::to_string(count) +
                  "): give mpirun the same slots on each");
    }
  }
  int local_rank = 0;
  for (int r = 0; r < rank; ++r) {
    if (host_of[static_cast<std::size_t>(r)] == host_of[static_cast<std::size_t>(rank)]) {
      ++local_rank;
    }
  }

  // Inside a host: the host's ranks. Between hosts: one communicator per local rank, all at
  // once, so each sees the share of the host's link it gets when every rank of a node
  // communicates across nodes together (the case eval/comm.hpp's group_link models).
  MPI_Comm intra = MPI_COMM_NULL;
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, host_of[static_cast<std::size_t>(rank)], rank, &intra);
  MPI_Comm_split(MPI_COMM_WORLD, local_rank, rank, &inter);

  const FabricOptions& o = *options;
  const double largest = o.sizes.empty() ? 8.0 : o.sizes.back();
  std::vector<char> a;
  std::vector<char> b;
  try {
    a.assign(static_cast<std::size_t>(largest) + 64, '\1');
    b.assign(static_cast<std::size_t>(largest) + 64, '\0');
  } catch (const std::bad_alloc&) {
    return fail("cannot allocate two buffers of " + size_text(largest) +
                " on every rank: give smaller sizes");
  }

  Watchdog watchdog;
  watchdog.rank = rank;
  watchdog.start();
  FabricMeasurement result;
  for (const FabricTier tier : {FabricTier::kIntraNode, FabricTier::kInterNode}) {
    const bool run = tier == FabricTier::kIntraNode ? ranks_per_host >= 2 : hosts.size() >= 2;
    if (!run) continue;
    const MPI_Comm comm = tier == FabricTier::kIntraNode ? intra : inter;
    for (const Collective op : o.ops) {
      std::vector<FabricRun> runs = sweep(op, tier, comm, o, a, b, watchdog);
      if (rank == 0 && o.progress && !runs.empty()) {
        const FabricRun& last = runs.back();
        std::vector<double> sorted = last.seconds;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        char line[256];
        std::snprintf(line, sizeof line,
                      "fabric: %-14s %-10s %d ranks: %zu sizes to %s, %.3g GB/s bus bandwidth at "
                      "the largest",
                      std::string(tb::enum_name(op)).c_str(),
                      std::string(tb::enum_name(tier)).c_str(), last.ranks, runs.size(),
                      size_text(last.bytes).c_str(),
                      last.bytes * tb::bus_bandwidth_factor(op, last.ranks) / median / 1e9);
        o.progress(line);
      }
      for (FabricRun& r : runs) result.runs.push_back(std::move(r));
    }
  }
  watchdog.finish();
  MPI_Comm_free(&intra);
  MPI_Comm_free(&inter);
  result.hosts = hosts;
  result.ranks = size;
  result.ranks_per_host = ranks_per_host;
  result.runtime = library_version();
  result.buffers = "host";
  result.date = utc_now();
  MPI_Finalize();
  if (rank != 0) return tb::measure::kFabricOtherRank;
  *out = std::move(result);
  return tb::measure::kFabricRoot;
}
