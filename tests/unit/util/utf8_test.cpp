// util/utf8: validation (utfcpp), code-point length, prefix and truncation.
#include "util/utf8.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rfdb::util {
namespace {

TEST(Utf8Test, FindInvalidReportsTheFirstIllFormedSequence)
{
  EXPECT_EQ(find_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("gfx942 \xE2\x98\x85\xF0\x9F\x98\x80"), std::nullopt); // ★ and an emoji
  EXPECT_EQ(find_invalid_utf8(std::string("a\0b", 3)), std::nullopt);                // NUL is well-formed
  EXPECT_EQ(find_invalid_utf8("ab\x80"), std::optional<std::size_t>(2));             // stray continuation
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), std::optional<std::size_t>(0));           // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), std::optional<std::size_t>(1));      // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), std::optional<std::size_t>(0));   // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ok\xE2\x98"), std::optional<std::size_t>(2));         // cut short
}

TEST(Utf8Test, LengthCountsCodePoints)
{
  EXPECT_EQ(utf8_length(""), 0U);
  EXPECT_EQ(utf8_length("abc"), 3U);
  EXPECT_EQ(utf8_length("\xE2\x98\x85\xE2\x98\x85 x"), 4U);
}

TEST(Utf8Test, PrefixNeverSplitsACodePoint)
{
  EXPECT_EQ(utf8_prefix("\xE2\x98\x85\xE2\x98\x85\xE2\x98\x85", 2), "\xE2\x98\x85\xE2\x98\x85");
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
  EXPECT_EQ(utf8_prefix("abc", 0), "");
}

TEST(Utf8Test, FloorMovesACutBackToACodePointStart)
{
  const std::string stars = "a\xE2\x98\x85\xE2\x98\x85"; // a★★: bytes 0, 1–3, 4–6
  EXPECT_EQ(utf8_floor(stars, 0), 0U);
  EXPECT_EQ(utf8_floor(stars, 1), 1U);
  EXPECT_EQ(utf8_floor(stars, 2), 1U);
  EXPECT_EQ(utf8_floor(stars, 3), 1U);
  EXPECT_EQ(utf8_floor(stars, 4), 4U);
  EXPECT_EQ(utf8_floor(stars, 7), 7U);
  EXPECT_EQ(utf8_floor(stars, 99), 7U);
}

TEST(Utf8Test, TruncateKeepsShortTextAndMarksACut)
{
  EXPECT_EQ(truncate_utf8("abcd", 4), "abcd");
  EXPECT_EQ(truncate_utf8("abcde", 4), "abc\u2026");
  EXPECT_EQ(truncate_utf8("\xE2\x98\x85\xE2\x98\x85\xE2\x98\x85", 2), "\xE2\x98\x85\u2026");
  EXPECT_EQ(truncate_utf8("abc", 0), "");
  // Moved from report's findings_test with truncate_utf8.
  EXPECT_EQ(truncate_utf8("\u2605\u2605\u2605abc", 4), "\u2605\u2605\u2605\u2026");
  EXPECT_EQ(truncate_utf8("abc", 3), "abc");
}

TEST(Utf8Test, EscapeForDisplayShowsBadBytesAndControlsAsHex)
{
  EXPECT_EQ(escape_for_display("e2e_Qwen \u2605"), "e2e_Qwen \u2605");
  EXPECT_EQ(escape_for_display("a\xff"
                               "b"),
            "a\\xFFb");
  EXPECT_EQ(escape_for_display("a\nb\x7f"), "a\\x0Ab\\x7F");
  EXPECT_EQ(escape_for_display(std::string_view("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(escape_for_display("\xE2\x98"), "\\xE2\\x98"); // a sequence cut short
  EXPECT_EQ(escape_for_display(""), "");
  // C1 controls (U+0080–U+009F: the 8-bit CSI U+009B) are escaped byte by byte; U+00A0 is not.
  EXPECT_EQ(escape_for_display("a\u009b2Jb\u00a0"), "a\\xC2\\x9B2Jb\u00a0");
  // Escaping twice changes nothing.
  const std::string once = escape_for_display("\x1b]0;t\x07\u0085\xff");
  EXPECT_EQ(escape_for_display(once), once);
}

} // namespace
} // namespace rfdb::util
