// --model by Hugging Face repo id from the local hub cache: a cache laid out on disk as
// huggingface_hub writes it (blobs, snapshots of symlinks, refs), never the network.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "scratch_dir.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/hub_fetch.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;

const fs::path kTiny = fs::path{TB_TEST_DIR} / "cli" / "models" / "tiny";

// models--acme--tiny with two snapshots: main -> "c0ffee" (the tiny model), and "old" with
// only a config.json; each file a symlink into blobs/, as huggingface_hub stores them.
// In a folder of its own: ctest runs this suite's tests as parallel processes.
fs::path make_cache(const fs::path& root) {
  const fs::path hub = root / "hub";
  const fs::path repo = hub / "models--acme--tiny";
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "refs");
  for (const char* commit : {"c0ffee", "old"}) {
    fs::create_directories(repo / "snapshots" / commit);
  }
  fs::copy_file(kTiny / "config.json", repo / "blobs" / "a1");
  fs::copy_file(kTiny / "model.safetensors", repo / "blobs" / "b2");
  fs::create_symlink("../../blobs/a1", repo / "snapshots" / "c0ffee" / "config.json");
  fs::create_symlink("../../blobs/b2", repo / "snapshots" / "c0ffee" / "model.safetensors");
  fs::create_symlink("../../blobs/a1", repo / "snapshots" / "old" / "config.json");
  std::ofstream{repo / "refs" / "main"} << "c0ffee";
  return hub;
}

class HfCache : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_ = make_cache(scratch_.path());
    setenv("HF_HUB_CACHE", hub_.c_str(), 1);
  }
  void TearDown() override { unsetenv("HF_HUB_CACHE"); }
  test_support::ScratchDir scratch_;
  fs::path hub_;
};

TEST_F(HfCache, ARepoIdResolvesToItsMainSnapshot) {
  const auto snapshot = io::hf_cached_snapshot("acme/tiny");
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->filename(), "c0ffee");
  const ModelSource m = io::load_model("acme/tiny", io::data_dir() / "models");
  EXPECT_EQ(m.kind, "hf-cache");
  EXPECT_EQ(m.name, "acme/tiny");
  ASSERT_TRUE(m.checkpoint.has_value());  // the safetensors header was read through the symlink
  // The same counts as the folder it was copied from.
  const ModelSource folder = io::load_model(kTiny.string(), io::data_dir() / "models");
  EXPECT_EQ(m.counts->total, folder.counts->total);
}

TEST_F(HfCache, ARevisionPicksItsSnapshot) {
  const auto old = io::hf_cached_snapshot("acme/tiny@old");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->filename(), "old");
  EXPECT_FALSE(io::hf_cached_snapshot("acme/tiny@missing").has_value());
  EXPECT_FALSE(io::hf_cached_snapshot("acme/tiny@../../x").has_value());
}

// A ref is read as a small regular file holding a hash (issue 43): a FIFO or a link to
// /dev/zero is refused by kind, a path is not followed out of the cache, and an entry whose
// snapshot lost its config.json is named as broken rather than "not a model".
TEST_F(HfCache, BrokenEntriesAreNamedAndRefsStayInsideTheCache) {
  const fs::path refs = hub_ / "models--acme--tiny" / "refs";
  const auto message = [](const std::string& id) {
    try {
      (void)io::hf_cached_snapshot(id);
    } catch (const DataError& e) {
      return std::string{e.what()};
    }
    return std::string{"no error"};
  };
  fs::create_symlink("/dev/zero", refs / "zero");
  EXPECT_NE(message("acme/tiny@zero").find("not a regular file"), std::string::npos)
      << message("acme/tiny@zero");
  ASSERT_EQ(mkfifo((refs / "pipe").c_str(), 0600), 0);
  EXPECT_NE(message("acme/tiny@pipe").find("is a FIFO"), std::string::npos);
  std::ofstream{refs / "escape"} << "../../../../etc";
  EXPECT_NE(message("acme/tiny@escape").find("does not hold a commit hash"), std::string::npos);
  std::ofstream{refs / "gone"} << "deadbeef";
  EXPECT_NE(message("acme/tiny@gone").find("has no readable config.json"), std::string::npos);
  // A snapshot whose config.json link points at a blob that is not there.
  fs::remove(hub_ / "models--acme--tiny" / "blobs" / "a1");
  EXPECT_NE(message("acme/tiny").find("the cached snapshot c0ffee of acme/tiny"), std::string::npos)
      << message("acme/tiny");
}

// snapshot_download(revision=<commit>) leaves no refs/main (issue 41): the one snapshot with a
// config.json is the model; with several, the error names them and the way to choose.
TEST_F(HfCache, WithoutRefsMainTheOnlySnapshotIsTheModel) {
  const fs::path repo = hub_ / "models--acme--tiny";
  fs::remove(repo / "refs" / "main");
  const auto message = [] {
    try {
      (void)io::hf_cached_snapshot("acme/tiny");
    } catch (const DataError& e) {
      return std::string{e.what()};
    }
    return std::string{"no error"};
  };
  EXPECT_NE(message().find("acme/tiny has no refs/main and 2 snapshots (c0ffee, old): name one as "
                           "acme/tiny@<commit>"),
            std::string::npos)
      << message();
  fs::remove_all(repo / "snapshots" / "old");
  const auto snapshot = io::hf_cached_snapshot("acme/tiny");
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->filename(), "c0ffee");
}

// Repo ids as the Hub spells them: owner/name[@revision], letters, digits, '-', '_', '.'.
TEST(HubRepoId, ParsesOwnerNameAndRevision) {
  const auto id = io::parse_repo_id("Qwen/Qwen3-4B-Instruct-2507@v1.0");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->repo, "Qwen/Qwen3-4B-Instruct-2507");
  EXPECT_EQ(id->revision, "v1.0");
  EXPECT_EQ(io::parse_repo_id("a/b")->revision, "main");
  for (const char* bad : {"a", "/b", "a/", "a/b/c", "a/../b", "a/b@", "a/b@../x", "../a/b", "a/b c",
                          "a/.b", "a/b{x}"}) {
    EXPECT_FALSE(io::parse_repo_id(bad).has_value()) << bad;
  }
}

// The environment as huggingface_hub reads it: HF_HUB_OFFLINE's true spellings, HF_ENDPOINT
// without a trailing slash, HF_TOKEN before the token file.
TEST(HubSettings, FollowHuggingfaceHubsVariables) {
  test_support::ScratchDir scratch;
  setenv("HF_HOME", scratch.path().c_str(), 1);
  std::ofstream{scratch.path() / "token"} << "from-file\n";
  unsetenv("HF_TOKEN");
  unsetenv("HF_TOKEN_PATH");
  setenv("HF_ENDPOINT", "http://mirror.example/", 1);
  for (const char* yes : {"1", "on", "YES", "True"}) {
    setenv("HF_HUB_OFFLINE", yes, 1);
    EXPECT_TRUE(io::hub_settings_from_environment().offline) << yes;
  }
  setenv("HF_HUB_OFFLINE", "0", 1);
  io::HubSettings s = io::hub_settings_from_environment();
  EXPECT_FALSE(s.offline);
  EXPECT_EQ(s.endpoint, "http://mirror.example");
  EXPECT_EQ(s.token, "from-file");
  EXPECT_EQ(s.cache, scratch.path() / "hub");
  setenv("HF_TOKEN", "from-env", 1);
  EXPECT_EQ(io::hub_settings_from_environment().token, "from-env");
  for (const char* v : {"HF_HOME", "HF_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE"}) unsetenv(v);
}

TEST_F(HfCache, NotCachedFallsBackToThePresetThatCarriesTheRepoId) {
  EXPECT_FALSE(io::hf_cached_snapshot("meta-llama/Llama-3.1-8B").has_value());
  const ModelSource m = io::load_model("meta-llama/Llama-3.1-8B", io::data_dir() / "models");
  EXPECT_EQ(m.kind, "preset");
}

// Copies of a preset's checkpoint under other names, offline: a dtype re-upload (-fp16), a
// bitsandbytes NF4 copy (-bnb-nf4) and axolotl's linearized Llama 4 read as the preset, said so.
// `repo`, offline and not in the cache, reads as the preset `preset`, with one warning saying so.
void expect_read_as(const char* repo, const char* preset) {
  const fs::path presets = io::data_dir() / "models";
  const ModelSource m = io::load_model(repo, presets, io::ModelPaths::kFetch);
  EXPECT_EQ(m.kind, "preset") << repo;
  EXPECT_EQ(m.name, io::load_model(preset, presets).name) << repo;
  ASSERT_EQ(m.warnings.size(), 1U) << repo;
  EXPECT_NE(m.warnings[0].find(std::string{"read as the preset "} + preset), std::string::npos)
      << m.warnings[0];
}

TEST_F(HfCache, RenamedCopiesReadAsThePresetTheyCopy) {
  setenv("HF_HUB_OFFLINE", "1", 1);
  for (const auto& [copy, preset] : {
           std::pair{"casperhansen/llama-3-70b-fp16", "llama-3-70b"},
           std::pair{"hugging-quants/Meta-Llama-3.1-405B-BNB-NF4-BF16", "llama-3.1-405b"},
           std::pair{"axolotl-quants/Llama-4-Scout-17B-16E-Linearized-bnb-nf4-bf16",
                     "llama-4-scout"},
           std::pair{"axolotl-quants/Llama-4-Maverick-17B-128E-Linearized-bnb-nf4-bf16",
                     "llama-4-maverick"},
       }) {
    expect_read_as(copy, preset);
  }
  unsetenv("HF_HUB_OFFLINE");
}

// A repo a preset lists in hf_aliases (its evidence in aliases_source) reads as that preset,
// said so; axolotl's -dequantized gpt-oss (bf16 experts, what trainers load) by its name.
TEST_F(HfCache, AliasesAndDequantizedCopiesReadAsTheirPreset) {
  setenv("HF_HUB_OFFLINE", "1", 1);
  const fs::path presets = io::data_dir() / "models";
  for (const auto& [copy, preset] : {
           std::pair{"openai/gpt-oss-safeguard-20b", "gpt-oss-20b"},
           std::pair{"MistralAI/Magistral-Small-2506", "mistral-small-24b"},
           std::pair{"mistralai/Devstral-Small-2507", "mistral-small-24b"},
           std::pair{"axolotl-ai-co/gpt-oss-120b-dequantized", "gpt-oss-120b"},
       }) {
    expect_read_as(copy, preset);
  }
  // Every alias names one preset, never another preset's own repo.
  std::map<std::string, std::string> owner;
  for (const io::ModelPreset& p : io::load_model_presets(presets)) owner[p.hf_repo] = p.id;
  for (const io::ModelPreset& p : io::load_model_presets(presets)) {
    for (const std::string& alias : p.hf_aliases) {
      EXPECT_TRUE(owner.emplace(alias, p.id).second) << alias << " in " << p.id;
    }
  }
  unsetenv("HF_HUB_OFFLINE");
}

TEST(HfCacheDir, FollowsHuggingfaceHubsVariables) {
  setenv("HF_HUB_CACHE", "/x/hub", 1);
  EXPECT_EQ(io::hf_hub_cache_dir(), fs::path("/x/hub"));
  unsetenv("HF_HUB_CACHE");
  setenv("HF_HOME", "/y", 1);
  EXPECT_EQ(io::hf_hub_cache_dir(), fs::path("/y/hub"));
  unsetenv("HF_HOME");
}

}  // namespace
}  // namespace tb
