// The PostgreSQL store against a real server (RFDB_TEST_PG_URL; skipped
// without it): every query prepares, values round-trip, migrations from
// empty and refusals of newer/foreign databases, concurrent first opens,
// retried concurrent ingests, a SELECT-only role, and byte-identical
// output from the same fixtures ingested into SQLite and PostgreSQL.
#include "rfdb_sql.hpp"
#include "support/helpers.hpp"
#include "support/pg.hpp"

#include "store/database.hpp"
#include "store/report_evidence.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> dirs_in(const fs::path& parent)
{
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(parent)) {
    if (e.is_directory()) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every fixture run (tests/fixtures/runs and dev-runs) and the playbook's
// knowledge, ingested into `db` as the playbook test does.
void ingest_everything(const std::string& db)
{
  std::vector<std::string> args{"--db", db, "ingest", "-q"};
  for (const auto& d : dirs_in(runs_dir())) {
    args.push_back(d.string());
  }
  for (const auto& d : dirs_in(fixtures_dir() / "dev-runs")) {
    args.push_back(d.string());
  }
  const auto runs = run_cli(args);
  ASSERT_EQ(runs.code, 0) << runs.err;
  const fs::path knowledge = fixtures_dir() / "knowledge" / "playbook";
  const auto cards = run_cli({"--db", db, "ingest", "-q", (knowledge / "learned").string(),
                              (knowledge / "backend_playbook.md").string()});
  ASSERT_EQ(cards.code, 0) << cards.err;
}

// The outputs the two backends must agree on, by a label.
std::vector<std::pair<std::string, CliResult>> outputs(const std::string& db, const fs::path& scratch)
{
  std::vector<std::pair<std::string, CliResult>> out;
  const auto add = [&](const std::string& label, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    out.emplace_back(label, run_cli(args));
  };
  add("priors", {"priors", "--format", "json"});
  add("priors by", {"priors", "--by", "class,gfx,regime", "--format", "json"});
  add("report", {"report", "--as-of", "2026-09-01"});
  add("runs", {"runs", "--format", "json"});
  add("runs filtered", {"runs", "--all", "--model", "QWEN", "--gfx", "GFX942", "--format", "json"});
  add("export", {"export"});
  add("check", {"check", "--format", "json"});
  add("sources", {"query", "sources_list", "--format", "json"});
  add("negatives", {"query", "knowledge_negatives", "--format", "json"});
  add("verdicts", {"query", "verdicts_all", "--format", "json"});
  // The playbook queries take their rules as bound parameters (domain::k_rule_parameters).
  add("cautions", {"query", "playbook_cautions", "--format", "json"});
  add("misses", {"query", "playbook_misses", "--format", "json"});
  add("saturated heads", {"query", "playbook_saturated_heads", "--format", "json"});
  for (const auto& d : dirs_in(runs_dir())) {
    add("show " + d.filename().string(), {"show", d.filename().string(), "--format", "json"});
  }
  for (const auto& d : dirs_in(fixtures_dir() / "dev-runs")) {
    add("show " + d.filename().string(), {"show", d.filename().string(), "--format", "json"});
  }
  // `rfdb diff` reads two runs as `show` does: every item, as JSON and as a table.
  const auto dev = dirs_in(fixtures_dir() / "dev-runs");
  const std::string a = dev.at(0).filename().string();
  const std::string b = dev.at(1).filename().string();
  add("diff", {"diff", a, b, "--all", "--format", "json"});
  add("diff table", {"diff", a, b, "--all", "--format", "table"});
  (void)scratch;
  return out;
}

void expect_refused(const Result<store::Database>& r, ErrorCode code)
{
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code) << r.error().describe();
}

} // namespace

TEST(PgStore, EveryQueryPreparesAgainstTheSchema)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  auto db = store::Database::open(pg.url());
  ASSERT_TRUE(db) << db.error().describe();
  EXPECT_EQ(db->backend(), store::Backend::postgresql);
  for (const auto& q : sql::k_queries) {
    auto s = db->prepare(q.sql, q.name);
    EXPECT_TRUE(s) << q.name << ": " << (s ? "" : s.error().describe());
  }
}

TEST(PgStore, TablesAndViewsHaveTheSqliteColumnsInOrder)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  ASSERT_TRUE(store::Database::open(pg.url()));
  SQLite::Database lite(":memory:", SQLite::OPEN_READWRITE);
  add_migration_functions(lite);
  for (const auto& m : sql::k_migrations) {
    lite.exec(std::string(m.sql));
  }
  std::vector<std::string> names;
  SQLite::Statement objects(lite,
                            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name");
  while (objects.executeStep()) {
    names.push_back(objects.getColumn(0).getString());
  }
  EXPECT_EQ(pg.column("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                      " AND table_name <> 'rfdb_meta' ORDER BY table_name COLLATE \"C\""),
            names);
  for (const auto& name : names) {
    std::vector<std::string> want;
    SQLite::Statement info(lite, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
    info.bind(1, name);
    while (info.executeStep()) {
      want.push_back(info.getColumn(0).getString());
    }
    EXPECT_EQ(pg.column("SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'"
                        " AND table_name = '" +
                        name + "' ORDER BY ordinal_position"),
              want)
        << name;
  }
}

TEST(PgStore, EmptyDatabaseGetsTheSchemaAndMeta)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  {
    auto db = store::Database::open(pg.url());
    ASSERT_TRUE(db) << db.error().describe();
    EXPECT_EQ(db->schema_version(), store::newest_schema_version());
  }
  EXPECT_EQ(pg.column("SELECT value FROM rfdb_meta ORDER BY key"),
            (std::vector<std::string>{std::to_string(store::k_application_id),
                                      std::to_string(store::newest_schema_version())}));
  // Reopening and `rfdb migrate` change nothing.
  ASSERT_TRUE(store::Database::open(pg.url()));
  auto report = store::migrate_database(pg.url());
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_FALSE(report->created);
  EXPECT_EQ(report->from_version, store::newest_schema_version());
  EXPECT_EQ(report->backup, "");
  const auto r = run_cli({"--db", pg.url(), "check", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(PgStore, MigrateCreatesAndUpgradesAnOlderSchema)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  // An older database: the first five migrations, stamped version 5.
  for (std::size_t i = 0; i < 5; ++i) {
    pg.exec(std::string(sql::k_pg_migrations[i].sql));
  }
  pg.exec(fmt::format("INSERT INTO rfdb_meta VALUES ('application_id', '{}'), ('schema_version', '5')",
                      store::k_application_id));
  auto refused = store::Database::open(pg.url());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::needs_migration);
  auto report = store::migrate_database(pg.url());
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->from_version, 5);
  EXPECT_EQ(report->to_version, store::newest_schema_version());
  EXPECT_EQ(pg.column("SELECT value FROM rfdb_meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(store::newest_schema_version())});
  EXPECT_TRUE(store::Database::open(pg.url()));
}

TEST(PgStore, NewerSchemaIsRefusedUntouchedWithExit3)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  ASSERT_TRUE(store::Database::open(pg.url()));
  pg.exec(fmt::format("UPDATE rfdb_meta SET value = '{}' WHERE key = 'schema_version'",
                      store::newest_schema_version() + 1));
  expect_refused(store::Database::open(pg.url()), ErrorCode::schema_too_new);
  expect_refused(store::Database::open_read_only(pg.url()), ErrorCode::schema_too_new);
  auto m = store::migrate_database(pg.url());
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, ErrorCode::schema_too_new);
  EXPECT_EQ(run_cli({"--db", pg.url(), "runs"}).code, 3);
  EXPECT_EQ(run_cli({"--db", pg.url(), "ingest", run_fixture(k_gemm_run).string()}).code, 3);
  EXPECT_EQ(pg.column("SELECT count(*) FROM runs"), std::vector<std::string>{"0"});
}

TEST(PgStore, ForeignDatabaseIsRefusedUntouchedWithExit3)
{
  RFDB_REQUIRE_PG();
  {
    PgTestDatabase pg; // tables but no rfdb_meta
    pg.exec("CREATE TABLE t (x integer)");
    auto r = store::Database::open(pg.url());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::not_rfdb_db);
    EXPECT_EQ(run_cli({"--db", pg.url(), "ingest", run_fixture(k_gemm_run).string()}).code, 3);
    EXPECT_EQ(run_cli({"--db", pg.url(), "migrate"}).code, 3);
    EXPECT_EQ(pg.column("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"),
              std::vector<std::string>{"t"});
  }
  {
    PgTestDatabase pg; // another application's rfdb_meta
    pg.exec("CREATE TABLE rfdb_meta (key text PRIMARY KEY, value text);"
            "INSERT INTO rfdb_meta VALUES ('application_id', '42'), ('schema_version', '1')");
    expect_refused(store::Database::open(pg.url()), ErrorCode::not_rfdb_db);
    expect_refused(store::Database::open_read_only(pg.url()), ErrorCode::not_rfdb_db);
    EXPECT_EQ(pg.column("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
              std::vector<std::string>{"1"});
  }
}

TEST(PgStore, ReadOnlyOpenOfAnEmptyDatabaseCreatesNothing)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  auto r = store::Database::open_read_only(pg.url());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::not_found);
  EXPECT_EQ(run_cli({"--db", pg.url(), "runs"}).code, 1);
  EXPECT_EQ(pg.column("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
            std::vector<std::string>{"0"});
}

TEST(PgStore, ConcurrentFirstOpensApplyTheSchemaOnce)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  std::atomic<int> opened{0};
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto db = store::Database::open(pg.url());
      if (db) {
        ++opened;
      } else {
        errors[i] = db.error().describe();
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(opened.load(), 8) << fmt::format("{}", fmt::join(errors, " | "));
  EXPECT_EQ(pg.column("SELECT count(*) FROM rfdb_meta"), std::vector<std::string>{"2"});
  EXPECT_EQ(pg.column("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'runs'"),
            std::vector<std::string>{"1"});
}

TEST(PgStore, ValuesRoundTripAsOnSqlite)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  auto db = store::Database::open(pg.url());
  ASSERT_TRUE(db) << db.error().describe();
  ASSERT_TRUE(db->exec("CREATE TABLE v (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, i BIGINT,"
                       " d DOUBLE PRECISION, t TEXT, b BYTEA)",
                       "setup"));
  auto ins = db->prepare("INSERT INTO v (i, d, t, b) VALUES (:i, :d, :t, :b) RETURNING id", "v_insert");
  ASSERT_TRUE(ins) << ins.error().describe();
  const std::vector<double> doubles = {0.1 + 0.2,
                                       1e-300,
                                       -2.5,
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::denorm_min(),
                                       1.0 / 3.0,
                                       123456789.123456789};
  const std::string blob("a\0b\xff\x01z", 6);
  for (std::size_t k = 0; k < doubles.size(); ++k) {
    ins->bind(":i", k == 0 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(k))
        .bind(":d", doubles[k])
        .bind(":t", "τ ünïcode 'quoted' :not_a_param")
        .bind_blob(":b", blob);
    auto changed = ins->exec();
    ASSERT_TRUE(changed) << changed.error().describe();
    EXPECT_EQ(*changed, 1);
    EXPECT_EQ(db->last_insert_rowid(), static_cast<std::int64_t>(k + 1));
  }
  ins->bind(":i", std::nullopt).bind(":d", std::nullopt).bind(":t", std::nullopt).bind(":b", std::nullopt);
  ASSERT_TRUE(ins->exec());
  auto sel = db->prepare(
      "SELECT id, i, d, t, b, d IS NOT NULL AS has_d, count(*) OVER () AS n FROM v ORDER BY id", "v_select");
  ASSERT_TRUE(sel) << sel.error().describe();
  EXPECT_EQ(sel->column_count(), 7);
  EXPECT_EQ(sel->column_name(2), "d");
  EXPECT_EQ(sel->column_index("has_d"), 5);
  EXPECT_EQ(sel->column_index("absent"), -1);
  std::size_t row = 0;
  auto walked = store::for_each_row(*sel, [&](const store::Statement& s) {
    if (row < doubles.size()) {
      EXPECT_EQ(s.get_double("d"), doubles[row]) << row; // exact, not near
      EXPECT_EQ(s.get_int("i"),
                row == 0 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(row));
      EXPECT_EQ(s.get_text("t"), "τ ünïcode 'quoted' :not_a_param");
      EXPECT_EQ(s.get_blob("b"), blob);
      EXPECT_EQ(s.get_int("has_d"), 1);
      EXPECT_EQ(s.get_text("has_d"), "1");
      EXPECT_TRUE(s.is_number("d"));
      EXPECT_TRUE(s.is_number("i"));
      EXPECT_TRUE(s.is_number("has_d"));
      EXPECT_FALSE(s.is_number("t"));
    } else {
      EXPECT_TRUE(s.is_null("d"));
      EXPECT_FALSE(s.is_number("d"));
      EXPECT_EQ(s.get_opt_double("d"), std::nullopt);
      EXPECT_EQ(s.get_int("has_d"), 0);
    }
    EXPECT_EQ(s.get_int("n"), static_cast<std::int64_t>(doubles.size() + 1));
    ++row;
  });
  ASSERT_TRUE(walked) << walked.error().describe();
  EXPECT_EQ(row, doubles.size() + 1);
  // A real reads as text the way SQLite prints it.
  auto text = db->prepare("SELECT CAST(:x AS double precision) AS x", "v_text");
  ASSERT_TRUE(text);
  text->bind(":x", 0.1 + 0.2);
  ASSERT_TRUE(text->step().value_or(false));
  EXPECT_EQ(text->get_text("x"), "0.3");
  EXPECT_EQ(text->get_double("x"), 0.1 + 0.2);
  text->reset();
  // exec reports changed rows.
  auto upd = db->prepare("UPDATE v SET t = 'x' WHERE i IS NOT NULL", "v_update");
  ASSERT_TRUE(upd);
  EXPECT_EQ(upd->exec().value_or(-1), static_cast<int>(doubles.size()));
  // A bad parameter name is remembered and returned by exec.
  upd->bind(":nope", 1);
  auto bad = upd->exec();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::db);
}

TEST(PgStore, TransactionsRollBackAndConflictsAreRetryable)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  auto a = store::Database::open(pg.url());
  auto b = store::Database::open(pg.url());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(
      a->exec("CREATE TABLE c (k TEXT PRIMARY KEY, n BIGINT); INSERT INTO c VALUES ('x', 0)", "setup"));
  {
    auto tx = a->begin_immediate();
    ASSERT_TRUE(tx);
    ASSERT_TRUE(a->exec("UPDATE c SET n = 99", "update"));
  } // rolled back
  EXPECT_EQ(pg.column("SELECT n FROM c"), std::vector<std::string>{"0"});
  // begin_immediate queues writers (a table lock before the first query):
  // while a holds it, b waits; here b gives up after its lock_timeout.
  {
    auto ta = a->begin_immediate();
    ASSERT_TRUE(ta);
    ASSERT_TRUE(b->exec("SET lock_timeout = '200ms'", "setup"));
    auto tb = b->begin_immediate();
    ASSERT_FALSE(tb);
    ASSERT_TRUE(ta->commit());
    auto after = b->begin_immediate();
    ASSERT_TRUE(after) << "once a committed, b's writer starts";
    after->rollback();
    ASSERT_TRUE(b->exec("SET lock_timeout = 0", "setup"));
  }
  // Two serializable read-modify-writes of one row without that lock: the
  // second to write fails with retry.
  ASSERT_TRUE(a->exec("BEGIN ISOLATION LEVEL SERIALIZABLE", "begin"));
  ASSERT_TRUE(b->exec("BEGIN ISOLATION LEVEL SERIALIZABLE", "begin"));
  ASSERT_TRUE(a->exec("SELECT n FROM c", "read"));
  ASSERT_TRUE(b->exec("SELECT n FROM c", "read"));
  ASSERT_TRUE(a->exec("UPDATE c SET n = n + 1", "update"));
  ASSERT_TRUE(a->exec("COMMIT", "commit"));
  auto lost = b->exec("UPDATE c SET n = n + 1", "update");
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code, ErrorCode::retry) << lost.error().describe();
  ASSERT_TRUE(b->exec("ROLLBACK", "rollback"));
  // with_retry re-runs the unit until it lands.
  int calls = 0;
  auto done = store::with_retry([&]() -> Result<int> {
    ++calls;
    if (calls < 3) {
      return fail(ErrorCode::retry, "simulated serialization failure");
    }
    return 7;
  });
  ASSERT_TRUE(done);
  EXPECT_EQ(*done, 7);
  EXPECT_EQ(calls, 3);
}

TEST(PgStore, ConcurrentIngestsOfOneRunLandOnce)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  ASSERT_TRUE(store::Database::open(pg.url()));
  std::vector<CliResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = run_cli({"--db", pg.url(), "ingest", "-q", run_fixture(k_canonical_run).string(),
                            run_fixture(k_gemm_run).string()});
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (const auto& r : results) {
    EXPECT_EQ(r.code, 0) << r.err;
  }
  TempDir tmp;
  const auto lite = tmp / "one.sqlite";
  ingest_runs(lite, {k_canonical_run, k_gemm_run});
  EXPECT_EQ(pg.column("SELECT count(*) FROM runs"), std::vector<std::string>{"2"});
  EXPECT_EQ(pg.column("SELECT count(*) FROM sources"),
            std::vector<std::string>{query_value(lite, "SELECT count(*) FROM sources")});
  EXPECT_EQ(pg.column("SELECT count(*) FROM attempts"),
            std::vector<std::string>{query_value(lite, "SELECT count(*) FROM attempts")});
  const auto pg_priors = run_cli({"--db", pg.url(), "priors", "--format", "json"});
  const auto lite_priors = run_cli({"--db", lite.string(), "priors", "--format", "json"});
  EXPECT_EQ(pg_priors.out, lite_priors.out);
}

TEST(PgStore, ReadCommandsWorkWithASelectOnlyRole)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  ingest_everything(pg.url());
  std::random_device rd;
  const std::string role = fmt::format("rfdb_reader_{:08x}", rd());
  pg_admin_exec(fmt::format("CREATE ROLE {} LOGIN", role));
  pg.exec(fmt::format("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}", role));
  const std::string url = pg_url_for(*pg_test_url(), pg.name(), role);
  std::vector<std::vector<std::string>> reads = {
      {"priors", "--format", "json"}, {"report", "--as-of", "2026-09-01"},
      {"runs", "--format", "json"},   {"show", k_gemm_run, "--format", "json"},
      {"check", "--format", "json"},  {"query", "sources_list"}};
  for (auto args : reads) {
    args.insert(args.begin(), {"--db", url});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << args[2] << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << args[2];
  }
  // Writing needs more than SELECT: refused, nothing changed.
  const auto retract = run_cli({"--db", url, "retract", k_gemm_run, "--reason", "test"});
  EXPECT_NE(retract.code, 0);
  EXPECT_EQ(pg.column("SELECT count(*) FROM retractions"), std::vector<std::string>{"0"});
  pg.exec(fmt::format("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}", role));
  pg_admin_exec(fmt::format("DROP ROLE {}", role));
}

TEST(PgStore, SameFixturesGiveByteIdenticalOutputOnBothBackends)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  TempDir tmp;
  const std::string lite = (tmp / "rfdb.sqlite").string();
  for (const std::string& db : {lite, pg.url()}) {
    ingest_everything(db);
    const auto retract = run_cli({"--db", db, "retract", k_attn_run, "--reason", "kept out: 'test'"});
    ASSERT_EQ(retract.code, 0) << retract.err;
  }
  const auto want = outputs(lite, tmp.path());
  const auto got = outputs(pg.url(), tmp.path());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].second.code, 0) << want[i].first << ": " << want[i].second.err;
    EXPECT_EQ(got[i].second.code, want[i].second.code) << got[i].first << ": " << got[i].second.err;
    EXPECT_FALSE(want[i].second.out.empty()) << want[i].first;
    EXPECT_EQ(got[i].second.out, want[i].second.out) << got[i].first;
  }
  // A re-ingest changes nothing.
  const auto again = run_cli({"--db", pg.url(), "ingest", "-q", runs_dir().string()});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(run_cli({"--db", pg.url(), "priors", "--format", "json"}).out, want[0].second.out);
}

// The report's verdicts come in table order, and in run_id order when the
// fold asks again (a run's rows written apart): both reads hold the same
// rows on both backends, the second one sorted by run_id.
TEST(PgStore, VerdictsReadAgainInRunOrderHoldTheSameRows)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  TempDir tmp;
  const std::string lite = (tmp / "rfdb.sqlite").string();
  std::vector<std::vector<std::pair<std::string, std::int64_t>>> reads;
  for (const std::string& path : {lite, pg.url()}) {
    ingest_everything(path);
    auto db = store::Database::open_read_only(path);
    ASSERT_TRUE(db) << db.error().describe();
    for (const auto rows : {store::ReportRows::verdicts, store::ReportRows::verdicts_by_run}) {
      std::vector<std::pair<std::string, std::int64_t>> got;
      store::ReportEvidenceSink sink;
      sink.verdict = [&](store::ReportVerdict&& v) { got.emplace_back(v.run_id, v.verdict_id); };
      const auto ok = store::read_report_evidence(*db, store::EvidenceFilter{}, sink, rows);
      ASSERT_TRUE(ok) << ok.error().describe();
      if (rows == store::ReportRows::verdicts_by_run) {
        EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), [](const auto& a, const auto& b) {
          return a.first < b.first;
        })) << path;
      }
      std::sort(got.begin(), got.end());
      reads.push_back(std::move(got));
    }
  }
  ASSERT_EQ(reads.size(), 4u);
  EXPECT_GT(reads[0].size(), 10u);
  EXPECT_EQ(reads[1], reads[0]); // SQLite: both orders
  EXPECT_EQ(reads[3], reads[2]); // PostgreSQL: both orders
  EXPECT_EQ(reads[2].size(), reads[0].size());
}

// PostgreSQL keeps each file's frame in sources.raw_zst (BYTEA) as SQLite
// does: a bit flipped there fails `rfdb check` naming run and file, export
// --raw writes nothing, and `ingest --rehash` stores the copy again.
TEST(PgStore, CheckFindsAFlippedBitAndRehashRepairsIt)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  TempDir tmp;
  const auto run = copy_run(k_canonical_run, tmp.path());
  ASSERT_EQ(run_cli({"--db", pg.url(), "ingest", "-q", run.string()}).code, 0);
  ASSERT_EQ(run_cli({"--db", pg.url(), "check", "--format", "json"}).code, 0);
  pg.exec("UPDATE sources SET raw_zst = set_byte(raw_zst, length(raw_zst) / 2, "
          "get_byte(raw_zst, length(raw_zst) / 2) # 4) WHERE rel_path = 'env_report.json'");
  const auto r = run_cli({"--db", pg.url(), "check", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("stored_files").at("problems").size(), 1U) << r.out;
  const auto& p = j.at("stored_files").at("problems").at(0);
  EXPECT_EQ(p.at("run_id"), k_canonical_run);
  EXPECT_EQ(p.at("file"), "env_report.json");
  EXPECT_TRUE(p.at("problem") == "sha256" || p.at("problem") == "frame") << p;

  const auto out = tmp / "out";
  const auto exported = run_cli({"--db", pg.url(), "export", "--raw", "--all", "--out", out.string()});
  EXPECT_EQ(exported.code, 1);
  EXPECT_NE(exported.err.find(k_canonical_run + "/env_report.json ("), std::string::npos) << exported.err;
  EXPECT_FALSE(fs::exists(out));

  const auto rehash = run_cli({"--db", pg.url(), "ingest", "--rehash", "--format", "json", run.string()});
  ASSERT_EQ(rehash.code, 0) << rehash.err;
  EXPECT_EQ(nlohmann::json::parse(rehash.out).at("paths").at(0).at("status"), "repaired") << rehash.out;
  EXPECT_EQ(run_cli({"--db", pg.url(), "check", "--format", "json"}).code, 0);
  ASSERT_EQ(run_cli({"--db", pg.url(), "export", "--raw", "--all", "--out", out.string()}).code, 0);
  EXPECT_EQ(read_bytes(out / k_canonical_run / "env_report.json"), read_bytes(run / "env_report.json"));
}

} // namespace rfdb::test
