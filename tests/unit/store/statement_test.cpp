// Statement helpers (store/database.hpp): for_each_row walks every row and
// stops at the callback's first error; columns read by name equal the
// columns read by index.
#include "store/database.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rfdb::test {

TEST(StoreStatement, ForEachRowReadsColumnsByName)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto s = db->prepare("SELECT 1 AS one, 'x' AS label, NULL AS missing UNION ALL SELECT 2, 'y', 2.5", "test");
  ASSERT_TRUE(s) << s.error().describe();
  std::vector<std::string> seen;
  auto walked = store::for_each_row(*s, [&](const store::Statement& row) {
    EXPECT_EQ(row.get_int("one"), row.get_int(0));
    seen.push_back(row.get_text("label") + (row.is_null("missing") ? "-" : "+"));
  });
  ASSERT_TRUE(walked);
  EXPECT_EQ(seen, (std::vector<std::string>{"x-", "y+"}));
  // An error from the callback stops the walk.
  int calls = 0;
  auto stopped = store::for_each_row(*s, [&](const store::Statement&) -> Result<void> {
    ++calls;
    return fail(ErrorCode::invalid_input, "stop");
  });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(calls, 1);
}

} // namespace rfdb::test
