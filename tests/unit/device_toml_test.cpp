// The device TOML writer: every catalog file written back by device_toml() reads back to the
// same figures, and the capacity keeps its unit.
#include "trainbudget/io/device_toml.hpp"

#include <gtest/gtest.h>

#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

void expect_same(const Device& a, const Device& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.vendor, b.vendor);
  EXPECT_EQ(a.category, b.category);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_DOUBLE_EQ(a.memory_capacity.value(), b.memory_capacity.value()) << a.id;
  EXPECT_EQ(a.memory_capacity_unit, b.memory_capacity_unit) << a.id;
  ASSERT_EQ(a.memory_bandwidth.has_value(), b.memory_bandwidth.has_value());
  if (a.memory_bandwidth) {
    EXPECT_DOUBLE_EQ(a.memory_bandwidth->value(), b.memory_bandwidth->value());
  }
  EXPECT_EQ(a.memory_bandwidth_kind, b.memory_bandwidth_kind) << a.id;
  ASSERT_EQ(a.first_touch_bandwidth.has_value(), b.first_touch_bandwidth.has_value()) << a.id;
  if (a.first_touch_bandwidth) {
    EXPECT_DOUBLE_EQ(a.first_touch_bandwidth->value(), b.first_touch_bandwidth->value());
  }
  EXPECT_EQ(a.memory_source, b.memory_source);
  ASSERT_EQ(a.rates.size(), b.rates.size()) << a.id;
  for (std::size_t i = 0; i < a.rates.size(); ++i) {
    const ComputeRate& x = a.rates[i];
    const ComputeRate* y = b.rate(x.dtype);
    ASSERT_NE(y, nullptr) << a.id << " " << enum_name(x.dtype);
    EXPECT_DOUBLE_EQ(x.dense.value(), y->dense.value()) << a.id;
    ASSERT_EQ(x.sparse.has_value(), y->sparse.has_value()) << a.id;
    if (x.sparse) {
      EXPECT_DOUBLE_EQ(x.sparse->value(), y->sparse->value()) << a.id;
    }
    EXPECT_EQ(x.kind, y->kind);
    EXPECT_EQ(x.source, y->source);
    EXPECT_EQ(x.note, y->note);
    EXPECT_EQ(x.measured_by, y->measured_by);
    EXPECT_EQ(x.method, y->method);
    EXPECT_EQ(x.date, y->date);
  }
  ASSERT_EQ(a.interconnect.has_value(), b.interconnect.has_value()) << a.id;
  if (a.interconnect) {
    EXPECT_EQ(a.interconnect->name, b.interconnect->name);
    EXPECT_DOUBLE_EQ(a.interconnect->bandwidth.value(), b.interconnect->bandwidth.value());
    EXPECT_EQ(a.interconnect->bidirectional, b.interconnect->bidirectional);
    EXPECT_EQ(a.interconnect->source, b.interconnect->source);
  }
  EXPECT_EQ(a.tdp_watts, b.tdp_watts) << a.id;
  EXPECT_EQ(a.power_source, b.power_source);
  ASSERT_EQ(a.price.has_value(), b.price.has_value()) << a.id;
  if (a.price) {
    EXPECT_DOUBLE_EQ(a.price->usd_per_hour.value(), b.price->usd_per_hour.value());
    EXPECT_EQ(a.price->date, b.price->date);
    EXPECT_EQ(a.price->source, b.price->source);
  }
}

TEST(DeviceToml, EveryCatalogDeviceRoundTrips) {
  const std::vector<Device> devices = load_device_dir(data_dir() / "hardware");
  ASSERT_GT(devices.size(), 30U);
  for (const Device& d : devices) {
    const std::string text = device_toml(d);
    expect_same(d, parse_device_toml(text, d.id + ".toml"));
  }
}

TEST(DeviceToml, AMeasuredGemmTableRoundTrips) {
  Device d;
  d.id = "box";
  d.name = "Box";
  d.vendor = "other";
  d.category = "cpu";
  d.memory_capacity = Bytes{64e9};
  d.memory_source = "/proc/meminfo MemTotal";
  ComputeRate r;
  r.dtype = DType::kFp32;
  r.dense = FlopsPerSecond{1.1e11};
  r.kind = RateKind::kMeasured;
  r.source = "measure";
  r.measured_by = "trainbudget measure";
  r.method = "openblas fp32 GEMM 512x256x256";
  d.rates.push_back(r);
  d.gemm_table = {{512, 256, 256, DType::kFp32, FlopsPerSecond{1.07852e11}},
                  {256, 32, 256, DType::kFp32, FlopsPerSecond{9.22954e10}}};
  const Device back = parse_device_toml(device_toml(d), "box.toml");
  ASSERT_EQ(back.gemm_table.size(), 2U);
  EXPECT_EQ(back.gemm_table[1].n, 32);
  EXPECT_DOUBLE_EQ(back.gemm_table[0].rate.value(), 1.07852e11);
  // A row with an unknown dtype is named by its index.
  const std::string bad =
      "id = \"box\"\nname = \"Box\"\nvendor = \"other\"\ncategory = \"cpu\"\n"
      "gemm = [{ m = 1, n = 1, k = 1, dtype = \"fp9\", tflops = 1 }]\n"
      "[memory]\ncapacity_gb = 1\nsource = \"s\"\n";
  try {
    (void)parse_device_toml(bad, "box.toml");
    FAIL() << "an unknown dtype in the GEMM table must be a problem";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("gemm[0].dtype"), std::string::npos) << e.what();
  }
}

TEST(DeviceToml, CapacityIsWrittenInItsOwnUnit) {
  Device d;
  d.id = "box";
  d.name = "Box";
  d.vendor = "other";
  d.category = "cpu";
  d.memory_capacity = Bytes{80.0 * kGibi};
  d.memory_capacity_unit = CapacityUnit::kGiB;
  d.memory_source = "spec";
  ComputeRate r;
  r.dense = FlopsPerSecond{989.5e12};
  r.source = "sheet";
  d.rates.push_back(r);
  std::string text = device_toml(d);
  EXPECT_NE(text.find("\ncapacity_gib = 80\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndense_tflops = 989.5\n"), std::string::npos) << text;
  d.memory_capacity = Bytes{25.275e9};
  d.memory_capacity_unit = CapacityUnit::kGB;
  text = device_toml(d);
  EXPECT_NE(text.find("\ncapacity_gb = 25.275\n"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(parse_device_toml(text, "box.toml").memory_capacity.value(), 25.275e9);
}

// A measured bandwidth (measure --save's STREAM triad) is written as such and read back, so that
// the serving estimate uses it as it is instead of a fraction of a peak.
TEST(DeviceToml, MeasuredBandwidthKeepsItsKind) {
  Device d;
  d.id = "box";
  d.name = "Box";
  d.vendor = "other";
  d.category = "cpu";
  d.memory_capacity = Bytes{64e9};
  d.memory_bandwidth = BytesPerSecond{85e9};
  d.memory_bandwidth_kind = RateKind::kMeasured;
  d.first_touch_bandwidth = BytesPerSecond{1.87e9};
  d.memory_source = "triad";
  ComputeRate r;
  r.dense = FlopsPerSecond{1e12};
  r.source = "sheet";
  d.rates.push_back(r);
  const std::string text = device_toml(d);
  EXPECT_NE(text.find("\nbandwidth_kind = \"measured\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nfirst_touch_gb_per_s = 1.87\n"), std::string::npos) << text;
  expect_same(d, parse_device_toml(text, "box.toml"));
  const std::string bad = std::string{text}.replace(text.find("\"measured\"\n"), 11, "\"guess\"\n");
  EXPECT_THROW((void)parse_device_toml(bad, "box.toml"), DataError);
}

}  // namespace
}  // namespace tb::io

namespace tb::io {
namespace {

// A device whose text holds non-ASCII in a comment and in basic strings: toml++ is given the
// same document in ASCII (io/toml_text.hpp), and the strings come back as written.
constexpr std::string_view kNonAscii = R"(# Messgerät «µ»
id = "box"
name = "Box × 2 — µ-arch 😀"
vendor = "other"
category = "workstation-gpu"
[memory]
capacity_gb = 48
source = "spec sheet §3"
[compute.bf16]
dense_tflops = 100
kind = "spec"
source = "Ä"
)";

TEST(DeviceTomlText, NonAsciiInStringsAndCommentsReadsBackAsWritten) {
  const Device d = parse_device_toml(kNonAscii, "box.toml");
  EXPECT_EQ(d.name, "Box \u00D7 2 \u2014 \u00B5-arch \U0001F600");
  EXPECT_EQ(d.memory_source,
            "spec sheet \u00A7"
            "3");
  EXPECT_EQ(d.rate(DType::kBf16)->source, "\u00C4");
}

TEST(DeviceTomlText, NonAsciiOutsideStringsOrInLiteralStringsIsRefusedByLine) {
  EXPECT_THROW((void)parse_device_toml("id = \"box\"\nname = 'Bö'\n", "box.toml"), DataError);
  try {
    (void)parse_device_toml("id = 918\"\"\"\xC5\xA9\n", "box.toml");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    // Our reading: a string opened after the number; toml++ is given "\u0169", plain ASCII.
    EXPECT_NE(std::string(e.what()).find("box.toml: TOML syntax error at line 1"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)parse_device_toml("[a]\n\xC5\xA9 = 1\n", "box.toml");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    EXPECT_STREQ(e.what(),
                 "box.toml: TOML refused at line 2: a non-ASCII character outside a string or "
                 "comment");
  }
}

TEST(DeviceTomlText, AValueMustStartWhereAValueCan) {
  // toml++ asserted, and in a release build assumed, that a value starts after '=', '[' and
  // ',' in an array; each of these is refused by the pre-scan instead.
  for (const char* bad : {"a = [}\n", "a =\n", "a = ,\n", "a = [1 ,, 2]\n", "a = }\n",
                          "a = {b = 1,\nc = 2}\n", "a = 1]\n"}) {
    try {
      (void)parse_device_toml(bad, "box.toml");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("box.toml: TOML refused at line"), std::string::npos)
          << e.what();
    }
  }
  // What TOML allows still reaches the reader (and then the schema's own checks).
  for (const char* good : {"a = []\n", "a = [1, 2,]\n", "a = [\n  1, # one\n  [2],\n]\n",
                           "a = {}\n", "a = {b = [{c = 1}]}\n"}) {
    try {
      (void)parse_device_toml(good, "box.toml");
    } catch (const DataError& e) {
      EXPECT_EQ(std::string(e.what()).find("TOML"), std::string::npos) << good << e.what();
    }
  }
}

TEST(DeviceTomlText, TableHeadersMustBeKeysOnOneLine) {
  for (const char* bad : {"[]\n", "[\n]\n", "[# x]\n", "[*a]\n", "[a.]\n", "[a..b]\n"}) {
    try {
      (void)parse_device_toml(bad, "box.toml");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("a table header that is not [a.b]"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace tb::io
