// util/time: strict ISO date parsing and UTC formatting.
#include "util/time.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace rfdb::util {
namespace {

TEST(TimeTest, ParsesValidIsoDates)
{
  const auto day = parse_iso_date("2026-03-01");
  ASSERT_TRUE(day.has_value());
  EXPECT_EQ(format_iso_date(*day), "2026-03-01");
  EXPECT_EQ(days_between(*parse_iso_date("2026-02-28"), *day), 1);
  EXPECT_EQ(days_between(*parse_iso_date("2024-02-28"), *parse_iso_date("2024-03-01")), 2); // leap year
  EXPECT_TRUE(parse_iso_date("2024-02-29").has_value());
  EXPECT_TRUE(parse_iso_date("2000-02-29").has_value());
  EXPECT_EQ(parse_iso_date("1970-01-01")->time_since_epoch().count(), 0);
}

TEST(TimeTest, RejectsDaysTheMonthDoesNotHave)
{
  EXPECT_FALSE(parse_iso_date("2026-02-31").has_value());
  EXPECT_FALSE(parse_iso_date("2026-02-29").has_value());
  EXPECT_FALSE(parse_iso_date("1900-02-29").has_value());
  EXPECT_FALSE(parse_iso_date("2026-04-31").has_value());
  EXPECT_FALSE(parse_iso_date("2026-13-01").has_value());
  EXPECT_FALSE(parse_iso_date("2026-00-10").has_value());
  EXPECT_FALSE(parse_iso_date("2026-01-00").has_value());
}

TEST(TimeTest, RejectsAnythingButYyyyMmDd)
{
  for (const char* text : {"", "2026-3-01", "2026/03/01", "2026-03-01T00:00:00Z", "-026-03-01", "+026-03-01",
                           "2026-+3-01", "2026-03- 1", "yesterday"}) {
    EXPECT_FALSE(parse_iso_date(text).has_value()) << text;
  }
}

TEST(TimeTest, FormatsUtcTimestamps)
{
  const auto t = std::chrono::sys_days{*parse_iso_date("2026-12-01")} + std::chrono::hours{17} +
                 std::chrono::minutes{5} + std::chrono::milliseconds{31500};
  EXPECT_EQ(format_iso_timestamp(t), "2026-12-01T17:05:31Z");
  EXPECT_EQ(format_iso_date(t), "2026-12-01");
}

} // namespace
} // namespace rfdb::util
