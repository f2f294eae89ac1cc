// Formatting and reporters: the numbers a person reads and the JSON a program reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/report/text_table.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::report {
namespace {

TEST(Format, DecimalUnits) {
  EXPECT_EQ(gb(Bytes{112e9}), "112.0 GB");
  EXPECT_EQ(gb(Bytes{1.12e12}), "1.12 TB");
  EXPECT_EQ(gb(Bytes{2.5e7}), "25.0 MB");
  EXPECT_EQ(flops(Flops{42e18}), "42.0 EFLOP");
  EXPECT_EQ(flops(Flops{3.1e23}), "310.0 ZFLOP");
  EXPECT_EQ(count(7e9), "7.00 B");
  EXPECT_EQ(count(125e6), "125.0 M");
  EXPECT_EQ(hours_text(Seconds{598.29 * 3600}), "598.3 h");
}

TEST(Format, DurationsInWords) {
  EXPECT_EQ(duration(Seconds{30}), "30.0 s");
  EXPECT_EQ(duration(Seconds{11.8 * 3600}), "11.8 hours");
  EXPECT_EQ(duration(Seconds{598.3 * 3600}), "3.6 weeks");
  EXPECT_EQ(duration(Seconds{10 * 86400}), "10.0 days");
  EXPECT_EQ(duration(Seconds{2 * 365.25 * 86400}), "2.0 years");
}

TEST(Format, ParseFormat) {
  EXPECT_EQ(parse_format("json"), Format::kJson);
  EXPECT_THROW((void)parse_format("xml"), InvalidArgument);
}

TEST(TextTable, CsvQuotesFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(TextTable, AlignsByDisplayWidth) {
  TextTable t({{"name"}, {"value", Align::kRight}});
  t.add_row({"µ", "1"});
  t.add_row({"ab", "22"});
  std::ostringstream out;
  t.render_text(out, "");
  EXPECT_EQ(out.str(), "name  value\nµ         1\nab       22\n");
}

Device h100() {
  Device d;
  d.id = "h100-sxm";
  d.name = "H100";
  d.memory_capacity = Bytes{80e9};
  ComputeRate r;
  r.dtype = DType::kBf16;
  r.dense = FlopsPerSecond{989.5e12};
  r.source = "datasheet";
  d.rates.push_back(r);
  return d;
}

// The HTML report opens with the answer, its verdicts in colour, before the charts; a machine
// the job does not fit is drawn grey in the hours chart and says so; no memory label starts
// inside a bar (issue 21).
TEST(HtmlView, OpensWithTheAnswerInColour) {
  const Device d = h100();
  Device big = h100();
  big.id = "big-gpu";
  big.memory_capacity = Bytes{1000e9};
  const Estimate e = estimate(TrainingJob{}, {{&d, std::nullopt}, {&big, std::nullopt}});
  std::ostringstream out;
  write(e, Format::kHtml, out);
  const std::string html = out.str();
  const std::size_t answer = html.find("<section class=\"answer\">\n<h2>Answer");
  const std::size_t chart = html.find("<figure>");
  ASSERT_NE(answer, std::string::npos);
  ASSERT_NE(chart, std::string::npos);
  EXPECT_LT(answer, chart);
  EXPECT_LT(html.find("</section>"), chart);
  // 112 GB of states: does not fit the 80 GB card, the states fit the 1 TB one (no model).
  EXPECT_NE(html.find("<td class=\"bad\">does not fit</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"note\">states fit</td>"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#b8b8b8\"/><text"), std::string::npos);
  EXPECT_NE(html.find(" h, does not fit</text>"), std::string::npos);
  EXPECT_NE(html.find(">112.0 GB of 80.0 GB usable</text>"), std::string::npos);
}

TEST(JsonView, HasTheDocumentedKeysInBaseUnits) {
  const Device d = h100();
  const Estimate e = estimate(TrainingJob{}, {{&d, std::nullopt}});
  std::ostringstream out;
  write(e, Format::kJson, out);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["schema_version"], kJsonSchemaVersion);
  EXPECT_EQ(j["model"]["params_total"], 7e9);
  EXPECT_EQ(j["model"]["params_trainable"], 7e9);
  EXPECT_EQ(j["tokens"], 1e9);
  EXPECT_EQ(j["memory"]["total_bytes"], 112e9);
  EXPECT_EQ(j["memory"]["components"]["optimizer_states"], 56e9);
  EXPECT_EQ(j["compute"]["flops_per_token"], 42e9);
  EXPECT_EQ(j["compute"]["total_flops"], 42e18);
  ASSERT_EQ(j["machines"].size(), 1U);
  EXPECT_EQ(j["machines"][0]["id"], "h100-sxm");
  EXPECT_EQ(j["machines"][0]["rate_flops_per_s"], 989.5e12);
  // One device, no communication: the modeled MFU is the GEMM efficiency (the default one: the
  // test device has no measured matmul ceiling).
  EXPECT_NEAR(j["machines"][0]["mfu"].get<double>(), kDefaultGemmEfficiency, 1e-12);
  EXPECT_TRUE(j["utilization_given"].is_null());
  EXPECT_NEAR(j["machines"][0]["hours"].get<double>(),
              42e18 / (kDefaultGemmEfficiency * 989.5e12) / 3600, 1e-9);
  EXPECT_EQ(j["memory"]["per_device_bytes"], 112e9);
  EXPECT_EQ(j["parallel"]["dp"], 1);
  EXPECT_EQ(j["parallel"]["tp"], 1);
  EXPECT_EQ(j["time"]["bound"], "compute");
  EXPECT_EQ(j["time"]["exposed_comm_seconds"], 0.0);
  EXPECT_NEAR(j["time"]["total_hours"].get<double>(), j["machines"][0]["hours"].get<double>(),
              1e-12);
  EXPECT_TRUE(j["cost"]["usd"].is_null());  // the test device has no price
  EXPECT_TRUE(j["energy"]["kwh"].is_null());
  // One verdict: without an architecture the advice-free miss names its rule of thumb, and the
  // LoRA alternative's states fit but cannot be judged (no activations): fits is null.
  EXPECT_EQ(j["machines"][0]["fits"], false);
  EXPECT_EQ(j["machines"][0]["verdict"], "does_not_fit");
  EXPECT_EQ(j["machines"][0]["rule_of_thumb"], "needs_lora");
  EXPECT_TRUE(j["lora_alternative"]["machines"][0]["fits"].is_null());
  EXPECT_EQ(j["lora_alternative"]["machines"][0]["verdict"], "states_fit_activations_not_counted");
}

TEST(CsvView, OneRowPerScenarioAndMachine) {
  const Device d = h100();
  const Estimate e = estimate(TrainingJob{}, {{&d, std::nullopt}});
  std::ostringstream out;
  write(e, Format::kCsv, out);
  const std::string csv = out.str();
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header + full + LoRA
  EXPECT_NE(csv.find("full fine-tune,full,h100-sxm,H100,bf16,bf16,9.895e+14,spec,,1"),
            std::string::npos)
      << csv;
}

TEST(TableView, ShowsVerdictAndMissingActivations) {
  const Device d = h100();
  const Estimate e = estimate(TrainingJob{}, {{&d, std::nullopt}});
  std::ostringstream out;
  write(e, Format::kTable, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("Activations are not included"), std::string::npos);
  // 80 GB / 1.03, the fragmentation floor (docs/memory-numbers.md); a device of no vendor has
  // no CUDA runtime to subtract.
  EXPECT_NE(text.find("does not fit (112.0 GB > 77.7 GB allocatable of 80.0 GB)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("LoRA (2 % trainable) fits in 16.2 GB"), std::string::npos) << text;
}

}  // namespace
}  // namespace tb::report
