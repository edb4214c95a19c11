#include "ingest/json_util.hpp"

#include <gtest/gtest.h>

#include <string>

using rfdb::ErrorCode;
using rfdb::ingest::child_pointer;
using rfdb::ingest::get_bool;
using rfdb::ingest::get_double;
using rfdb::ingest::get_int;
using rfdb::ingest::get_json_text;
using rfdb::ingest::get_string;
using rfdb::ingest::json;
using rfdb::ingest::parse_json_text;

namespace {

// Message of the error parse_json_text returns for `text` ("" if it parsed).
std::string parse_error(std::string_view text)
{
  auto r = parse_json_text(text);
  if (r) {
    return "";
  }
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  return r.error().message;
}

} // namespace

TEST(ParseJsonText, AcceptsLineAndBlockComments)
{
  const auto r = parse_json_text("// env report\n{\n  \"gfx\": \"gfx950\", // the GPU\n"
                                 "  /* workload */ \"conc\": 64\n}\n");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("gfx"), "gfx950");
  EXPECT_EQ(r->at("conc"), 64);
}

TEST(ParseJsonText, StripsUtf8Bom)
{
  const auto r = parse_json_text("\xEF\xBB\xBF{\"model\": \"Qwen\"}");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("model"), "Qwen");
}

TEST(ParseJsonText, RejectsEmptyWhitespaceAndCommentOnlyFiles)
{
  EXPECT_NE(parse_error("").find("empty file"), std::string::npos);
  EXPECT_NE(parse_error(" \n\t\r\n").find("empty file"), std::string::npos);
  EXPECT_NE(parse_error("// nothing here\n").find("empty file"), std::string::npos);
}

TEST(ParseJsonText, RejectsNulBytesAndInvalidUtf8WithPosition)
{
  const std::string with_nul("{\"a\":\n 1\0}", 10);
  EXPECT_EQ(parse_error(with_nul), "/a: line 2:3: binary or non-UTF-8 content (NUL byte)");
  EXPECT_EQ(parse_error("{\"a\": \"\xff\"}"), "/a: line 1:8: binary or non-UTF-8 content (invalid UTF-8)");
  // Overlong encoding of '/' and a lone continuation byte are not UTF-8 either.
  EXPECT_NE(parse_error("[\"\xC0\xAF\"]").find("non-UTF-8"), std::string::npos);
  EXPECT_NE(parse_error("[\"\x80\"]").find("non-UTF-8"), std::string::npos);
}

TEST(ParseJsonText, AcceptsValidMultibyteUtf8)
{
  const auto r = parse_json_text("{\"note\": \"0–100 % ≥ 0.9·target ✅\"}");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("note"), "0–100 % ≥ 0.9·target ✅");
}

TEST(ParseJsonText, RejectsTenThousandDeepNestingWithoutRecursing)
{
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(parse_error(deep), "line 1:129: nesting deeper than 128 levels");
  const std::string objects = [] {
    std::string s;
    for (int i = 0; i < 10000; ++i) {
      s += "{\"a\":";
    }
    return s + "1" + std::string(10000, '}');
  }();
  EXPECT_NE(parse_error(objects).find("nesting deeper than 128"), std::string::npos);
}

TEST(ParseJsonText, AcceptsExactly128LevelsAndIgnoresBracketsInStrings)
{
  EXPECT_EQ(parse_error(std::string(128, '[') + std::string(128, ']')), "");
  EXPECT_NE(parse_error(std::string(129, '[') + std::string(129, ']')), "");
  const std::string in_string = "{\"s\": \"" + std::string(500, '[') + "\\\"{{\"}";
  EXPECT_EQ(parse_error(in_string), "");
}

TEST(ParseJsonText, ReportsTruncatedJsonWithPosition)
{
  EXPECT_EQ(parse_error("{\"a\": [1, 2"), "/a/1: line 1:12: truncated JSON (unexpected end of input)");
  EXPECT_NE(parse_error("{\n\"entries\": [\n{\"name\": \"x\"").find("truncated JSON"), std::string::npos);
}

// A syntax error names the JSON pointer of the value being read, then the
// line and column: member names (with escapes, skipping strings and
// comments that look like structure) and array indexes, down to the value.
TEST(ParseJsonText, SyntaxErrorsNameTheJsonPointerOfTheValue)
{
  EXPECT_EQ(
      parse_error("{\"cases\": [{\"ok\": 1}, {\"roofline_pct\": 0.5,\n \"bound\": memory}]}").substr(0, 29),
      "/cases/1/bound: line 2:11: in");
  EXPECT_EQ(parse_error("// {\"not\": [\n{\"a\\\"b\": {\"c/d\": \"[{\", \"e~\": tru}}").substr(0, 27),
            "/a\"b/e~0: line 2:33: invali");
  // Escapes in a member name are decoded before the pointer escapes ~ and /.
  EXPECT_EQ(parse_error("{\"a\\/b\": @}").substr(0, 8), "/a~1b: l");
  EXPECT_EQ(parse_error("{\"caf\\u00e9\": @}").substr(0, 8), "/caf\u00e9: ");
  // Between members, the object itself; at the top level, no pointer.
  EXPECT_EQ(parse_error("{\"a\": {\"b\": 1,, \"c\": 2}}").substr(0, 16), "/a: line 1:15: i");
  EXPECT_EQ(parse_error("{\"a\": 1} x").substr(0, 12), "line 1:10: i");
}

TEST(ParseJsonText, RejectsNonFiniteLiterals)
{
  EXPECT_EQ(parse_error("{\"roofline_pct\": NaN}"),
            "/roofline_pct: line 1:18: non-finite number 'NaN' (JSON has no NaN/Infinity)");
  EXPECT_NE(parse_error("[-Infinity]").find("non-finite number 'Infinity'"), std::string::npos);
  EXPECT_NE(parse_error("[inf]").find("non-finite number"), std::string::npos);
  // An overflowing literal is found where it stands, not inside another number.
  EXPECT_EQ(parse_error("{\"y\": \"1e999x\",\n \"x\": 1e999}"),
            "/x: line 2:7: non-finite number '1e999' (overflows a double)");
  EXPECT_EQ(parse_error("[-1e400]"), "/0: line 1:2: non-finite number '-1e400' (overflows a double)");
  // The same text in a string, a comment or a member name is not the number.
  EXPECT_EQ(parse_error("{\"note\": \"1e999\", \"1e999\": 2, // 1e999\n \"x\": 1e999}"),
            "/x: line 2:7: non-finite number '1e999' (overflows a double)");
  // The words are fine inside strings, and exponents are numbers, not words.
  EXPECT_EQ(parse_error("{\"note\": \"NaN Infinity\", \"b\": 8.0e12, \"c\": 2.5E-3}"), "");
}

TEST(ParseJsonText, RejectsTrailingJunkAndTrailingCommas)
{
  EXPECT_NE(parse_error("{\"a\": 1}\n}").find("line 2:1: invalid JSON"), std::string::npos);
  EXPECT_NE(parse_error("[1, 2,]").find("invalid JSON"), std::string::npos);
}

TEST(ChildPointer, EscapesPerRfc6901)
{
  EXPECT_EQ(child_pointer("", "top_kernels"), "/top_kernels");
  EXPECT_EQ(child_pointer("/top_kernels", std::size_t{3}), "/top_kernels/3");
  EXPECT_EQ(child_pointer("/a", "b/c~d"), "/a/b~1c~0d");
}

TEST(GetDouble, AcceptsNumbersAndNumericStrings)
{
  const json row = {{"n", 26.45}, {"s", "1.047"},    {"padded", " 26.45 "}, {"plus", "+1.5"},
                    {"i", 64},    {"null", nullptr}, {"empty", ""}};
  EXPECT_DOUBLE_EQ(*get_double(row, "n", "/r").value(), 26.45);
  EXPECT_DOUBLE_EQ(*get_double(row, "s", "/r").value(), 1.047);
  EXPECT_DOUBLE_EQ(*get_double(row, "padded", "/r").value(), 26.45);
  EXPECT_DOUBLE_EQ(*get_double(row, "plus", "/r").value(), 1.5);
  EXPECT_DOUBLE_EQ(*get_double(row, "i", "/r").value(), 64.0);
  EXPECT_FALSE(get_double(row, "missing", "/r").value().has_value());
  EXPECT_FALSE(get_double(row, "null", "/r").value().has_value());
  EXPECT_FALSE(get_double(row, "empty", "/r").value().has_value());
}

TEST(GetDouble, RejectsNonNumbersNamingThePointer)
{
  const json row = {{"pct_gpu_time", "abc"}, {"b", true}, {"nan", "nan"}, {"arr", {1, 2}}};
  const auto r = get_double(row, "pct_gpu_time", "/top_kernels/3");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(r.error().message, "/top_kernels/3/pct_gpu_time: expected a number, got \"abc\"");
  EXPECT_EQ(get_double(row, "b", "").error().message, "/b: expected a number, got true");
  EXPECT_EQ(get_double(row, "nan", "").error().message, "/nan: non-finite number \"nan\"");
  EXPECT_FALSE(get_double(row, "arr", ""));
}

TEST(GetInt, AcceptsIntegralValuesOnly)
{
  const json row = {{"a", 64},      {"b", 64.0},   {"c", "64"},   {"d", " 2412.0 "},
                    {"frac", 64.5}, {"word", "x"}, {"huge", 1e30}};
  EXPECT_EQ(*get_int(row, "a", "").value(), 64);
  EXPECT_EQ(*get_int(row, "b", "").value(), 64);
  EXPECT_EQ(*get_int(row, "c", "").value(), 64);
  EXPECT_EQ(*get_int(row, "d", "").value(), 2412);
  EXPECT_EQ(get_int(row, "frac", "/w").error().message, "/w/frac: expected an integer, got 64.5");
  EXPECT_FALSE(get_int(row, "word", ""));
  EXPECT_FALSE(get_int(row, "huge", ""));
}

TEST(GetString, TurnsNumbersAndBooleansIntoText)
{
  const json row = {{"s", "vllm"}, {"f", 1.047}, {"i", 42}, {"b", true}, {"e", ""}, {"o", {{"k", 1}}}};
  EXPECT_EQ(*get_string(row, "s", "").value(), "vllm");
  EXPECT_EQ(*get_string(row, "f", "").value(), "1.047");
  EXPECT_EQ(*get_string(row, "i", "").value(), "42");
  EXPECT_EQ(*get_string(row, "b", "").value(), "true");
  EXPECT_FALSE(get_string(row, "e", "").value().has_value());
  EXPECT_EQ(get_string(row, "o", "/x").error().message, "/x/o: expected a string, got {\"k\":1}");
}

TEST(GetBool, AcceptsBooleanSpellings)
{
  const json row = {{"t", true}, {"f", "false"}, {"T", " TRUE "},    {"one", 1},
                    {"zero", 0}, {"no", "no"},   {"maybe", "maybe"}, {"two", 2}};
  EXPECT_TRUE(*get_bool(row, "t", "").value());
  EXPECT_FALSE(*get_bool(row, "f", "").value());
  EXPECT_TRUE(*get_bool(row, "T", "").value());
  EXPECT_TRUE(*get_bool(row, "one", "").value());
  EXPECT_FALSE(*get_bool(row, "zero", "").value());
  EXPECT_FALSE(*get_bool(row, "no", "").value());
  EXPECT_EQ(get_bool(row, "maybe", "").error().message, "/maybe: expected a boolean, got \"maybe\"");
  EXPECT_FALSE(get_bool(row, "two", ""));
}

TEST(GetJsonText, DumpsCompactJsonOrNothing)
{
  const json row = {{"base_latency_ms", {{"decode", 0.049471}}}, {"n", nullptr}};
  EXPECT_EQ(*get_json_text(row, "base_latency_ms"), "{\"decode\":0.049471}");
  EXPECT_FALSE(get_json_text(row, "n").has_value());
  EXPECT_FALSE(get_json_text(row, "missing").has_value());
}

// ---- duplicate keys

using rfdb::ingest::DuplicateKey;
using rfdb::ingest::find_duplicate_keys;
using rfdb::ingest::is_measured_field;

namespace {

// "pointer key measured differ first last" for each duplicate of `text`.
std::vector<std::string> duplicates_of(std::string_view text)
{
  auto r = find_duplicate_keys(text);
  EXPECT_TRUE(r) << r.error().message;
  std::vector<std::string> out;
  for (const auto& d : r.value_or(std::vector<DuplicateKey>())) {
    out.push_back(d.pointer + " " + d.key + " " + (d.measured ? "measured" : "other") + " " +
                  (d.values_differ ? "differ" : "same") + " " + d.first_value + " " + d.last_value);
  }
  return out;
}

} // namespace

TEST(IsMeasuredField, CoversSpeedupsPercentagesAndPredictionsNotLabels)
{
  for (const char* key : {"isolated_speedup", "isolated", "e2e_delta_pct", "e2e_gain_pct", "delta_pct",
                          "speedup", "throughput_speedup", "pct_gpu_time", "raw_pct_gpu_time", "roofline_pct",
                          "roofline_pct_raw", "roofline_efficiency_pct", "headroom_ratio",
                          "attainable_speedup", "expected_e2e_gain_pct", "target_eff",
                          // not numbers, but they decide what is evidence and where it counts
                          "output_parity", "gate", "gfx"}) {
    EXPECT_TRUE(is_measured_field(key)) << key;
  }
  for (const char* key : {"short_name", "note", "verdict", "backend", "Isolated_Speedup"}) {
    EXPECT_FALSE(is_measured_field(key)) << key;
  }
}

TEST(ParseJsonText, MeasuredKeyRepeatedWithAnotherValueIsAnError)
{
  EXPECT_EQ(parse_error(R"({"isolated_speedup": 1.148, "isolated_speedup": 5.0})"),
            "/isolated_speedup: duplicate key 'isolated_speedup' with different values (1.148, then 5.0): a "
            "measured value must not be ambiguous");
  // Nested: the pointer walks objects and array elements.
  EXPECT_EQ(parse_error(R"({"entries": [{"a": 1}, {"x": {"roofline_pct": 0.88, "roofline_pct": "0.18"}}]})")
                .substr(0, 41),
            "/entries/1/x/roofline_pct: duplicate key ");
  // A third value that differs from the first counts too.
  EXPECT_NE(parse_error(R"({"speedup": 2, "speedup": 2, "speedup": 3})"), "");
}

TEST(ParseJsonText, OtherDuplicatesParseAndKeepTheLastValue)
{
  const auto r = parse_json_text(R"({"note": "a", "note": "b", "speedup": 1.5, "speedup": "1.50"})");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("note"), "b");
  EXPECT_EQ(r->at("speedup"), "1.50");
}

TEST(FindDuplicateKeys, ReportsPointerKindAndValues)
{
  EXPECT_EQ(duplicates_of(R"({"a": 1, "b": [{"a": 1}, {"a": 2}]})"), std::vector<std::string>());
  EXPECT_EQ(
      duplicates_of(R"({"note": "a", "rows": [{"x": 1}, {"speedup": 1.5, "speedup": 1.50, "note": 1}],
                              "note": "b"})"),
      (std::vector<std::string>{"/rows/1/speedup speedup measured same 1.5 1.5", "/note note other same  "}));
  EXPECT_EQ(duplicates_of(R"({"pct_gpu_time": 26.45, "pct_gpu_time": 27})"),
            std::vector<std::string>{"/pct_gpu_time pct_gpu_time measured differ 26.45 27"});
  // Keys spelled with escapes are the same key; `~` and `/` are escaped in pointers.
  EXPECT_EQ(duplicates_of(R"({"a/b": 1, "a\/b": 2, "t": {"\u0074~": 1, "t~": 1}})"),
            (std::vector<std::string>{"/a~1b a/b other same  ", "/t/t~0 t~ other same  "}));
  // Same name in different objects, or as a value, is no duplicate.
  EXPECT_EQ(duplicates_of(R"({"a": "a", "o": {"a": {"a": 1}}, "l": ["a", "a"]})"),
            std::vector<std::string>());
}

TEST(FindDuplicateKeys, PassesOnParseErrors)
{
  const auto r = find_duplicate_keys(R"({"a": 1, "a": )");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("truncated JSON"), std::string::npos) << r.error().message;
}
