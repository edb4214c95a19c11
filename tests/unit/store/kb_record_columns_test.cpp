// The kb_records column list is written once (queries/fragments/kb_record_columns.sql) and
// expanded by tools/embed_sql.cmake into every query that reads a whole record: the embedded
// texts hold it in full, in the order src/store/kb_records.cpp reads it, and no placeholder.
#include "rfdb_sql.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace rfdb::test {
namespace {

// The text between SELECT and FROM, whitespace runs folded to one space.
std::string select_list(std::string_view sql)
{
  const auto from = sql.find("SELECT ");
  const auto to = sql.find("\nFROM kb_records");
  std::string out;
  for (const char c : sql.substr(from + 7, to - from - 7)) {
    if (c == ' ' || c == '\n') {
      if (!out.empty() && out.back() != ' ') {
        out.push_back(' ');
      }
    } else {
      out.push_back(c);
    }
  }
  return out;
}

TEST(KbRecordColumns, BothQueriesSelectTheOneListInFull)
{
  for (const std::string_view sql : {sql::k_kb_records, sql::k_kb_record_find}) {
    EXPECT_EQ(sql.find("/*@"), std::string_view::npos);
    const std::string list = select_list(sql);
    EXPECT_TRUE(list.starts_with("record_id, source_id, lane, record_key, store_path, files_sha256,"))
        << list;
    EXPECT_TRUE(list.ends_with("retired_why, extra, ingested_at, superseded")) << list;
    EXPECT_EQ(std::count(list.begin(), list.end(), ','), 61) << list; // 62 columns
  }
  EXPECT_EQ(select_list(sql::k_kb_records), select_list(sql::k_kb_record_find));
}

} // namespace
} // namespace rfdb::test
