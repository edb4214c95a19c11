// util/text: trim, lower_ascii, starts_with_ci, join and split_lines.
#include "util/text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::util {
namespace {

TEST(TextTest, TrimDropsAsciiWhitespaceOnBothEnds)
{
  EXPECT_EQ(trim(" \t\r\nabc d \n"), "abc d");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\xC2\xA0x"), "\xC2\xA0x"); // NBSP is not ASCII whitespace
}

TEST(TextTest, LowerAsciiFoldsOnlyAtoZ)
{
  EXPECT_EQ(lower_ascii("GFX942 Decode_Ä"), "gfx942 decode_Ä");
  EXPECT_EQ(lower_ascii('Q'), 'q');
  EXPECT_EQ(lower_ascii('['), '[');
}

TEST(TextTest, StartsWithCiIgnoresCaseOnBothSides)
{
  EXPECT_TRUE(starts_with_ci("Dead-end lever", "dead"));
  EXPECT_TRUE(starts_with_ci("E2E +3%", "e2e"));
  EXPECT_TRUE(starts_with_ci("end-to-end", "END"));
  EXPECT_FALSE(starts_with_ci("de", "dead"));
  EXPECT_FALSE(starts_with_ci("deaf", "dead"));
  EXPECT_TRUE(starts_with_ci("anything", ""));
}

TEST(TextTest, JoinSeparatesItems)
{
  EXPECT_EQ(join(std::vector<std::string>{"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join(std::vector<std::string>{"only"}, "|"), "only");
  EXPECT_EQ(join(std::vector<std::string>{}, "|"), "");
  EXPECT_EQ(join(std::vector<int>{1, 2}, "+"), "1+2");
}

TEST(TextTest, SplitLinesDropsCrAndFinalNewline)
{
  using Lines = std::vector<std::string_view>;
  EXPECT_EQ(split_lines(""), Lines{});
  EXPECT_EQ(split_lines("a\n"), Lines{"a"});
  EXPECT_EQ(split_lines("a\r\n\nb"), (Lines{"a", "", "b"}));
  EXPECT_EQ(split_lines("a\n\n"), (Lines{"a", ""}));
  EXPECT_EQ(split_lines("\n"), Lines{""});
}

TEST(TextTest, CollapseSpacesJoinsWhitespaceRunsOnOneLine)
{
  EXPECT_EQ(collapse_spaces("  a \n\t b \r\n"), "a b");
  EXPECT_EQ(collapse_spaces("one"), "one");
  EXPECT_EQ(collapse_spaces(" \f\v "), "");
  EXPECT_EQ(collapse_spaces("x\u00a0y"), "x\u00a0y"); // non-ASCII space is kept
}

} // namespace
} // namespace rfdb::util
