// The simdjson fast path of parse_json_document gives the same nlohmann documents as the slow path.
#include "ingest/json_keys.hpp"
#include "ingest/json_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using rfdb::ingest::json;
using rfdb::ingest::parse_json_document;
using rfdb::ingest::detail::parse_json_fast;
using rfdb::ingest::detail::parse_json_slow;

namespace {

// Same value, same nlohmann type at every node (json's operator== equates
// 1 and 1u and 1.0; the accessors do not).
void expect_identical(const json& a, const json& b, const std::string& where)
{
  ASSERT_EQ(a.type(), b.type()) << where << ": " << a.dump() << " vs " << b.dump();
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (auto it = a.begin(); it != a.end(); ++it) {
      ASSERT_TRUE(b.contains(it.key())) << where << "/" << it.key();
      expect_identical(*it, b.at(it.key()), where + "/" + it.key());
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) {
      expect_identical(a[i], b[i], where + "/" + std::to_string(i));
    }
  } else if (a.is_number_float()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    EXPECT_EQ(std::signbit(x), std::signbit(y)) << where;
    EXPECT_EQ(x, y) << where;
  } else {
    EXPECT_EQ(a, b) << where;
    EXPECT_EQ(a.dump(), b.dump()) << where;
  }
}

// The fast path takes `text` and agrees with the slow path exactly.
void expect_fast_equals_slow(const std::string& text)
{
  const auto fast = parse_json_fast(text);
  ASSERT_TRUE(fast.has_value()) << "fast path declined: " << text.substr(0, 200);
  const auto slow = parse_json_slow(text);
  ASSERT_TRUE(slow) << slow.error().message;
  EXPECT_TRUE(slow->duplicates.empty());
  expect_identical(*fast, slow->doc, "");
}

// The fast path declines `text`, and parse_json_document answers as the slow path.
void expect_slow_only(const std::string& text)
{
  EXPECT_FALSE(parse_json_fast(text).has_value()) << text.substr(0, 200);
  const auto doc = parse_json_document(text);
  const auto slow = parse_json_slow(text);
  ASSERT_EQ(doc.has_value(), slow.has_value());
  if (!slow) {
    EXPECT_EQ(doc.error().message, slow.error().message);
    return;
  }
  expect_identical(doc->doc, slow->doc, "");
  EXPECT_EQ(doc->duplicates.size(), slow->duplicates.size());
}

} // namespace

TEST(JsonFastPath, NumbersKeepNlohmannTypesAndValues)
{
  for (const std::string& text : std::vector<std::string>{
           "0",
           "1",
           "-1",
           "[0, -5, 7]",
           "9223372036854775807",
           "9223372036854775808",
           "18446744073709551615",
           "-9223372036854775808",
           "1.0",
           "-0.0",
           "0.0",
           "1e2",
           "1E-2",
           "-1.5e+3",
           "2.5e-308",
           "4.9e-324",
           "4.9e-325",
           "1.7976931348623157e308",
           "0.1",
           "3.141592653589793238462643383279",
           "123456.789e-3",
           "[-0.5, -0.05, 1.0e0]",
           R"({"speedup": 1.148, "conc": 64, "delta": -2, "big": 12345678901234567, "f": 64.0})"}) {
    SCOPED_TRACE(text);
    expect_fast_equals_slow(text);
  }
}

TEST(JsonFastPath, IntegerMinusZeroAndHugeIntegersTakeTheSlowPath)
{
  // nlohmann keeps -0 as a signed integer, and integers beyond 64 bits as
  // doubles; simdjson's DOM cannot say either, so the slow path decides.
  for (const std::string& text :
       std::vector<std::string>{"-0", "[-0]", R"({"a": -0, "b": 0})", "-9223372036854775809",
                                "18446744073709551616", "123456789012345678901234567890"}) {
    SCOPED_TRACE(text);
    expect_slow_only(text);
  }
  // "-0" inside strings, or as the start of -0.5 or a date, does not.
  expect_fast_equals_slow(R"({"d": "2024-08-31", "x": -0.5, "y": -0e1, "s": "a-01"})");
  // The check does not tell strings from numbers: a string ending in "-0"
  // is declined too, and the slow path gives the same document.
  expect_slow_only(R"({"s": "a-0"})");
}

TEST(JsonFastPath, StringsAndUnicodeEscapes)
{
  for (const std::string& text :
       std::vector<std::string>{R"("plain")", R"("0–100 % ≥ 0.9·target ✅")", R"("\u00e9\u2013\ud83d\ude00")",
                                R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u0000")",
                                R"({"k\u00e9y": "v", "kéy2": ""})", "\"\xEF\xBB\xBF inside\""}) {
    SCOPED_TRACE(text);
    expect_fast_equals_slow(text);
  }
  for (const std::string& text :
       std::vector<std::string>{R"("\udc00")", R"("\ud800")", R"("\ud800x")", "\"\xff\"", "\"\xC0\xAF\"",
                                std::string("\"a\0b\"", 5), "\"tab\there\""}) {
    SCOPED_TRACE(text);
    expect_slow_only(text);
  }
}

TEST(JsonFastPath, BomIsSkippedAndCommentsTakeTheSlowPath)
{
  expect_fast_equals_slow("\xEF\xBB\xBF{\"model\": \"Qwen\"}");
  expect_slow_only("// c\n{\"a\": 1}");
  expect_slow_only("{\"a\": 1 /* c */}");
  expect_slow_only("{\"url\": \"http://x\"} // trailing");
  expect_fast_equals_slow("{\"url\": \"http://x/*y*/\", \"p\": \"a//b\"}");
}

TEST(JsonFastPath, ErrorsTakeTheSlowPathWithItsMessages)
{
  for (const std::string& text : std::vector<std::string>{"",
                                                          "  \n",
                                                          "\xEF\xBB\xBF",
                                                          "{",
                                                          "[1,]",
                                                          "{\"a\": 1,}",
                                                          "{} x",
                                                          "NaN",
                                                          "[nan]",
                                                          "{\"a\": Infinity}",
                                                          "[-Infinity]",
                                                          "1e400",
                                                          "[1.7976931348623157e309]",
                                                          "01",
                                                          "1.",
                                                          "+1",
                                                          "'a'",
                                                          "{a: 1}",
                                                          "[1 2]",
                                                          "tru",
                                                          "nul",
                                                          std::string("{\"a\":\n 1\0}", 10)}) {
    SCOPED_TRACE(text);
    expect_slow_only(text);
  }
}

TEST(JsonFastPath, DuplicateKeysTakeTheSlowPath)
{
  expect_slow_only(R"({"a": 1, "a": 2})");
  expect_slow_only(R"({"speedup": 1.5, "speedup": "1.50"})");
  expect_slow_only(R"({"speedup": 1.5, "speedup": 2.5})");
  expect_slow_only(R"([{"x": {"note": "a", "note": "b"}}])");
  // The same key in different objects is no repeat.
  expect_fast_equals_slow(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])");
  const auto r = parse_json_document(R"({"note": "a", "note": "b"})");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->duplicates.size(), 1U);
  EXPECT_EQ(r->duplicates[0].pointer, "/note");
}

TEST(JsonFastPath, DepthLimitIsTheSlowPaths)
{
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  expect_fast_equals_slow(nested(128));
  expect_slow_only(nested(129));
  expect_slow_only(nested(1000));
  expect_slow_only(nested(10000));
  std::string objects;
  for (int i = 0; i < 128; ++i) {
    objects += "{\"a\":";
  }
  objects += "1" + std::string(128, '}');
  expect_fast_equals_slow(objects);
  expect_slow_only("[" + objects + "]");
}

TEST(JsonFastPath, EveryFixtureParsesTheSameBothWays)
{
  int compared = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(RFDB_FIXTURES_DIR)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    SCOPED_TRACE(entry.path().string());
    const auto slow = parse_json_slow(text);
    const auto fast = parse_json_fast(text);
    if (fast) {
      ASSERT_TRUE(slow) << slow.error().message;
      EXPECT_TRUE(slow->duplicates.empty());
      expect_identical(*fast, slow->doc, "");
      ++compared;
    } else {
      expect_slow_only(text);
    }
  }
  EXPECT_GT(compared, 100);
}
