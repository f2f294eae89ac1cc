// Reference cases as data: every tests/cases/*.toml holds a request keyed by the field table
// (the keys of a JSON request file), runs it in-process through api::Session, renders the JSON
// view and checks each expected value within its stated tolerance. A case the
// estimator is known to miss says so (`outside = "why"`): the test then asserts that it IS
// outside, so a later fix cannot go unnoticed. Adding a case needs no C++. `command = "infer"`
// or `"compare"` runs that query instead of an estimate.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "trainbudget/api/session.hpp"
#include "trainbudget/report/json_output.hpp"
#include "trainbudget/report/view.hpp"

namespace {

namespace fs = std::filesystem;

struct Case {
  fs::path file;
};

// Estimate cases hold a [request] and [[expect]]; a table of [[case]] rows (param_counts.toml) is
// read by its own test (param_count_test.cpp).
std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const auto& entry : fs::directory_iterator(fs::path(TB_TEST_DIR) / "cases")) {
    if (entry.path().extension() != ".toml") continue;
    const toml::table t = toml::parse_file(entry.path().string());
    if (t.contains("case") && !t.contains("request")) continue;
    out.push_back({entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return out;
}

// "{tests}" in a value stands for the tests/ folder, so a case can name a fixture
// (`model = "{tests}/data/paper_configs/gpt3-175b-megatron.json"`) wherever ctest runs.
std::string expand(std::string value) {
  const std::string key = "{tests}";
  for (std::size_t at = value.find(key); at != std::string::npos; at = value.find(key)) {
    value.replace(at, key.size(), TB_TEST_DIR);
  }
  return value;
}

// The case's [request] table as the field map a JSON request file would give.
tb::api::FieldMap request_of(const toml::table& request) {
  tb::api::FieldMap out;
  for (const auto& [key, value] : request) {
    if (const auto* b = value.as_boolean()) {
      out[std::string{key.str()}] = b->get() ? "true" : "false";
    } else if (const auto* text = value.as_string()) {
      out[std::string{key.str()}] = expand(text->get());
    } else if (const auto* i = value.as_integer()) {
      out[std::string{key.str()}] = std::to_string(i->get());
    } else if (const auto* d = value.as_floating_point()) {
      out[std::string{key.str()}] = fmt::format("{}", d->get());
    }
  }
  return out;
}

// The built-in catalog only: a developer's own device files must not move a reference case.
const tb::api::Session& session() {
  static const tb::api::Session s{tb::api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

// "machines.0.hours" -> the value at that path.
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

// A training-clock figure (a step, the run's hours, a rate) and the machine's time band: whether
// the published figure falls inside the band, printed for scripts/band_coverage.py (docs/time.md,
// "Band"). A rate reads the band inverted. An online RL round is printed apart (docs/rl.md).
void print_band(const nlohmann::json& j, const fs::path& file, const std::string& key,
                double published, double actual) {
  const std::string prefix = "machines.";
  if (key.rfind(prefix, 0) != 0) return;
  const std::size_t dot = key.find('.', prefix.size());
  if (dot == std::string::npos) return;
  const std::string machine = key.substr(0, dot);
  // An online RL round: the machine's band is the round's own (eval/estimate.cpp).
  if (key.ends_with(".rollout.time.round_seconds")) {
    const nlohmann::json* low = at_path(j, machine + ".time.band.low_seconds");
    const nlohmann::json* high = at_path(j, machine + ".time.band.high_seconds");
    if (low == nullptr || high == nullptr || !low->is_number() || !high->is_number()) return;
    const double from = low->get<double>();
    const double to = high->get<double>();
    std::printf("[ rl band %-4s] %s %s: published %.6g in [%.6g, %.6g] (width %.1f %%)\n",
                published >= from && published <= to ? "in" : "out", file.filename().c_str(),
                key.c_str(), published, from, to, (to - from) / actual * 100.0);
    return;
  }
  if (key.find("rollout") != std::string::npos) return;
  const std::string metric = key.substr(dot + 1);
  const bool rate =
      metric == "time.mfu" || metric == "time.hfu" || metric == "time.tokens_per_second";
  const bool time = metric == "time.step_seconds" || metric == "hours";
  if (!rate && !time) return;
  const nlohmann::json* low = at_path(j, machine + ".time.band.low_seconds");
  const nlohmann::json* high = at_path(j, machine + ".time.band.high_seconds");
  const nlohmann::json* step = at_path(j, machine + ".time.step_seconds");
  if (low == nullptr || high == nullptr || step == nullptr || !low->is_number() ||
      !high->is_number() || !step->is_number() || step->get<double>() <= 0.0) {
    return;
  }
  const double lo = low->get<double>() / step->get<double>();
  const double hi = high->get<double>() / step->get<double>();
  const double from = rate ? actual / hi : actual * lo;
  const double to = rate ? actual / lo : actual * hi;
  const bool inside = published >= from && published <= to;
  std::printf("[ band %-4s] %s %s: published %.6g in [%.6g, %.6g] (width %.1f %%)\n",
              inside ? "in" : "out", file.filename().c_str(), key.c_str(), published, from, to,
              (to - from) / actual * 100.0);
}

class ReferenceCase : public testing::TestWithParam<Case> {};

TEST_P(ReferenceCase, MatchesPublishedFigureWithinTolerance) {
  const fs::path& file = GetParam().file;
  toml::table t;
  ASSERT_NO_THROW(t = toml::parse_file(file.string())) << file;
  const std::string source = t["source"].value_or(std::string{});
  ASSERT_FALSE(source.empty()) << file << ": every case cites its source";
  ASSERT_TRUE(t["name"].is_string()) << file;
  const toml::table* request = t["request"].as_table();
  ASSERT_NE(request, nullptr) << file << ": [request] missing";
  // `command` picks the query: estimate (the default), infer or compare.
  const std::string command = t["command"].value_or(std::string{"estimate"});
  nlohmann::json j;
  try {
    const tb::api::FieldMap values = request_of(*request);
    std::string text;
    if (command == "infer") {
      text = tb::report::json_of(session().infer(values).estimate);
    } else if (command == "compare") {
      text = tb::report::json_of(session().compare(values).comparison);
    } else {
      ASSERT_EQ(command, "estimate") << file << ": command is estimate, infer or compare";
      text = tb::report::estimate_json(session().estimate(values).estimate);
    }
    j = nlohmann::json::parse(text);
  } catch (const tb::Error& e) {
    FAIL() << file << ": " << e.what();
  }

  const toml::array* expects = t["expect"].as_array();
  ASSERT_NE(expects, nullptr) << file << ": no [[expect]]";
  ASSERT_FALSE(expects->empty());
  for (const auto& e : *expects) {
    const toml::table& ex = *e.as_table();
    const std::string key = ex["key"].value_or(std::string{});
    const std::string why = ex["why"].value_or(std::string{});
    ASSERT_FALSE(why.empty()) << file << " " << key << ": justify the expectation";
    // A bound ("more than 780 GB") is checked as a bound, not as a value.
    const std::optional<double> at_least = ex["at_least"].value<double>();
    const std::optional<double> at_most = ex["at_most"].value<double>();
    if (at_least || at_most) {
      const nlohmann::json* node = at_path(j, key);
      ASSERT_NE(node, nullptr) << file << ": no key " << key;
      const double actual = node->get<double>();
      if (at_least) {
        EXPECT_GE(actual, *at_least) << file << " " << key;
      }
      if (at_most) {
        EXPECT_LE(actual, *at_most) << file << " " << key;
      }
      std::printf("[ bound    ] %s %s: %.6g within [%s, %s]\n", file.filename().c_str(),
                  key.c_str(), actual, at_least ? std::to_string(*at_least).c_str() : "-",
                  at_most ? std::to_string(*at_most).c_str() : "-");
      continue;
    }
    const double expected = ex["value"].value<double>().value_or(std::nan(""));
    const double tolerance = ex["tolerance"].value<double>().value_or(-1.0);
    const std::optional<std::string> outside = ex["outside"].value<std::string>();
    ASSERT_GE(tolerance, 0.0) << file << " " << key << ": state a relative tolerance";
    const nlohmann::json* node = at_path(j, key);
    ASSERT_NE(node, nullptr) << file << ": no key " << key;
    ASSERT_TRUE(node->is_number()) << file << " " << key;
    const double actual = node->get<double>();
    const double rel = std::abs(actual - expected) / std::abs(expected);
    print_band(j, file, key, expected, actual);
    if (outside) {
      EXPECT_GT(rel, tolerance) << file << " " << key
                                << ": marked outside but now within tolerance; update the case";
      std::printf("[ outside  ] %s %s: expected %.6g, got %.6g (%.1f %%): %s\n",
                  file.filename().c_str(), key.c_str(), expected, actual, rel * 100,
                  outside->c_str());
    } else {
      EXPECT_LE(rel, tolerance) << file << " " << key << ": expected " << expected << ", got "
                                << actual << " (" << rel * 100 << " %); source: " << source;
      std::printf("[ within   ] %s %s: expected %.6g, got %.6g (%.3f %% <= %.3f %%)\n",
                  file.filename().c_str(), key.c_str(), expected, actual, rel * 100,
                  tolerance * 100);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ReferenceCase, testing::ValuesIn(all_cases()),
                         [](const testing::TestParamInfo<Case>& param_info) {
                           std::string name = param_info.param.file.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
