// The compiled-in catalog's index (io/catalog_index.hpp): what each system and kernel-class file
// says about its devices, read from its lines, equals what parsing the file gives, for every
// file; lookups then read only what they need.
#include "io/catalog_index.hpp"

#include <gtest/gtest.h>

#include "io/embedded_catalog.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/kernel_class_toml.hpp"
#include "trainbudget/io/system_toml.hpp"

namespace tb::io {
namespace {

TEST(CatalogIndex, EveryCompiledInFileSaysWhatItsParseSays) {
  int systems = 0;
  int classes = 0;
  for (const EmbeddedFile& f : embedded_catalog_files()) {
    const std::string origin = std::string{f.name};
    if (f.folder == "systems") {
      const System s = parse_system_toml(f.text, origin, true);
      EXPECT_EQ(top_level_string(f.text, "device"), s.device) << f.name;
      ++systems;
    } else if (f.folder == "kernels") {
      const KernelClass k = parse_kernel_class_toml(f.text, origin, true);
      EXPECT_EQ(top_level_ids(f.text, "devices"), k.devices) << f.name;
      EXPECT_EQ(top_level_ids(f.text, "categories"), k.categories) << f.name;
      ++classes;
    }
  }
  EXPECT_GT(systems, 5);
  EXPECT_GT(classes, 4);
}

TEST(CatalogIndex, ReadsOneLineAndManyLineArraysBeforeTheFirstTable) {
  const std::string text =
      "id = \"x\"\ndevice = \"h100-sxm\"\ncategories = [\"cpu\", \"gpu\"]\ndevices = [\n"
      "  { id = \"a\", source = \"[S1] ] { id = x\" },\n  { id = \"b\" }, { id = \"c\" },\n]\n"
      "[t]\ndevice = \"no\"\n";
  EXPECT_EQ(top_level_string(text, "device"), "h100-sxm");
  EXPECT_EQ(top_level_ids(text, "categories"), (std::vector<std::string>{"cpu", "gpu"}));
  EXPECT_EQ(top_level_ids(text, "devices"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(top_level_ids(text, "absent").empty());
  EXPECT_EQ(top_level_string("[t]\ndevice = \"no\"\n", "device"), "");
  EXPECT_TRUE(top_level_ids("devices = []\n", "devices").empty());
}

// The compiled-in catalog answers a lookup by reading that system or class alone, and agrees
// with data/'s files entry for entry.
TEST(CatalogIndex, TheCompiledInCatalogFindsSystemsAndClassesAsTheFilesDo) {
  const HardwareCatalog built_in = load_catalog(CatalogSources{});
  const HardwareCatalog files = load_catalog({data_dir() / "hardware", {}});
  for (const char* device : {"h100-sxm", "a100-sxm-80gb", "m3-ultra", "rtx-4090", "b200"}) {
    const System* a = built_in.system_for(device);
    const System* b = files.system_for(device);
    ASSERT_EQ(a == nullptr, b == nullptr) << device;
    if (a != nullptr) {
      EXPECT_EQ(a->id, b->id) << device;
    }
    EXPECT_EQ(built_in.kernel_costs(device).compute_units, files.kernel_costs(device).compute_units)
        << device;
    const KernelClass* ka = built_in.kernel_class_of(device);
    const KernelClass* kb = files.kernel_class_of(device);
    ASSERT_EQ(ka == nullptr, kb == nullptr) << device;
    if (ka != nullptr) {
      EXPECT_EQ(ka->id, kb->id) << device;
    }
  }
  ASSERT_EQ(built_in.systems().size(), files.systems().size());
  for (std::size_t i = 0; i < files.systems().size(); ++i) {
    EXPECT_EQ(built_in.systems()[i].id, files.systems()[i].id);
    EXPECT_EQ(built_in.systems()[i].device, files.systems()[i].device);
  }
}

}  // namespace
}  // namespace tb::io
