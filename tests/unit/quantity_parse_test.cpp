// Counts as people write them, and the errors for everything else.
#include "trainbudget/spec/quantity_parse.hpp"

#include <gtest/gtest.h>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

TEST(ParseCount, AcceptsSuffixesAndExponents) {
  EXPECT_DOUBLE_EQ(parse_count("7e9", "params", kParamsRange), 7e9);
  EXPECT_DOUBLE_EQ(parse_count("7B", "params", kParamsRange), 7e9);
  EXPECT_DOUBLE_EQ(parse_count("70b", "params", kParamsRange), 70e9);
  EXPECT_DOUBLE_EQ(parse_count("1.5T", "params", kParamsRange), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_count("125M", "params", kParamsRange), 125e6);
  EXPECT_DOUBLE_EQ(parse_count("32k", "tokens", kParamsRange), 32e3);
  EXPECT_DOUBLE_EQ(parse_count("7000000000", "params", kParamsRange), 7e9);
}

TEST(ParseCount, RejectsWithFieldName) {
  for (const char* bad :
       {"-7B", "0", "nan", "inf", "abc", "7X", "", "7BB", "1e999", "B", "0.5", "1e16", "2000T"}) {
    try {
      (void)parse_count(bad, "params", kParamsRange);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("params"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseCount, TheRangeIsInclusiveAndSaidInTheProblem) {
  EXPECT_DOUBLE_EQ(parse_count("1", "params", kParamsRange), 1.0);
  EXPECT_DOUBLE_EQ(parse_count("1000T", "params", kParamsRange), 1e15);
  try {
    (void)parse_count("0.5", "params", kParamsRange);
    ADD_FAILURE() << "accepted 0.5 parameters";
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().message, "'0.5' is less than 1");
    EXPECT_EQ(e.problems().front().accepted,
              "a count from 1 to 1e+15 such as 7e9, 7B, 70b, 1.5T, 125M or 32k");
  }
}

TEST(ParseCount, QuotesOnlyAnExcerptOfAHugeValue) {
  const std::string huge(10'000'000, '9');
  try {
    (void)parse_count(huge + "x", "tokens", kTokensRange);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_LT(e.problems().front().message.size(), 300U);
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
