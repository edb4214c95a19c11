// The attempt member table (src/store/attempt_fields.def) drives the store:
// it names every column of `attempts` once, the embedded queries (both
// dialects) insert every member and select exactly the members of their
// reader, and what bind_attempt writes read_attempt reads back.
#include "rfdb_sql.hpp"
#include "support/attempts.hpp"

#include "store/attempt.hpp"
#include "store/case_mix.hpp"
#include "store/database.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace rfdb::test {

namespace {

using store::AttemptReader;
using store::k_attempt_columns;

// How often `needle` occurs in `text` as a whole word (not inside a longer
// identifier: "a.gate" is not in "a.gate_x").
int count_word(std::string_view text, std::string_view needle)
{
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos + 1)) {
    const bool starts = pos == 0 || !ident(text[pos - 1]);
    const auto end = pos + needle.size();
    const bool ends = end == text.size() || !ident(text[end]);
    n += starts && ends ? 1 : 0;
  }
  return n;
}

std::string_view sqlite_text(std::string_view name)
{
  for (const auto& q : sql::k_queries) {
    if (q.name == name) {
      return q.sql;
    }
  }
  ADD_FAILURE() << "no query " << name;
  return {};
}

std::string_view pg_text(std::string_view name)
{
  for (const auto& q : sql::k_pg_queries) {
    if (q.name == name) {
      return q.sql;
    }
  }
  ADD_FAILURE() << "no PostgreSQL query " << name;
  return {};
}

// The select list of a query: from its SELECT to `FROM attempts a`.
std::string_view select_list(std::string_view sql)
{
  const auto from = sql.find("SELECT ");
  const auto to = sql.find("FROM attempts a");
  EXPECT_NE(from, std::string_view::npos);
  EXPECT_NE(to, std::string_view::npos);
  return sql.substr(from, to - from);
}

// A member as EXPECT_EQ compares it (a case mix as its stored JSON).
template <typename T> const T& comparable(const T& value)
{
  return value;
}
std::optional<std::string> comparable(const std::vector<domain::CaseShare>& cases)
{
  return store::case_mix_json(cases);
}

std::unique_ptr<store::Database> open_memory()
{
  auto db = store::Database::open(":memory:");
  EXPECT_TRUE(db) << db.error().message;
  return std::make_unique<store::Database>(std::move(*db));
}

} // namespace

TEST(AttemptFields, NameEveryColumnOfTheAttemptsTableOnce)
{
  auto db = open_memory();
  auto s = db->prepare("SELECT name FROM pragma_table_info('attempts') ORDER BY cid", "table_info");
  ASSERT_TRUE(s) << s.error().message;
  std::set<std::string> table;
  while (*s->step()) {
    table.insert(s->get_text(0));
  }
  table.erase("attempt_id"); // the key SQLite assigns
  std::multiset<std::string> members;
  for (const auto& c : k_attempt_columns) {
    members.insert(std::string(c.column));
  }
  EXPECT_EQ(std::set<std::string>(members.begin(), members.end()), table);
  EXPECT_EQ(members.size(), table.size()) << "a column named twice";
}

TEST(AttemptFields, TheInsertNamesAndBindsEveryMemberOnceInBothDialects)
{
  for (const std::string_view sql : {sqlite_text("attempt_insert"), pg_text("attempt_insert")}) {
    EXPECT_EQ(sql.find("/*@"), std::string_view::npos) << "an unexpanded placeholder:\n" << sql;
    for (const auto& c : k_attempt_columns) {
      const std::string param = ":" + std::string(c.column);
      EXPECT_EQ(count_word(sql, c.column), 2) << c.column << " (its column and its :parameter)\n" << sql;
      EXPECT_EQ(count_word(sql, param), 1) << param;
    }
  }
}

TEST(AttemptFields, EachReaderSelectsExactlyItsMembersInBothDialects)
{
  const std::map<std::string_view, AttemptReader> queries = {{"report_attempts", AttemptReader::report},
                                                             {"evidence_attempts", AttemptReader::calibrate},
                                                             {"run_attempts", AttemptReader::show}};
  for (const auto& [name, reader] : queries) {
    for (const std::string_view sql : {sqlite_text(name), pg_text(name)}) {
      EXPECT_EQ(sql.find("/*@"), std::string_view::npos) << name;
      const std::string_view select = select_list(sql);
      for (const auto& c : k_attempt_columns) {
        const bool reads = (c.readers & static_cast<unsigned>(reader)) != 0;
        const std::string column = "a." + std::string(c.column);
        EXPECT_EQ(count_word(select, column), reads ? 1 : 0) << name << ": " << column << "\n" << select;
      }
    }
  }
}

TEST(AttemptFields, WhatTheBinderWritesEachReaderReadsBack)
{
  auto db = open_memory();
  ASSERT_TRUE(db->exec("INSERT INTO runs (run_id, first_ingested_at, last_ingested_at) "
                       "VALUES ('run_a', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
                       "run"));
  store::Attempt a = measured_gemm_attempt("run_a", "gemm_bf16|hipblaslt", 1.21);
  a.candidate = "cand_1";
  a.kind = domain::AttemptKind::config;
  a.candidate_short_name = "gemm_bf16_v2";
  a.task = "task_gemm";
  a.deployed = true;
  a.post_measured = true;
  a.reject_reason = "no_engagement";
  a.validation_class = domain::ValidationClass::win;
  a.validation_speedup = 1.07;
  a.backend = "hipblaslt";
  a.winner_kind = "tuned";
  a.regime = "decode";
  a.e2e_delta_pct = 2.5;
  a.verdict_raw = "CONFIRMED";
  a.output_parity = "pass";
  a.parity_kind = "exact";
  a.reason = "accepted: faster";
  a.round = "head";
  a.post_efficiency = 0.61;
  a.prediction.source_kind = "measured";
  a.prediction.stage = "C";
  a.prediction.roofline_pct = 0.42;
  a.prediction.target_eff = 0.8;
  a.prediction.attainable_speedup = 1.9;
  a.prediction.expected_e2e_gain_pct = 3.1;
  a.prediction.headroom_class = "moderate";
  a.prediction.bound_type = "memory";
  a.prediction.confidence = "high";
  a.prediction.suspect = false;
  a.prediction.pct_gpu_time = 12.5;
  a.prediction.case_mix = {domain::CaseShare{"c1", "decode", 0.7, 0.4, 2.0, true},
                           domain::CaseShare{"c2", "prefill", 0.3, 0.6, 1.2, false}};
  auto insert = db->prepare(sql::k_attempt_insert, "attempt_insert");
  ASSERT_TRUE(insert) << insert.error().message;
  store::bind_attempt(*insert, a);
  ASSERT_TRUE(insert->exec());

  const std::map<AttemptReader, std::string> selects = {
      {AttemptReader::report, std::string(sql::k_report_attempts)},
      {AttemptReader::calibrate, std::string(sql::k_evidence_attempts)},
      {AttemptReader::show, std::string(sql::k_run_attempts)}};
  for (const auto& [reader, text] : selects) {
    auto s = db->prepare(text, "select");
    ASSERT_TRUE(s) << s.error().message;
    if (reader == AttemptReader::show) {
      s->bind(":run_id", "run_a");
    } else {
      s->bind(":since", std::nullopt).bind(":gfx", std::nullopt);
    }
    if (reader == AttemptReader::report) {
      s->bind(":first_attempt", std::int64_t{0}).bind(":last_attempt", std::int64_t{1000});
    }
    ASSERT_TRUE(*s->step());
    store::Attempt b;
    const int first = reader == AttemptReader::show ? 1 : 0; // run_attempts starts with attempt_id
    ASSERT_TRUE(store::read_attempt(*s, reader, b, first));
    s->reset();
    const unsigned bit = static_cast<unsigned>(reader);
    const auto& cols = k_attempt_columns;
    const auto reads = [&](std::string_view column) {
      const auto it =
          std::find_if(cols.begin(), cols.end(), [&](const auto& c) { return c.column == column; });
      return it != cols.end() && (it->readers & bit) != 0;
    };
    const store::Attempt blank;
    // Each member: read back when the reader selects it, untouched otherwise.
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers)                                                     \
  EXPECT_EQ(b.member, reads(#member) ? a.member : blank.member) << #member;
#define RFDB_ATTEMPT_PREDICTION(member, readers)                                                             \
  EXPECT_EQ(comparable(b.prediction.member),                                                                 \
            comparable(reads("pred_" #member) ? a.prediction.member : blank.prediction.member))              \
      << "pred_" #member;
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
  }
}

TEST(AttemptFields, AVocabularyColumnReadsItsSpellingAndRejectsOtherText)
{
  const auto ok = store::parse_attempt_vocab<domain::Verdict>("verdict", "dead_end");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, domain::Verdict::dead_end);
  const auto bad = store::parse_attempt_vocab<domain::Verdict>("verdict", "so-so");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::db);
  EXPECT_NE(bad.error().message.find("attempts.verdict"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("'so-so'"), std::string::npos) << bad.error().message;
  // No silent default: "" (a NULL) and another case are errors too.
  EXPECT_FALSE(store::parse_attempt_vocab<domain::OpClass>("op_class", ""));
  EXPECT_FALSE(store::parse_attempt_vocab<domain::LeverKind>("lever_kind", "Config"));
}

} // namespace rfdb::test
