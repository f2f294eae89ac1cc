// Reference cases that need an architecture, as data: every [[case]] of
// tests/cases/activation_cases.toml builds a job from a config under tests/data (what `--model`
// will take), runs the real estimate and its JSON document, and checks each [[case.expect]]
// with the CLI cases' rules (value within a relative tolerance, or at_least/at_most bounds;
// `outside = "why"` asserts that we are known to be outside). When `--model` reaches the CLI
// these rows can become CLI cases unchanged in substance.
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "trainbudget/core/estimate.hpp"
#include "trainbudget/core/param_count.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/report/json_output.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;
const fs::path kTests{TB_TEST_DIR};

const nlohmann::json* at_path(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* node = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    const std::string part = path.substr(start, dot - start);
    if (node->is_array()) {
      const std::size_t index = std::stoul(part);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else if (node->is_object() && node->contains(part)) {
      node = &(*node)[part];
    } else {
      return nullptr;
    }
    start = dot + 1;
  }
  return node;
}

TrainingJob job_of(const toml::table& c) {
  TrainingJob job;
  job.model.kind = "config";
  job.model.architecture =
      io::load_hf_config(kTests / "data" / c["config"].value_or(std::string{}));
  job.model.counts = count_params(*job.model.architecture);
  job.params = static_cast<double>(job.model.counts->total);
  job.method = parse_method(c["method"].value_or(std::string{"full"}));
  job.recipe_id = c["recipe"].value_or(std::string{"amp-adam"});
  if (c.contains("lora_rank") || c.contains("lora_targets")) {
    job.lora.rank = c["lora_rank"].value_or(job.lora.rank);
    job.lora.targets = parse_lora_targets(c["lora_targets"].value_or(std::string{"q,v"}));
    job.lora_given = true;
  }
  if (c.contains("double_quant")) job.qlora.double_quant = c["double_quant"].value_or(true);
  TrainingSetup& s = job.setup;
  s.micro_batch = c["micro_batch"].value_or(s.micro_batch);
  if (c.contains("seq_len")) {
    s.seq_len = c["seq_len"].value_or(s.seq_len);
    s.seq_len_given = true;
  }
  if (c.contains("attention")) s.attention = parse_attention(c["attention"].value_or(""));
  if (c.contains("recompute")) s.recompute = parse_recompute(c["recompute"].value_or(""));
  if (c.contains("activation_dtype")) {
    s.activation_dtype = parse_activation_dtype(c["activation_dtype"].value_or(""));
  }
  s.dropout = c["dropout"].value_or(0.0);
  s.causal_flops = c["causal_flops"].value_or(false);
  s.grad_accumulation = c["grad_accum"].value_or(std::int64_t{1});
  s.search_fit = c["fit"].value_or(false);
  s.flags_given = true;
  return job;
}

Device device_of(const toml::table& c) {
  Device d;
  d.id = "case-device";
  d.name = "case device";
  d.memory_capacity = Bytes{c["capacity_gb"].value_or(80.0) * kGiga};
  ComputeRate r;
  r.dtype = DType::kBf16;
  r.dense = FlopsPerSecond{312.0 * kTera};
  r.source = "reference case";
  d.rates.push_back(r);
  return d;
}

void check(const std::string& name, const std::string& source, const nlohmann::json& j,
           const toml::table& ex) {
  const std::string key = ex["key"].value_or(std::string{});
  const std::string why = ex["why"].value_or(std::string{});
  ASSERT_FALSE(why.empty()) << name << " " << key << ": justify the expectation";
  const nlohmann::json* node = at_path(j, key);
  ASSERT_NE(node, nullptr) << name << ": no key " << key;
  ASSERT_TRUE(node->is_number()) << name << " " << key;
  const double actual = node->get<double>();
  const std::optional<double> at_least = ex["at_least"].value<double>();
  const std::optional<double> at_most = ex["at_most"].value<double>();
  if (at_least || at_most) {
    if (at_least) {
      EXPECT_GE(actual, *at_least) << name << " " << key;
    }
    if (at_most) {
      EXPECT_LE(actual, *at_most) << name << " " << key;
    }
    std::printf("[ bound    ] %s %s: %.6g\n", name.c_str(), key.c_str(), actual);
    return;
  }
  const double expected = ex["value"].value<double>().value_or(std::nan(""));
  const double tolerance = ex["tolerance"].value<double>().value_or(-1.0);
  ASSERT_GE(tolerance, 0.0) << name << " " << key << ": state a relative tolerance";
  const double rel = std::abs(actual - expected) / std::abs(expected);
  if (const std::optional<std::string> outside = ex["outside"].value<std::string>()) {
    EXPECT_GT(rel, tolerance) << name << " " << key
                              << ": marked outside but now within tolerance; update the case";
    std::printf("[ outside  ] %s %s: expected %.6g, got %.6g (%.1f %%): %s\n", name.c_str(),
                key.c_str(), expected, actual, rel * 100, outside->c_str());
  } else {
    EXPECT_LE(rel, tolerance) << name << " " << key << ": expected " << expected << ", got "
                              << actual << " (" << rel * 100 << " %); source: " << source;
    std::printf("[ within   ] %s %s: expected %.6g, got %.6g (%.3f %% <= %.3f %%)\n", name.c_str(),
                key.c_str(), expected, actual, rel * 100, tolerance * 100);
  }
}

TEST(ActivationCases, MatchPublishedFiguresWithinTolerance) {
  const toml::table file = toml::parse_file((kTests / "cases" / "activation_cases.toml").string());
  const toml::array* cases = file["case"].as_array();
  ASSERT_NE(cases, nullptr);
  EXPECT_GE(cases->size(), 5U);
  for (const toml::node& node : *cases) {
    const toml::table& c = *node.as_table();
    const std::string name = c["name"].value_or(std::string{});
    const std::string source = c["source"].value_or(std::string{});
    SCOPED_TRACE(name);
    ASSERT_FALSE(name.empty());
    ASSERT_FALSE(source.empty()) << name << ": every case cites its source";
    const Device device = device_of(c);
    const Estimate e = estimate(job_of(c), {MachineChoice{&device, std::nullopt}});
    const nlohmann::json j = nlohmann::json::parse(report::estimate_json(e));
    const toml::array* expects = c["expect"].as_array();
    ASSERT_NE(expects, nullptr) << name << ": no [[case.expect]]";
    ASSERT_FALSE(expects->empty());
    for (const toml::node& ex : *expects) check(name, source, j, *ex.as_table());
  }
}

}  // namespace
}  // namespace tb
