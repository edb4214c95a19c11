// The as_of rule (domain/as_of.hpp): newest valid run date, or the date given.
#include "domain/as_of.hpp"

#include <gtest/gtest.h>

using namespace rfdb::domain;

TEST(AsOf, NewestValidDateWins)
{
  NewestDate runs;
  EXPECT_EQ(runs.value(), "");
  runs.see("2026-03-01");
  runs.see("2026-01-15");
  runs.see("");
  runs.see("unknown");    // sorts after every date, but is not one
  runs.see("2026-02-31"); // not a day
  EXPECT_EQ(runs.value(), "2026-03-01");
  runs.see("2026-04-02");
  EXPECT_EQ(runs.value(), "2026-04-02");
}

TEST(AsOf, GivenDateElseNewestRun)
{
  NewestDate runs;
  runs.see("2026-03-01");
  EXPECT_EQ(resolve_as_of("2026-01-01", runs), "2026-01-01");
  EXPECT_EQ(resolve_as_of("", runs), "2026-03-01");
  EXPECT_EQ(resolve_as_of("yesterday", runs), "2026-03-01");
  EXPECT_EQ(resolve_as_of("", NewestDate{}), "");
}
