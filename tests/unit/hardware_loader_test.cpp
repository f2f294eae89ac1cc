// TOML device files: what is accepted, and every problem reported at once.
#include "trainbudget/io/hardware_loader.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

constexpr std::string_view kGood = R"(
id = "box"
name = "Box"
vendor = "other"
category = "cpu"
[memory]
capacity_gb = 64
bandwidth_gb_per_s = 100
source = "spec"
[compute.fp32]
dense_tflops = 2.5
kind = "measured"
measured_by = "me"
method = "sgemm"
source = "bench"
[compute.bf16]
dense_tflops = 5
sparse_tflops = 10
kind = "spec"
source = "sheet"
[interconnect]
name = "PCIe"
bandwidth_gb_per_s = 64
direction = "per-direction"
source = "spec"
[price]
usd_per_hour = 1.5
date = "2026-01-01"
source = "shop"
)";

TEST(HardwareLoader, ParsesEveryField) {
  const Device d = parse_device_toml(kGood, "box");
  EXPECT_EQ(d.id, "box");
  EXPECT_DOUBLE_EQ(d.memory_capacity.value(), 64e9);
  EXPECT_EQ(d.memory_capacity_unit, CapacityUnit::kGB);
  EXPECT_DOUBLE_EQ(d.memory_bandwidth->value(), 100e9);
  ASSERT_NE(d.rate(DType::kFp32), nullptr);
  EXPECT_DOUBLE_EQ(d.rate(DType::kFp32)->dense.value(), 2.5e12);
  EXPECT_EQ(d.rate(DType::kFp32)->kind, RateKind::kMeasured);
  EXPECT_EQ(d.rate(DType::kFp32)->method, "sgemm");
  EXPECT_DOUBLE_EQ(d.rate(DType::kBf16)->dense.value(), 5e12);
  EXPECT_DOUBLE_EQ(d.rate(DType::kBf16)->sparse->value(), 10e12);
  EXPECT_FALSE(d.interconnect->bidirectional);
  EXPECT_DOUBLE_EQ(d.price->usd_per_hour.value(), 1.5);
}

TEST(HardwareLoader, CapacityGibIsBinary) {
  std::string text(kGood);
  text.replace(text.find("capacity_gb = 64"), 16, "capacity_gib = 80");
  const Device d = parse_device_toml(text, "box");
  EXPECT_DOUBLE_EQ(d.memory_capacity.value(), 80.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(d.memory_capacity_unit, CapacityUnit::kGiB);
}

TEST(HardwareLoader, ExactlyOneCapacityKey) {
  std::string both(kGood);
  both.replace(both.find("capacity_gb = 64"), 16, "capacity_gb = 64\ncapacity_gib = 80");
  try {
    (void)parse_device_toml(both, "box.toml");
    ADD_FAILURE() << "two capacity keys must be an error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "box.toml");
    ASSERT_EQ(e.problems().size(), 1U);
    EXPECT_EQ(e.problems()[0].rfind("memory.capacity_gb, memory.capacity_gib: give exactly one", 0),
              0U)
        << e.problems()[0];
  }
  std::string neither(kGood);
  neither.erase(neither.find("capacity_gb = 64\n"), 17);
  try {
    (void)parse_device_toml(neither, "box.toml");
    ADD_FAILURE() << "a missing capacity must be an error";
  } catch (const DataError& e) {
    ASSERT_EQ(e.problems().size(), 1U);
    EXPECT_EQ(e.problems()[0].rfind("memory.capacity_gib or memory.capacity_gb: missing", 0), 0U)
        << e.problems()[0];
  }
}

std::vector<std::string> problems_of(std::string_view text) {
  try {
    (void)parse_device_toml(text, "test.toml");
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "test.toml");
    return e.problems();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

bool mentions(const std::vector<std::string>& problems, std::string_view needle) {
  for (const auto& p : problems) {
    if (p.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(HardwareLoader, ReportsAllProblemsAtOnce) {
  const auto problems = problems_of(R"(
id = "x"
vendor = "acme"
category = "gpu"
colour = "red"
[memory]
capacity_gb = -1
[compute.bf16]
dense_tflops = "fast"
kind = "guess"
[compute.fp12]
dense_tflops = 1
)");
  EXPECT_TRUE(mentions(problems, "name: missing")) << problems.size();
  EXPECT_TRUE(mentions(problems, "vendor: 'acme' is not one of"));
  EXPECT_TRUE(mentions(problems, "category: 'gpu'"));
  EXPECT_TRUE(mentions(problems, "colour: unknown key"));
  EXPECT_TRUE(mentions(problems, "memory.capacity_gb: -1 must be"));
  EXPECT_TRUE(mentions(problems, "memory.source: missing"));
  EXPECT_TRUE(mentions(problems, "compute.bf16.dense_tflops: 'fast' must be a number"));
  EXPECT_TRUE(mentions(problems, "compute.bf16.kind: 'guess'"));
  EXPECT_TRUE(mentions(problems, "compute.bf16.source: missing"));
  EXPECT_TRUE(mentions(problems, "compute.fp12: unknown dtype"));
  EXPECT_GE(problems.size(), 10U);
}

TEST(HardwareLoader, MeasuredRatesNeedWhoAndHow) {
  const auto problems = problems_of(R"(
id = "x"
name = "X"
vendor = "other"
category = "cpu"
[memory]
capacity_gb = 1
source = "s"
[compute.fp32]
dense_tflops = 1
kind = "measured"
source = "s"
)");
  EXPECT_TRUE(mentions(problems, "compute.fp32.measured_by: missing"));
  EXPECT_TRUE(mentions(problems, "compute.fp32.method: missing"));
}

TEST(HardwareLoader, SparseBelowDenseIsCaught) {
  const auto problems = problems_of(R"(
id = "x"
name = "X"
vendor = "other"
category = "cpu"
[memory]
capacity_gb = 1
source = "s"
[compute.bf16]
dense_tflops = 2000
sparse_tflops = 1000
kind = "spec"
source = "s"
)");
  EXPECT_TRUE(mentions(problems, "sparse figure stored as dense"));
}

TEST(HardwareLoader, SyntaxErrorNamesLine) {
  const auto problems = problems_of("id = \"x\"\nname = \n");
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_TRUE(mentions(problems, "line 2"));
}

TEST(HardwareLoader, IdMustMatchFileName) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tb_loader_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "other-name.toml";
  {
    std::ofstream out(file);
    out << kGood;
  }
  try {
    (void)load_device_file(file);
    ADD_FAILURE();
  } catch (const DataError& e) {
    EXPECT_TRUE(mentions(e.problems(), "must equal the file name 'other-name'"));
  }
  std::filesystem::remove_all(dir);
}

TEST(HardwareLoader, MissingFileIsADataError) {
  EXPECT_THROW((void)load_device_file("/nonexistent/x.toml"), DataError);
}

}  // namespace
}  // namespace tb::io

namespace tb::io {
namespace {

// The compiled-in catalog reads its devices on first use (start-up): every one of them reads,
// is named for its file, and matches data/'s files figure for figure.
TEST(HardwareLoader, TheCompiledInCatalogReadsEveryDeviceAsTheFilesDo) {
  const HardwareCatalog built_in = load_catalog(CatalogSources{});
  const HardwareCatalog files = load_catalog({data_dir() / "hardware", {}});
  ASSERT_EQ(built_in.devices().size(), files.devices().size());
  for (std::size_t i = 0; i < files.devices().size(); ++i) {
    const Device& a = built_in.devices()[i];
    const Device& b = files.devices()[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.memory_capacity, b.memory_capacity) << a.id;
    EXPECT_EQ(a.rates.size(), b.rates.size()) << a.id;
  }
  EXPECT_EQ(built_in.systems().size(), files.systems().size());
  EXPECT_EQ(built_in.kernel_classes().size(), files.kernel_classes().size());
}

}  // namespace
}  // namespace tb::io
