// Counts as people write them, and the errors for everything else.
#include "trainbudget/spec/quantity_parse.hpp"

#include <gtest/gtest.h>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

TEST(ParseCount, AcceptsSuffixesAndExponents) {
  EXPECT_DOUBLE_EQ(parse_count("7e9", "params"), 7e9);
  EXPECT_DOUBLE_EQ(parse_count("7B", "params"), 7e9);
  EXPECT_DOUBLE_EQ(parse_count("70b", "params"), 70e9);
  EXPECT_DOUBLE_EQ(parse_count("1.5T", "params"), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_count("125M", "params"), 125e6);
  EXPECT_DOUBLE_EQ(parse_count("32k", "tokens"), 32e3);
  EXPECT_DOUBLE_EQ(parse_count("7000000000", "params"), 7e9);
}

TEST(ParseCount, RejectsWithFieldName) {
  for (const char* bad : {"-7B", "0", "nan", "inf", "abc", "7X", "", "7BB", "1e999", "B"}) {
    try {
      (void)parse_count(bad, "params");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("params"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseNumberIn, RangeIsEnforced) {
  EXPECT_DOUBLE_EQ(parse_number_in("0.4", "utilization", 0.0, 1.0, false), 0.4);
  EXPECT_DOUBLE_EQ(parse_number_in("1", "utilization", 0.0, 1.0, false), 1.0);
  EXPECT_THROW((void)parse_number_in("0", "utilization", 0.0, 1.0, false), InvalidArgument);
  EXPECT_THROW((void)parse_number_in("1.01", "utilization", 0.0, 1.0, false), InvalidArgument);
  EXPECT_THROW((void)parse_number_in("nan", "utilization", 0.0, 1.0, false), InvalidArgument);
  EXPECT_DOUBLE_EQ(parse_number_in("1", "devices", 1.0, 10.0, true), 1.0);
}

}  // namespace
}  // namespace tb
