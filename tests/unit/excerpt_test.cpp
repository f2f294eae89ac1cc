#include "trainbudget/spec/excerpt.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tb {
namespace {

TEST(Excerpt, KeepsShortPrintableTextAsIs) { EXPECT_EQ(excerpt("hidden_size"), "hidden_size"); }

TEST(Excerpt, EscapesControlCharactersOnOneLine) {
  EXPECT_EQ(excerpt("a\nb\tc\x1b[31m\\"), "a\\nb\\tc\\x1B[31m\\\\");
}

TEST(Excerpt, EscapesInvalidUtf8ButKeepsValidCharacters) {
  EXPECT_EQ(excerpt("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(excerpt("bad\xFF\xC3"), "bad\\xFF\\xC3");
  // An overlong encoding of '/' and a UTF-16 surrogate are not UTF-8 (RFC 3629).
  EXPECT_EQ(excerpt("\xC0\xAF"), "\\xC0\\xAF");
  EXPECT_EQ(excerpt("\xED\xA0\x80"), "\\xED\\xA0\\x80");
}

TEST(Excerpt, CutsLongValuesAndSaysHowLong) {
  const std::string big(200'000'000, '7');
  const std::string e = excerpt(big);
  EXPECT_EQ(e, std::string(kExcerptBytes, '7') + "... (200000000 bytes)");
}

TEST(Excerpt, NeverCutsInsideACharacter) {
  // 3 ASCII bytes, then a 2-byte character straddling the 4-byte limit.
  EXPECT_EQ(excerpt("abc\xC3\xA9z", 4), "abc... (6 bytes)");
}

TEST(Printable, EscapesWithoutCutting) {
  const std::string path = std::string(500, 'p') + "\xFF";
  EXPECT_EQ(printable(path), std::string(500, 'p') + "\\xFF");
}

TEST(JsonNestingDepth, CountsBracketsOutsideStrings) {
  EXPECT_EQ(json_nesting_depth("1"), 0U);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": 2}]})"), 3U);
  EXPECT_EQ(json_nesting_depth(R"({"a": "[[[[\"{{{"})"), 1U);
  EXPECT_EQ(json_nesting_depth(std::string(100'000, '[')), 100'000U);
}

}  // namespace
}  // namespace tb

namespace tb {
namespace {

TEST(Utf8Sequence, DecodesValidSequencesAndRefusesTheRest) {
  char32_t cp = 0;
  EXPECT_EQ(utf8_sequence("\xC5\xA9", 0, cp), 2U);
  EXPECT_EQ(cp, U'\u0169');
  EXPECT_EQ(utf8_sequence("\xF0\x9F\x98\x80", 0, cp), 4U);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(utf8_sequence("\xE0\x80\xAF", 0, cp), 0U);      // overlong '/'
  EXPECT_EQ(utf8_sequence("\xED\xA0\x80", 0, cp), 0U);      // surrogate
  EXPECT_EQ(utf8_sequence("\xF4\x90\x80\x80", 0, cp), 0U);  // past U+10FFFF
  EXPECT_EQ(utf8_sequence("\xC5", 0, cp), 0U);              // cut short
}

}  // namespace
}  // namespace tb
