// util/csv: RFC 4180 quoting of one field.
#include "util/csv.hpp"

#include <gtest/gtest.h>

namespace rfdb::util {
namespace {

TEST(CsvTest, PlainFieldsStayAsTheyAre)
{
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("gemm gfx942 decode"), "gemm gfx942 decode");
  EXPECT_EQ(csv_field("it's \xE2\x98\x85"), "it's \xE2\x98\x85");
}

TEST(CsvTest, SeparatorsQuotesAndLineBreaksAreQuoted)
{
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\ronly"), "\"cr\ronly\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
}

} // namespace
} // namespace rfdb::util
