// Every shipped model preset loads and its exact count equals the published one.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

const std::filesystem::path kModels = std::filesystem::path{TB_TEST_DATA_DIR} / "models";

double relative_error(std::int64_t ours, std::int64_t published) {
  return std::fabs(static_cast<double>(ours) / static_cast<double>(published) - 1.0);
}

TEST(ModelPresets, EveryPresetMatchesItsPublishedCount) {
  const std::vector<ModelPreset> presets = load_model_presets(kModels);
  EXPECT_GE(presets.size(), 25U);
  std::vector<std::string> families;
  for (const ModelPreset& p : presets) {
    SCOPED_TRACE(p.id);
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.source.empty());
    EXPECT_FALSE(p.hf_repo.empty());
    const ParamCounts c = count_params(p.architecture);
    const std::int64_t total = p.published_params_include_mtp ? c.total_with_mtp : c.total;
    if (p.published_params_tolerance == 0.0) {
      EXPECT_EQ(total, p.published_params);
    } else {
      EXPECT_LE(relative_error(total, p.published_params), p.published_params_tolerance) << total;
    }
    if (p.published_active_params) {
      const std::int64_t active =
          c.active - (p.published_active_excludes_input_embedding ? c.input_embedding : 0);
      EXPECT_LE(relative_error(active, *p.published_active_params), p.published_active_tolerance)
          << active;
    }
    families.push_back(p.architecture.model_type);
  }
  // Every family the parser supports has a preset (gemma3_text and gemma3 count once).
  for (const char* type : {"gpt2", "llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe",
                           "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "olmo",
                           "deepseek_v3", "qwen3_5", "qwen3_5_moe", "qwen3_next"}) {
    EXPECT_NE(std::find(families.begin(), families.end(), type), families.end()) << type;
  }
}

TEST(ModelPresets, BrokenPresetListsEveryProblem) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_bad_preset";
  std::filesystem::create_directories(dir);
  const auto file = dir / "bad.toml";
  std::ofstream(file) << "name = 3\npublished_params = -1\ncolour = \"red\"\n";
  try {
    (void)load_model_preset(file);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("colour: unknown key"), std::string::npos) << what;
    EXPECT_NE(what.find("name: 3 must be a string"), std::string::npos) << what;
    EXPECT_NE(what.find("published_params: -1 must be > 0"), std::string::npos) << what;
    EXPECT_NE(what.find("config: missing"), std::string::npos) << what;
  }
  // A bad [config] is reported through the config.json parser, naming the preset.
  std::ofstream(file) << "name = \"x\"\nhf_repo = \"x/y\"\nsource = \"s\"\n"
                         "published_params = 1\n[config]\nmodel_type = \"llama\"\n";
  try {
    (void)load_model_preset(file);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string{e.what()}.find("bad.toml [config]: "), std::string::npos) << e.what();
    EXPECT_NE(std::string{e.what()}.find("hidden_size: missing"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tb::io
