// Our strict TOML reader (src/io/toml_reader.cpp): what TOML 1.0 says each construct means, and
// every refusal with its line.
#include "io/toml_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

std::string refusal(std::string_view text) {
  try {
    (void)read_toml(text, "t.toml");
  } catch (const DataError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TomlReader, ScalarsAsTomlDefinesThem) {
  const TomlTable t = read_toml(
      "a = 1_000\nb = -0.5e-3\nc = +7\nd = true\ne = \"x\\ty\\u00e9\\U0001F600\\\"\"\n"
      "f = 'C:\\path'\ng = 6.02E23\nh = 0\ni = 1e2 # comment\n",
      "t.toml");
  EXPECT_EQ(t.get("a")->integer, 1000);
  EXPECT_EQ(t.get("a")->kind, TomlValue::Kind::kInteger);
  EXPECT_DOUBLE_EQ(t.get("b")->number, -0.5e-3);
  EXPECT_EQ(t.get("c")->integer, 7);
  EXPECT_TRUE(t.get("d")->boolean);
  EXPECT_EQ(t.get("e")->text, "x\ty\xC3\xA9\xF0\x9F\x98\x80\"");
  EXPECT_EQ(t.get("f")->text, "C:\\path");
  EXPECT_DOUBLE_EQ(t.get("g")->number, 6.02e23);
  EXPECT_EQ(t.get("h")->integer, 0);
  EXPECT_EQ(t.get("i")->kind, TomlValue::Kind::kFloat);
  EXPECT_EQ(t.get("a")->text, "1_000");  // as written, for messages
}

TEST(TomlReader, MultiLineStrings) {
  const TomlTable t =
      read_toml("a = \"\"\"\nline one\nline \\\n    two\"\"\"\nb = '''\nraw \\n ''''\n", "t.toml");
  EXPECT_EQ(t.get("a")->text, "line one\nline two");
  EXPECT_EQ(t.get("b")->text, "raw \\n '");
}

TEST(TomlReader, TablesDottedKeysArraysOfTablesAndInlineTables) {
  const TomlTable t = read_toml(
      "top = 1\n[compute.bf16]\ndense = 2\n[compute.fp8]\ndense = 3\n"
      "[[measured.curve]]\nbytes = [1, 2,\n  3, # three\n]\n[[measured.curve]]\nbytes = []\n"
      "[kernels]\ndevices = [ { id = \"h100\", n.sm = 132 }, {} ]\nsite.\"quoted key\" = 'v'\n",
      "t.toml");
  EXPECT_EQ(t.table("compute")->table("bf16")->get("dense")->integer, 2);
  EXPECT_EQ(t.table("compute")->table("fp8")->get("dense")->integer, 3);
  const auto* curves = t.table("measured")->array("curve");
  ASSERT_NE(curves, nullptr);
  ASSERT_EQ(curves->size(), 2U);
  EXPECT_EQ((*curves)[0].as_table()->array("bytes")->size(), 3U);
  const auto* devices = t.table("kernels")->array("devices");
  EXPECT_EQ((*devices)[0].as_table()->table("n")->get("sm")->integer, 132);
  EXPECT_EQ(t.table("kernels")->table("site")->get("quoted key")->text, "v");
  EXPECT_EQ(toml_as_json(*t.table("compute")).dump(), R"({"bf16":{"dense":2},"fp8":{"dense":3}})");
}

TEST(TomlReader, RefusesWhatNoFileOfOursHoldsWithTheLine) {
  EXPECT_EQ(refusal("a = 1\nb = 1979-05-27\n"),
            "t.toml: TOML syntax error at line 2: a date or time value (no field here is one)");
  EXPECT_EQ(refusal("a = 07:32:00\n"),
            "t.toml: TOML syntax error at line 1: a date or time value (no field here is one)");
  EXPECT_EQ(refusal("a = inf\n"),
            "t.toml: TOML syntax error at line 1: 'inf': inf and nan are not read");
  EXPECT_EQ(refusal("a = -nan\n"),
            "t.toml: TOML syntax error at line 1: '-nan': inf and nan are not read");
  EXPECT_EQ(refusal("a = 0x1F\n"),
            "t.toml: TOML syntax error at line 1: '0x1F': write the number in decimal");
  EXPECT_EQ(refusal("a = 012\n"),
            "t.toml: TOML syntax error at line 1: '012': a number does not start with 0");
  EXPECT_EQ(
      refusal("a = 1__0\n"),
      "t.toml: TOML syntax error at line 1: '1__0': an underscore must stand between two digits");
  EXPECT_EQ(refusal("a = 1.\n"), "t.toml: TOML syntax error at line 1: '1.' is not a number");
  EXPECT_EQ(refusal("a = .5\n"), "t.toml: TOML syntax error at line 1: '.' where a value must be");
  EXPECT_EQ(refusal("a = 99999999999999999999\n"),
            "t.toml: TOML syntax error at line 1: '99999999999999999999' is out of range");
  EXPECT_EQ(refusal("a = 1\na = 2\n"), "t.toml: TOML syntax error at line 2: 'a' is defined twice");
  EXPECT_EQ(refusal("[t]\n[t]\n"), "t.toml: TOML syntax error at line 2: [t] is defined twice");
  EXPECT_EQ(refusal("a = 1\n[a.b]\n"),
            "t.toml: TOML syntax error at line 2: 'a' already holds a value, not a table");
  EXPECT_EQ(refusal("a = {b = 1}\n[a.c]\n"),
            "t.toml: TOML syntax error at line 2: 'a' already holds a value, not a table");
  EXPECT_EQ(refusal("a = \"open\nb = 1\n"),
            "t.toml: TOML syntax error at line 1: a string not closed on its line");
  EXPECT_EQ(refusal("a = \"\\q\"\n"),
            "t.toml: TOML syntax error at line 1: '\\q' is not a TOML escape");
  EXPECT_EQ(refusal("a = \"\\uD800\"\n"),
            "t.toml: TOML syntax error at line 1: \\u escape U+D800 is not a Unicode scalar value");
  EXPECT_EQ(
      refusal("a = \"\x01\"\n"),
      "t.toml: TOML syntax error at line 1: a control character (\\x01) in a string; write it "
      "as an escape");
  EXPECT_EQ(refusal("a = \"\xff\"\n"),
            "t.toml: TOML syntax error at line 1: a string holds bytes that are not UTF-8");
  EXPECT_EQ(refusal("a = 1 b = 2\n"),
            "t.toml: TOML syntax error at line 1: 'b' after a complete line (one key = value or "
            "[header] per line)");
  EXPECT_EQ(refusal("a = [1 2]\n"),
            "t.toml: TOML syntax error at line 1: '2' where ',' or ']' must be");
  EXPECT_EQ(refusal("a = {b = 1,\nc = 2}\n"),
            "t.toml: TOML syntax error at line 1: an inline table must close on its line");
  EXPECT_EQ(refusal("a = truely\n"),
            "t.toml: TOML syntax error at line 1: 'truely' is not a value");
  EXPECT_EQ(refusal("a = \"\"\"never"),
            "t.toml: TOML syntax error at line 1: a multi-line string never closed");
}

// Keys are found through an index once a table holds a few: 40,000 tables (the fuzz seed
// many-tables, which took 9.5 s under ASan with a linear search per header) read in one pass.
TEST(TomlReader, ManyTablesAreFoundByName) {
  std::string text;
  for (int i = 0; i < 40000; ++i)
    text += "[t" + std::to_string(i) + "]\nv = " + std::to_string(i) + "\n";
  const TomlTable t = read_toml(text, "t.toml");
  ASSERT_EQ(t.size(), 40000U);
  EXPECT_EQ(t.table("t39999")->get("v")->integer, 39999);
  EXPECT_EQ(t.table("t17")->get("v")->integer, 17);
  EXPECT_EQ(refusal(text + "[t123]\n"),
            "t.toml: TOML syntax error at line 80001: [t123] is defined twice");
}

TEST(TomlReader, NestingIsBoundedBeforeTheStack) {
  std::string deep = "a = ";
  for (int k = 0; k < 100000; ++k) deep += '[';
  EXPECT_EQ(refusal(deep),
            "t.toml: TOML syntax error at line 1: values nested more than 32 levels deep");
  std::string dotted = "a";
  for (int k = 0; k < 40; ++k) dotted += ".a";
  EXPECT_EQ(refusal(dotted + " = 1\n"),
            "t.toml: TOML syntax error at line 1: keys nested more than 32 levels deep");
}

}  // namespace
}  // namespace tb::io
