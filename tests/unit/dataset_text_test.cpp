// A dataset's text counted by hand (io/dataset_text.hpp): string values only, in code points,
// records per line or per top-level array item, and the errors that name dataset_file.
#include "trainbudget/io/dataset_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

const std::string kData = std::string{TB_TEST_DIR} + "/data/datasets/";

std::string message_of(const std::string& file) {
  try {
    (void)io::count_dataset_text(file);
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().field, "dataset_file");
    return e.problems().front().message;
  }
  return "";
}

TEST(DatasetText, JsonLinesCountEveryStringValueInCodePoints) {
  // "Say hi" 6 + "Hello there!" 12 + "Zähle" 5 (the umlaut is one character, two bytes) +
  // "1 2 3" 5 + the tags "a" 1 and "bc" 2; keys and numbers are not text. The blank line is
  // no record.
  const io::DatasetText t = io::count_dataset_text(kData + "tiny.jsonl");
  EXPECT_EQ(t.records, 2);
  EXPECT_EQ(t.characters, 31);
  EXPECT_GT(t.bytes, 31);
}

TEST(DatasetText, AJsonArrayCountsItsItemsAsRecords) {
  // "abcd" 4 + "efgh ijkl" 9 + "" 0.
  const io::DatasetText t = io::count_dataset_text(kData + "tiny.json");
  EXPECT_EQ(t.records, 3);
  EXPECT_EQ(t.characters, 13);
}

TEST(DatasetText, ErrorsNameTheFieldTheFileAndTheLine) {
  EXPECT_NE(message_of(kData + "broken.jsonl").find("line 2"), std::string::npos);
  EXPECT_NE(message_of(kData + "missing.jsonl").find("does not exist"), std::string::npos);
  EXPECT_NE(message_of(kData + "tiny.parquet").find(".jsonl"), std::string::npos);
}

// The request turns the count into dataset_tokens at 4 characters a token, and tokens into
// epochs of them.
TEST(DatasetText, TheRequestCountsTokensAtFourCharactersEach) {
  const api::EstimateRequest r = api::parse_estimate_request(
      {{"dataset_file", kData + "tiny.jsonl," + kData + "tiny.json"}, {"epochs", "2"}});
  ASSERT_TRUE(r.dataset_tokens);
  EXPECT_DOUBLE_EQ(*r.dataset_tokens, (31.0 + 13.0) / 4.0);
  EXPECT_DOUBLE_EQ(r.job.tokens, 2.0 * 11.0);
  EXPECT_THROW((void)api::parse_estimate_request(
                   {{"dataset_file", kData + "tiny.jsonl"}, {"dataset_tokens", "1M"}}),
               InvalidRequest);
}

}  // namespace
}  // namespace tb
