// Machine profiles: what `measure --save` writes (profile_device, then io::save_device) loads with
// the real catalog loader and gives the same rates back; the write is atomic even when the writer
// is killed mid-write.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "scratch_dir.hpp"
#include "trainbudget/io/device_toml.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/measure/profile.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::measure {
namespace {
namespace fs = std::filesystem;

using TempDir = tb::test_support::ScratchDir;

GemmRun ok_run(const std::string& backend, DType dtype, GemmShape shape, double seconds) {
  GemmRun r;
  r.backend = backend;
  r.dtype = dtype;
  r.shape = shape;
  r.shape_label = "square";
  r.samples_seconds = {seconds, seconds * 1.1, seconds * 0.95};
  r.stats.median = seconds;
  r.stats.min = seconds * 0.95;
  r.stats.max = seconds * 1.1;
  r.stats.count = 3;
  r.median_rate = FlopsPerSecond{shape.flops().value() / seconds};
  r.best_rate = FlopsPerSecond{shape.flops().value() / r.stats.min};
  return r;
}

// A measurement as the runner would leave it on a 2-core Zen 5 VM.
Measurement sample_measurement() {
  Measurement m;
  m.context.host = "testhost";
  m.context.date = "2026-11-30T04:31:33Z";
  m.context.tool_version = "0.1.0";
  m.context.commit = "abc1234";
  m.context.quick = true;
  m.context.cpu.model_name = "AMD EPYC";
  m.context.cpu.physical_cores = 2;
  m.context.memory_capacity = Bytes{25.275e9};
  for (const auto& [name, kernel] :
       {std::pair{"openblas", "Haswell"}, std::pair{"onednn", "avx512_core_bf16"}}) {
    BackendInfo b;
    b.name = name;
    b.status = Status::kOk;
    b.kernel = kernel;
    m.context.backends.push_back(b);
  }
  const GemmShape cube{2048, 2048, 2048};
  m.gemm.push_back(ok_run("openblas", DType::kFp32, cube, 0.2));
  m.gemm.push_back(ok_run("onednn", DType::kFp32, cube, 0.124));  // the faster fp32
  m.gemm.push_back(ok_run("onednn", DType::kBf16, {2048, 4096, 1024}, 0.056));
  m.gemm.push_back(ok_run("openblas", DType::kFp64, {1024, 1024, 1024}, 0.049));
  GemmRun failed = ok_run("blis", DType::kFp32, cube, 0.01);  // fastest, but failed: not saved
  failed.status = Status::kFailed;
  m.gemm.push_back(failed);
  BandwidthRun triad;
  triad.kernel = "triad";
  triad.samples_seconds = {0.0122};
  triad.median_rate = BytesPerSecond{33.1e9};
  m.bandwidth.push_back(triad);
  BandwidthRun touch;
  touch.kernel = "first touch";
  touch.array_bytes = Bytes{134217728.0};
  touch.samples_seconds = {0.0716};
  touch.median_rate = BytesPerSecond{1.874e9};
  m.bandwidth.push_back(touch);
  return m;
}

TEST(Profile, RoundTripsThroughTheCatalogLoaderWithTheSameRates) {
  const Measurement m = sample_measurement();
  const Device d = io::parse_device_toml(io::device_toml(profile_device(m, "my-vm")), "my-vm.toml");
  EXPECT_EQ(d.id, "my-vm");
  EXPECT_EQ(d.vendor, "other");
  EXPECT_EQ(d.category, "cpu");
  EXPECT_NEAR(d.memory_capacity.value(), 25.275e9, 1e3);
  ASSERT_TRUE(d.memory_bandwidth.has_value());
  EXPECT_NEAR(d.memory_bandwidth->value(), 33.1e9, 33.1e9 * 1e-5);
  // The first-touch rate (fresh pages written by one thread) is the triad's companion: the
  // rate eager PyTorch writes tensors of 32 MiB or more at (docs/time.md, "Measured").
  ASSERT_TRUE(d.first_touch_bandwidth.has_value());
  EXPECT_NEAR(d.first_touch_bandwidth->value(), 1.874e9, 1.874e9 * 1e-5);
  ASSERT_EQ(d.rates.size(), 3U);
  for (const DType dtype : {DType::kFp64, DType::kFp32, DType::kBf16}) {
    const ComputeRate* rate = d.rate(dtype);
    ASSERT_NE(rate, nullptr) << enum_name(dtype);
    const double expected = m.best(dtype)->median_rate.value();
    EXPECT_NEAR(rate->dense.value(), expected, expected * 1e-5) << enum_name(dtype);
    EXPECT_EQ(rate->kind, RateKind::kMeasured);
    EXPECT_EQ(rate->measured_by, "trainbudget measure on testhost");
    EXPECT_EQ(rate->date, "2026-11-30");
  }
  // The failed BLIS run was the "fastest"; the saved fp32 rate is oneDNN's.
  EXPECT_EQ(d.rate(DType::kFp32)->method, "onednn fp32 GEMM 2048x2048x2048");
  EXPECT_NEAR(d.rate(DType::kFp32)->dense.value(), 2.0 * 2048 * 2048 * 2048 / 0.124, 1e6);
}

TEST(Profile, OddHostAndCpuNamesAreEscapedIntoValidToml) {
  Measurement m = sample_measurement();
  m.context.host = "lab \"box\"\\1";
  m.context.cpu.model_name = "Weird\tCPU\x01 §";
  const Device d = io::parse_device_toml(io::device_toml(profile_device(m, "odd")), "odd.toml");
  EXPECT_EQ(d.rate(DType::kFp32)->measured_by, "trainbudget measure on lab \"box\"\\1");
  // Control characters become spaces: the catalog refuses them in names.
  EXPECT_EQ(d.name, "Weird CPU  § x 2 cores (lab \"box\"\\1, measured)");
}

TEST(Profile, SavedFileIsWhatEstimateLoadsFromTheUserDirectory) {
  TempDir dir;
  const fs::path file =
      io::save_device(profile_device(sample_measurement(), "local"), dir.path() / "hw");
  EXPECT_EQ(file, dir.path() / "hw" / "local.toml");
  io::CatalogSources sources;
  sources.builtin_dir = io::data_dir() / "hardware";
  sources.user_dirs = {dir.path() / "hw"};
  const HardwareCatalog catalog = io::load_catalog(sources);
  const Device* local = catalog.find("local");
  ASSERT_NE(local, nullptr);
  const ComputeRate* rate = select_rate(*local, DType::kBf16);
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->dtype, DType::kBf16);
  EXPECT_NEAR(rate->dense.value(), 2.0 * 2048 * 4096 * 1024 / 0.056, 1e6);
}

TEST(Profile, IdMustBeACatalogId) {
  EXPECT_NO_THROW(validate_profile_id("local"));
  EXPECT_NO_THROW(validate_profile_id("epyc-2c-vm"));
  for (const char* bad : {"My Box", "", "-x", "x-", "a/b", "box.toml", "BOX"}) {
    try {
      validate_profile_id(bad);
      ADD_FAILURE() << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("save: '", 0), 0U) << e.what();
    }
  }
}

TEST(Profile, NothingMeasuredIsAnErrorNotAnEmptyProfile) {
  Measurement m = sample_measurement();
  for (GemmRun& r : m.gemm) r.status = Status::kSkipped;
  EXPECT_THROW((void)profile_device(m, "empty"), Error);
}

// A complete profile whose every part carries the same generation number, so that a file mixing
// two writes, or cut short, is detected: TOML that parses but disagrees with itself.
std::string generation_profile(int generation) {
  return fmt::format(
      "id = \"kill-test\"\nname = \"generation {0}\"\nvendor = \"other\"\ncategory = \"cpu\"\n"
      "notes = \"{1}\"\n[memory]\ncapacity_gb = {0}\nsource = \"test\"\n"
      "[compute.fp32]\ndense_tflops = {0}\nkind = \"measured\"\nsource = \"generation {0}\"\n"
      "measured_by = \"test\"\nmethod = \"generation {0}\"\n",
      generation, std::string(64 * 1024, static_cast<char>('a' + generation % 26)));
}

void expect_whole_generation(const Device& d) {
  const double generation = d.memory_capacity.value() / 1e9;
  EXPECT_EQ(d.name, fmt::format("generation {}", generation));
  ASSERT_NE(d.rate(DType::kFp32), nullptr);
  EXPECT_DOUBLE_EQ(d.rate(DType::kFp32)->dense.value(), generation * 1e12);
  EXPECT_EQ(d.notes,
            std::string(64 * 1024, static_cast<char>('a' + static_cast<int>(generation) % 26)));
}

// The writer is forked and killed with SIGKILL at random moments, many times; after every kill
// the file must load as one complete profile, old or new. The child writes one profile and
// reports it through a pipe before the kill window opens, so each round replaces the file.
TEST(Profile, AtomicWriteSurvivesSigkillAtAnyMoment) {
  TempDir dir;
  const fs::path file = dir.path() / "kill-test.toml";
  io::write_file_atomically(file, generation_profile(1));
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> delay_us(0, 3000);
  int last_seen = 1;
  constexpr int kRounds = 30;
  for (int round = 0; round < kRounds; ++round) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(ready[0]);
      const int base = (round + 2) * 1000;
      io::write_file_atomically(file, generation_profile(base));
      const char byte = 1;
      (void)!write(ready[1], &byte, 1);
      for (int g = base + 1;; ++g) io::write_file_atomically(file, generation_profile(g));
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));

    const Device d = io::load_device_file(file);  // throws DataError on a broken file
    expect_whole_generation(d);
    const int generation = static_cast<int>(d.memory_capacity.value() / 1e9);
    EXPECT_GE(generation, (round + 2) * 1000) << "the child's first write was lost";
    EXPECT_NE(generation, last_seen);
    last_seen = generation;
  }
  // Left-over temporary files are hidden and not *.toml: the directory still loads as one device.
  const std::vector<Device> devices = io::load_device_dir(dir.path());
  ASSERT_EQ(devices.size(), 1U);
  EXPECT_EQ(devices[0].id, "kill-test");
}

}  // namespace
}  // namespace tb::measure
