// Tests that need a PostgreSQL server (ctest label `postgres`; skipped without RFDB_TEST_PG_URL,
// failed instead under tools/test.sh): the throwaway cluster itself, the ingest → priors → report
// path giving SQLite's output, and `rfdb copy` SQLite → PostgreSQL → SQLite keeping every row.
#include "support/helpers.hpp"
#include "support/postgres.hpp"

#include "store/store_transfer.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What a user compares across backends: priors, the report, a run's details.
const std::vector<std::vector<std::string>> k_outputs = {
    {"priors", "--format", "json"},
    {"priors", "--by", "class,gfx,regime", "--format", "json"},
    {"report"},
    {"show", k_canonical_run, "--format", "json"},
    {"export", "--format", "json"}};

void expect_same_outputs(const std::string& a, const std::string& b)
{
  for (const auto& args : k_outputs) {
    const auto x = rfdb(a, args);
    const auto y = rfdb(b, args);
    ASSERT_EQ(x.code, 0) << args[0] << ": " << x.err;
    EXPECT_EQ(y.code, 0) << args[0] << ": " << y.err;
    EXPECT_EQ(x.out, y.out) << args[0] << " differs between " << a << " and " << b;
  }
}

} // namespace

TEST(PostgresCluster, ServesTheSocketAndLoopbackUrls)
{
  RFDB_REQUIRE_PG(url);
  EXPECT_EQ(pg_query(url, "SELECT current_setting('server_version_num')::int / 10000"), "15\n");
  EXPECT_EQ(pg_query(url, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"), "t\n");
  const auto tcp = pg_server_tcp_url();
  ASSERT_TRUE(tcp) << "RFDB_TEST_PG_TCP_URL is not set";
  EXPECT_EQ(pg_query(*tcp, "SELECT inet_client_addr()"), "127.0.0.1\n");
  const std::string db = pg_create_database(url, "cluster");
  ASSERT_FALSE(db.empty());
  EXPECT_EQ(pg_query(pg_url_for(*tcp, db), "SELECT current_database()"), db + "\n");
}

TEST(PostgresStore, IngestPriorsReportAndShowMatchSqlite)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto sqlite = (tmp / "team.sqlite").string();
  const std::string pg = pg_url_for(url, pg_create_database(url, "same_output"));
  for (const auto& db : {sqlite, pg}) {
    std::vector<std::string> args{"ingest", "-q"};
    for (const auto& r : k_all_runs) {
      args.push_back(run_fixture(r).string());
    }
    const auto r = rfdb(db, args);
    ASSERT_EQ(r.code, 0) << db << ": " << r.err;
  }
  expect_same_outputs(sqlite, pg);
  EXPECT_EQ(rfdb(pg, {"check"}).code, 0);
}

TEST(PostgresCopy, SqliteToPostgresToSqliteKeepsEveryRowPriorsAndReport)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto src = tmp / "team.sqlite";
  ingest_runs(src, k_all_runs);
  ASSERT_EQ(rfdb(src.string(), {"ingest", "-q", (fixtures_dir() / "knowledge" / "learned").string()}).code,
            0);
  ASSERT_EQ(rfdb(src.string(), {"retract", k_attn_run, "--reason", "box was not quiet"}).code, 0);
  ASSERT_EQ(rfdb(src.string(), {"tag", k_canonical_run, "quant=fp8", "tp=1"}).code, 0);
  ASSERT_EQ(rfdb(src.string(), {"untag", k_canonical_run, "tp"}).code, 0);
  const std::string pg = pg_url_for(url, pg_create_database(url, "copy_round_trip"));

  auto r = run_cli({"copy", "--from", src.string(), "--to", pg, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(json::parse(r.out)["ok"].get<bool>()) << r.out;
  const auto back = tmp / "laptop.sqlite";
  r = run_cli({"copy", "--from", pg, "--to", back.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(json::parse(r.out)["ok"].get<bool>()) << r.out;

  EXPECT_EQ(without_copy_state(dump_tables(back)), dump_tables(src))
      << "every row, ids included, survives the round trip";
  EXPECT_EQ(pg_query(pg, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "verified\n");
  EXPECT_EQ(pg_query(pg, "SELECT action || ' ' || key || '=' || value FROM tag_log ORDER BY event_id"),
            "tag quant=fp8\ntag tp=1\nuntag tp=1\n");
  EXPECT_EQ(pg_query(pg, "SELECT key || '=' || value FROM run_tags"), "quant=fp8\n");
  expect_same_outputs(src.string(), pg);
  expect_same_outputs(src.string(), back.string());
  // The PostgreSQL copy's sequences are past the copied ids: it takes a new run.
  r = rfdb(pg, {"ingest", "-q", (fixtures_dir() / "knowledge" / "backend_playbook.md").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(rfdb(pg, {"check"}).code, 0);
}

// libpq passes text as C strings: a NUL in a stored string would be cut there
// in silence, so PostgreSQL refuses it and keeps the database as it was, on
// ingest and on copy. SQLite stores it whole.
TEST(PostgresStore, TextWithANulCharacterIsRefusedNotCut)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto run = copy_run(k_gemm_run, tmp.path());
  const auto env = run / "env_report.json";
  std::string text = read_bytes(env);
  const std::string from = R"("backend_version": "0.5.3rc0")";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), R"("backend_version": "0.5\u00003rc0")");
  write_bytes(env, text);

  const auto sqlite = (tmp / "team.sqlite").string();
  ASSERT_EQ(rfdb(sqlite, {"ingest", "-q", run.string()}).code, 0);
  EXPECT_EQ(query_value(sqlite, "SELECT hex(backend_version) FROM runs"), "302E350033726330")
      << "SQLite keeps every byte, the NUL too";

  const std::string pg = pg_url_for(url, pg_create_database(url, "nul_text"));
  auto r = rfdb(pg, {"ingest", "-q", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("text with a NUL character (U+0000) at byte 3 cannot be stored in PostgreSQL"),
            std::string::npos)
      << r.err;
  r = rfdb(pg, {"runs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::array()) << "the failed ingest stored nothing";

  r = run_cli({"copy", "--from", sqlite, "--to", pg});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("NUL character"), std::string::npos) << r.err;
  r = rfdb(pg, {"runs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::array()) << "the failed copy stored no run";
}

TEST(PostgresCopy, RefusesAPostgresDestinationHoldingRuns)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  const std::string pg = pg_url_for(url, pg_create_database(url, "copy_refuse"));
  ASSERT_EQ(rfdb(pg, {"ingest", "-q", run_fixture(k_attn_run).string()}).code, 0);
  const std::string before = pg_query(pg, "SELECT run_id FROM runs ORDER BY run_id");
  const auto r = run_cli({"copy", "--from", src.string(), "--to", pg});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the destination is not empty (runs: 1"), std::string::npos) << r.err;
  EXPECT_EQ(pg_query(pg, "SELECT run_id FROM runs ORDER BY run_id"), before);
}

// A copy into PostgreSQL killed between its commit and its verification: the
// destination says "copied, unverified" and a re-run verifies it.
TEST(PostgresCopy, AReRunAfterAKillBetweenCommitAndVerificationVerifies)
{
  RFDB_REQUIRE_PG(url);
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run, k_attn_run});
  const std::string pg = pg_url_for(url, pg_create_database(url, "copy_resume"));
  store::set_copy_committed_hook(
      []() -> Result<void> { return fail(make_error(ErrorCode::io, "killed after the commit")); });
  auto r = run_cli({"copy", "--from", src.string(), "--to", pg, "--format", "json"});
  store::set_copy_committed_hook({});
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(pg_query(pg, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "copied, unverified\n");
  EXPECT_EQ(pg_query(pg, "SELECT count(*) FROM runs"), "2\n");

  r = run_cli({"copy", "--from", src.string(), "--to", pg, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["resumed"].get<bool>());
  EXPECT_EQ(pg_query(pg, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "verified\n");
  EXPECT_EQ(pg_query(pg, "SELECT count(*) FROM runs"), "2\n");

  r = run_cli({"copy", "--from", src.string(), "--to", pg});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hint: it is a verified copy already"), std::string::npos) << r.err;
}

} // namespace rfdb::test
