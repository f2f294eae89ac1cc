// Suggestions: edit distance, prefix ranking, the limit and the distance cut-off.
#include "trainbudget/spec/closest.hpp"

#include <gtest/gtest.h>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/io/preset_suggestions.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);
  EXPECT_EQ(edit_distance("--parms", "--params"), 1U);
  EXPECT_EQ(edit_distance("", "abc"), 3U);
  EXPECT_EQ(edit_distance("same", "same"), 0U);
}

TEST(ClosestNames, RanksPrefixFirstThenDistanceAndKeepsOrderOnTies) {
  const std::vector<std::string> ids{"a100-sxm-80gb", "h100-nvl", "h100-pcie", "h100-sxm", "h200"};
  EXPECT_EQ(closest_names("h100", ids, 3),
            (std::vector<std::string>{"h100-nvl", "h100-pcie", "h100-sxm"}));
  EXPECT_EQ(closest_names("h300", ids, 1), (std::vector<std::string>{"h200"}));
  EXPECT_EQ(closest_names("h100", ids, 10).size(), ids.size());
}

TEST(ClosestNames, MaxDistanceLeavesOutFarNames) {
  const std::vector<std::string> flags{"--params", "--tokens", "--machine", "--help"};
  EXPECT_EQ(closest_names("--parms", flags, 1, 2), (std::vector<std::string>{"--params"}));
  EXPECT_EQ(closest_names("--mashine", flags, 1, 2), (std::vector<std::string>{"--machine"}));
  EXPECT_TRUE(closest_names("--no-such-option", flags, 1, 5).empty());
}

TEST(ClosestNames, RepeatedCandidatesAreSuggestedOnce) {
  const std::vector<std::string> names{"--format", "--format", "--force"};
  EXPECT_EQ(closest_names("--formt", names, 2), (std::vector<std::string>{"--format", "--force"}));
}

// Presets by family and size first (issue 42): a Llama 3 70B the user names the old way is one of
// the 3.x 70B presets, not Llama 2's.
TEST(ClosestPresets, FamilyAndSizeComeFirst) {
  const std::vector<std::string> ids{"llama-2-70b",   "llama-2-7b",   "llama-3-8b",
                                     "llama-3.1-70b", "llama-3.1-8b", "llama-3.3-70b",
                                     "qwen2.5-32b",   "qwen3-8b"};
  EXPECT_EQ(io::closest_presets("llama-3-70b", ids),
            (std::vector<std::string>{"llama-3.1-70b", "llama-3.3-70b", "llama-2-70b"}));
  EXPECT_EQ(io::closest_presets("qwen-32b", ids).front(), "qwen2.5-32b");
  // No size given: spelling alone.
  EXPECT_EQ(io::closest_presets("lama-3.1-8b", ids).front(), "llama-3.1-8b");
}

// A mistyped choice names the nearest accepted value.
TEST(ClosestPresets, ChoicesSuggestTheNearestValue) {
  const auto message = [](auto parse) {
    try {
      parse();
    } catch (const InvalidRequest& e) {
      return e.problems().front().message;
    }
    return std::string{};
  };
  EXPECT_EQ(message([] { (void)parse_method("lroa"); }),
            "unknown method 'lroa'; did you mean 'lora'?");
  EXPECT_EQ(message([] { (void)parse_recompute("ful"); }),
            "unknown mode 'ful'; did you mean 'full'?");
  EXPECT_EQ(message([] { (void)parse_method("zzzzzzzz"); }), "unknown method 'zzzzzzzz'");
}

}  // namespace
}  // namespace tb
