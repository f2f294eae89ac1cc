// Suggestions: edit distance, prefix ranking, the limit and the distance cut-off.
#include "trainbudget/spec/closest.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tb
