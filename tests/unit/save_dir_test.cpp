#include "trainbudget/io/save_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "scratch_dir.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

using ScratchDir = tb::test_support::ScratchDir;

void touch(const fs::path& file, std::chrono::seconds age) {
  std::ofstream(file) << "x";
  fs::last_write_time(file, fs::file_time_type::clock::now() - age);
}

TEST(RemoveStaleTemporaries, DeletesWhatAKilledSaveLeftAndNothingElse) {
  const ScratchDir dir;
  const fs::path stale = dir.path() / ".local.toml.tmp-a1B2c3";
  const fs::path fresh = dir.path() / ".box.toml.tmp-Zz9yX8";  // a save in flight
  const fs::path profile = dir.path() / "local.toml";
  const fs::path other = dir.path() / ".notes.txt.tmp-a1B2c3";  // not ours
  touch(stale, std::chrono::seconds{3600});
  touch(fresh, std::chrono::seconds{0});
  touch(profile, std::chrono::seconds{3600});
  touch(other, std::chrono::seconds{3600});
  EXPECT_EQ(remove_stale_temporaries(dir.path()), 1U);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(profile));
  EXPECT_TRUE(fs::exists(other));
}

TEST(PrepareSaveDir, CreatesTheFolder) {
  const ScratchDir dir;
  const fs::path target = dir.path() / "trainbudget" / "hardware";
  prepare_save_dir(target, "save");
  EXPECT_TRUE(fs::is_directory(target));
}

TEST(PrepareSaveDir, AFileInThePathIsAProblemNamingTheFlag) {
  const ScratchDir dir;
  std::ofstream(dir.path() / "config") << "not a folder";
  try {
    prepare_save_dir(dir.path() / "config" / "trainbudget" / "hardware", "save");
    ADD_FAILURE() << "a folder under a file was accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().field, "save");
    EXPECT_THAT(e.problems().front().message, HasSubstr("cannot create the hardware folder"));
  }
}

}  // namespace
}  // namespace tb::io
