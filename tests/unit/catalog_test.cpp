// Device lookup, suggestions and the machine syntax.
#include "trainbudget/spec/catalog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

HardwareCatalog small_catalog() {
  std::vector<Device> devices;
  for (const char* id : {"h100-sxm", "h100-pcie", "h100-nvl", "a100-sxm-80gb", "m3-ultra"}) {
    Device d;
    d.id = id;
    d.memory_capacity = Bytes{80e9};
    devices.push_back(d);
  }
  return HardwareCatalog(std::move(devices));
}

TEST(Catalog, FindsAndSortsById) {
  const HardwareCatalog c = small_catalog();
  ASSERT_NE(c.find("m3-ultra"), nullptr);
  EXPECT_EQ(c.find("m3"), nullptr);
  EXPECT_EQ(c.devices().front().id, "a100-sxm-80gb");
}

TEST(Catalog, UserDeviceReplacesOursById) {
  HardwareCatalog c = small_catalog();
  Device mine;
  mine.id = "h100-sxm";
  mine.name = "mine";
  c.put(mine);
  EXPECT_EQ(c.find("h100-sxm")->name, "mine");
  EXPECT_EQ(c.devices().size(), 5U);
}

// Devices read on first use (the compiled-in catalog): each once, whichever thread asks, and
// a copy or a user's replacement sees the same figures.
Device read_counted(std::string_view text, const std::string& origin);
std::atomic<int> g_reads{0};
Device read_counted(std::string_view text, const std::string& origin) {
  ++g_reads;
  Device d;
  d.id = std::string{text};
  d.name = origin;
  d.memory_capacity = Bytes{80e9};
  return d;
}

TEST(Catalog, LazyDevicesAreReadOnceOnFirstUse) {
  g_reads = 0;
  std::vector<DeviceSource> sources;
  for (const char* id : {"m3-ultra", "h100-sxm", "a100-sxm-80gb"}) {
    sources.push_back(
        {id, id, std::string{"data/hardware/"} + id + ".toml", &read_counted, {}, {}});
  }
  HardwareCatalog c(std::move(sources));
  EXPECT_TRUE(c.contains("h100-sxm"));
  EXPECT_FALSE(c.contains("h100"));
  EXPECT_EQ(c.closest("h100", 1).front(), "h100-sxm");
  EXPECT_EQ(g_reads.load(), 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&c] {
      for (int k = 0; k < 100; ++k)
        ASSERT_EQ(c.find("h100-sxm")->name, "data/hardware/h100-sxm.toml");
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(g_reads.load(), 1);
  const HardwareCatalog copy = c;  // reads the rest
  EXPECT_EQ(g_reads.load(), 3);
  EXPECT_EQ(copy.devices().front().id, "a100-sxm-80gb");
  Device mine;
  mine.id = "m3-ultra";
  mine.name = "mine";
  c.put(mine);
  EXPECT_EQ(c.find("m3-ultra")->name, "mine");
  EXPECT_EQ(c.devices().size(), 3U);
}

TEST(Catalog, SuggestsClosestIds) {
  const HardwareCatalog c = small_catalog();
  const auto near = c.closest("h100", 3);
  ASSERT_EQ(near.size(), 3U);
  for (const auto& id : near) EXPECT_TRUE(id.starts_with("h100")) << id;
  EXPECT_EQ(c.closest("m3-ultar", 1).front(), "m3-ultra");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);
}

TEST(Catalog, UnknownIdErrorNamesFieldAndSuggestions) {
  const HardwareCatalog c = small_catalog();
  try {
    (void)c.at("a100", "machine");
    FAIL();
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("machine: unknown machine 'a100'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a100-sxm-80gb"), std::string::npos) << msg;
  }
}

TEST(Catalog, MachineListSyntax) {
  const HardwareCatalog c = small_catalog();
  const auto list = parse_machine_list("h100-sxm:fp8,m3-ultra", c);
  ASSERT_EQ(list.size(), 2U);
  EXPECT_EQ(list[0].device->id, "h100-sxm");
  EXPECT_EQ(list[0].dtype, DType::kFp8);
  EXPECT_FALSE(list[1].dtype.has_value());
  EXPECT_EQ(parse_machine_list("all", c).size(), 5U);
  EXPECT_THROW((void)parse_machine_list("h100-sxm:fp7", c), InvalidArgument);
  EXPECT_THROW((void)parse_machine_list("h100-sxm,", c), InvalidArgument);
  EXPECT_THROW((void)parse_machine_list("", c), InvalidArgument);
  const auto spaced = parse_machine_list("h100-sxm:fp8, m3-ultra ", c);
  ASSERT_EQ(spaced.size(), 2U);
  EXPECT_EQ(spaced[1].device->id, "m3-ultra");
  try {
    (void)parse_machine_list("h100-sxm, ,m3-ultra", c);
    ADD_FAILURE() << "an empty entry must be an error";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()),
              "machine: empty entry in 'h100-sxm, ,m3-ultra'; accepted: ID[:dtype][,ID[:dtype]...] "
              "or all");
  }
}

}  // namespace
}  // namespace tb
