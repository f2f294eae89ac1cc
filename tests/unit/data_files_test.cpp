// Every file shipped in data/ loads, validates and says where its numbers come from.
#include <gtest/gtest.h>

#include <filesystem>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/spec/catalog.hpp"

namespace tb {
namespace {

const std::filesystem::path kData{TB_TEST_DATA_DIR};

TEST(DataFiles, EveryHardwareFileLoads) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kData / "hardware")) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    Device d;
    ASSERT_NO_THROW(d = io::load_device_file(entry.path()));
    EXPECT_FALSE(d.memory_source.empty());
    EXPECT_FALSE(d.rates.empty());
    for (const ComputeRate& r : d.rates) {
      EXPECT_FALSE(r.source.empty()) << enum_name(r.dtype);
      // Dense figures only: where a sparse one is given, it is twice the dense (2:4), within
      // the vendors' rounding (MI355X prints 5.0 PF dense, 10.1 PF sparse: ratio 2.02).
      if (r.sparse) {
        EXPECT_NEAR(r.sparse->value() / r.dense.value(), 2.0, 0.025);
      }
    }
  }
  EXPECT_GE(files, 30U);
}

TEST(DataFiles, CatalogCoversEveryVendor) {
  const std::vector<Device> devices = io::load_device_dir(kData / "hardware");
  for (const char* vendor : {"nvidia", "amd", "google", "intel", "apple"}) {
    EXPECT_TRUE(std::any_of(devices.begin(), devices.end(), [&](const Device& d) {
      return d.vendor == vendor;
    })) << vendor;
  }
}

TEST(DataFiles, SeedFiguresAreInTheCatalog) {
  const HardwareCatalog c(io::load_device_dir(kData / "hardware"));
  const Device& h100 = c.at("h100-sxm", "test");
  EXPECT_DOUBLE_EQ(h100.rate(DType::kBf16)->dense.value(), 989.5e12);
  EXPECT_DOUBLE_EQ(h100.rate(DType::kFp8)->dense.value(), 1979e12);
  // "80 GB" HBM3 is 80 GiB = 85,899,345,920 bytes.
  EXPECT_DOUBLE_EQ(h100.memory_capacity.value(), 85'899'345'920.0);
  EXPECT_EQ(h100.memory_capacity_unit, CapacityUnit::kGiB);
  const Device& m3 = c.at("m3-ultra", "test");
  EXPECT_DOUBLE_EQ(m3.rate(DType::kFp32)->dense.value(), 19.5e12);
  EXPECT_EQ(m3.rate(DType::kFp32)->kind, RateKind::kMeasured);
  EXPECT_DOUBLE_EQ(m3.rate(DType::kBf16)->dense.value(), 21.9e12);
  EXPECT_EQ(m3.rate(DType::kBf16)->kind, RateKind::kMeasured);
}

TEST(DataFiles, DefaultMachinesReproduceTheSeedHours) {
  const HardwareCatalog c(io::load_device_dir(kData / "hardware"));
  const Estimate e = estimate(TrainingJob{}, parse_machine_list(kDefaultMachines, c));
  ASSERT_EQ(e.primary.machines.size(), 4U);
  const double seed[] = {598.3, 532.7, 11.8, 5.9};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(hours(e.primary.machines[i].at_peak), seed[i], 0.05) << i;
  }
}

}  // namespace
}  // namespace tb
