// The one comma-list splitter: trimming, and every shape of empty entry is an error.
#include "trainbudget/spec/comma_list.hpp"

#include <gtest/gtest.h>

#include <string>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

std::vector<std::string> split(std::string_view text) {
  const std::vector<std::string_view> items = split_comma_list(text, "--flag", "a,b");
  return {items.begin(), items.end()};
}

TEST(CommaList, SplitsAtCommasAndTrimsSpacesAndTabs) {
  EXPECT_EQ(split("a"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(split("h100-sxm, a100-sxm-80gb"),
            (std::vector<std::string>{"h100-sxm", "a100-sxm-80gb"}));
  EXPECT_EQ(split(" a ,\tb\t, c d "), (std::vector<std::string>{"a", "b", "c d"}));
}

TEST(CommaList, EmptyEntryIsAnErrorNamingTheFlagAndTheList) {
  for (const char* bad : {"", " ", ",a", "a,,b", "a, ,b", "a,", "a, "}) {
    try {
      (void)split(bad);
      ADD_FAILURE() << "'" << bad << "' must be an error";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--flag: empty entry in '") + bad + "'; accepted: a,b");
    }
  }
}

}  // namespace
}  // namespace tb
