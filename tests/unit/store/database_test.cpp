// The store's safety rules: schema from migrations equals the golden dump,
// newer and foreign databases are refused untouched (exit 3), every
// embedded query prepares against the schema, transactions roll back.
#include "rfdb_sql.hpp"
#include "support/helpers.hpp"

#include "store/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

std::string schema_dump(const fs::path& db)
{
  SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement s(conn,
                      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name");
  std::string out;
  while (s.executeStep()) {
    out += "-- " + s.getColumn(0).getString() + " " + s.getColumn(1).getString() + "\n";
    out += s.getColumn(2).getString() + ";\n";
  }
  return out;
}

// The number of runs `db` reads (-1 when the read fails), its statement
// finished so no read stays open.
std::int64_t count_runs(store::Database& db)
{
  auto s = db.prepare("SELECT count(*) FROM runs", "count");
  if (!s) {
    return -1;
  }
  const auto row = s->step();
  const std::int64_t n = row && *row ? s->get_int(0) : -1;
  s->reset();
  return n;
}

// end_read's answer: whether the snapshot read was still the newest.
bool ended_on_newest(store::Database& db)
{
  auto same = db.end_read();
  EXPECT_TRUE(same) << same.error().describe();
  return same && *same;
}

} // namespace

TEST(Database, FreshSchemaMatchesGoldenDump)
{
  TempDir tmp;
  const auto path = tmp / "rfdb.sqlite";
  {
    auto db = store::Database::open(path.string());
    ASSERT_TRUE(db) << db.error().describe();
    EXPECT_EQ(db->schema_version(), store::newest_schema_version());
  }
  RFDB_EXPECT_GOLDEN("schema.sql", schema_dump(path));
  EXPECT_EQ(query_value(path, "PRAGMA application_id"), std::to_string(store::k_application_id));
  EXPECT_EQ(query_value(path, "PRAGMA journal_mode"), "wal");
}

TEST(Database, MigratingFromEveryOlderVersionEndsInTheGoldenSchema)
{
  // `rfdb migrate` (migrate_database) is the only path that upgrades: it
  // keeps a VACUUM INTO copy of the old file first.
  for (std::size_t applied = 1; applied < sql::k_migrations.size(); ++applied) {
    TempDir tmp;
    const auto path = tmp / "rfdb.sqlite";
    {
      SQLite::Database conn(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
      add_migration_functions(conn);
      for (std::size_t i = 0; i < applied; ++i) {
        conn.exec(std::string(sql::k_migrations[i].sql));
      }
      conn.exec("PRAGMA application_id = " + std::to_string(store::k_application_id));
      conn.exec("PRAGMA user_version = " + std::to_string(applied));
    }
    const std::string old_bytes = read_bytes(path);
    auto refused = store::Database::open(path.string());
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::needs_migration);
    EXPECT_EQ(read_bytes(path), old_bytes) << "refusing must not touch the file";
    auto report = store::migrate_database(path.string());
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_EQ(report->from_version, static_cast<int>(applied));
    EXPECT_EQ(report->backup, path.string() + ".v" + std::to_string(applied) + ".bak");
    EXPECT_EQ(query_value(report->backup, "PRAGMA user_version"), std::to_string(applied));
    EXPECT_EQ(schema_dump(path), read_golden("schema.sql")) << "from version " << applied;
  }
}

TEST(Database, ReopeningIsIdempotent)
{
  TempDir tmp;
  const auto path = tmp / "rfdb.sqlite";
  ASSERT_TRUE(store::Database::open(path.string()));
  const std::string before = read_bytes(path);
  ASSERT_TRUE(store::Database::open(path.string()));
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Database, NewerSchemaIsRefusedWithExit3AndLeftUntouched)
{
  TempDir tmp;
  const auto path = tmp / "rfdb.sqlite";
  {
    auto db = store::Database::open(path.string());
    ASSERT_TRUE(db);
  }
  {
    SQLite::Database conn(path.string(), SQLite::OPEN_READWRITE);
    conn.exec("PRAGMA user_version = 99");
  }
  const std::string before = read_bytes(path);
  auto r = run_cli({"--db", path.string(), "runs"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("database schema is version 99, this rfdb supports up to " +
                       std::to_string(store::newest_schema_version())),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Database, ForeignSqliteFileIsRefusedWithExit3)
{
  TempDir tmp;
  const auto path = tmp / "other.sqlite";
  {
    SQLite::Database conn(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    conn.exec("CREATE TABLE t (x)");
  }
  const std::string before = read_bytes(path);
  auto r = run_cli({"--db", path.string(), "ingest", run_fixture(k_canonical_run).string()});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("not an rfdb database"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Database, NonSqliteFileIsRefusedWithExit3)
{
  TempDir tmp;
  const auto path = tmp / "notes.txt";
  write_bytes(path, "these are not the droids\n");
  auto r = run_cli({"--db", path.string(), "runs"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("not an rfdb database"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(path), "these are not the droids\n");
}

TEST(Database, EveryEmbeddedQueryPreparesAgainstTheSchema)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  ASSERT_FALSE(sql::k_queries.empty());
  for (const auto& q : sql::k_queries) {
    auto s = db->prepare(q.sql, q.name);
    EXPECT_TRUE(s) << q.name << ": " << (s ? "" : s.error().describe());
  }
}

TEST(Database, DescribeAsksSqliteWhetherAStatementWrites)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto select =
      db->describe("-- a comment first\nSELECT run_id FROM runs WHERE run_id = :id OR :id IS NULL", "s");
  ASSERT_TRUE(select) << select.error().describe();
  EXPECT_TRUE(select->read_only);
  EXPECT_EQ(select->parameters, std::vector<std::string>({"id"}));
  // Starts with WITH, as a read-only query would, and still writes.
  auto cte_write =
      db->describe("WITH x AS (SELECT 1) DELETE FROM runs WHERE run_id IN (SELECT * FROM x)", "w");
  ASSERT_TRUE(cte_write) << cte_write.error().describe();
  EXPECT_FALSE(cte_write->read_only);
  auto bad = db->describe("SELEKT 1", "bad");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().describe().find("prepare bad"), std::string::npos);
}

TEST(Database, TransactionRollsBackUnlessCommitted)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  {
    auto tx = db->begin_immediate();
    ASSERT_TRUE(tx);
    auto ins = db->exec(
        "INSERT INTO runs (run_id, first_ingested_at, last_ingested_at) VALUES ('x', 't', 't')", "test");
    ASSERT_TRUE(ins) << ins.error().describe();
  }
  auto s = db->prepare("SELECT count(*) FROM runs", "count");
  ASSERT_TRUE(s);
  ASSERT_TRUE(*s->step());
  EXPECT_EQ(s->get_int(0), 0);
}

TEST(Database, BindErrorSurfacesAtExecWithQueryName)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto s = db->prepare("SELECT :a", "probe");
  ASSERT_TRUE(s);
  s->bind(":no_such_param", 1);
  auto r = s->exec();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().describe().find("query probe"), std::string::npos) << r.error().describe();
}

TEST(Database, ConcurrentIngestsFromSeveralConnectionsAllLand)
{
  TempDir tmp;
  const auto path = tmp / "rfdb.sqlite";
  const std::vector<std::string> runs{k_canonical_run, k_gemm_run, k_attn_run};
  std::vector<CliResult> results(runs.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = run_cli({"--db", path.string(), "ingest", run_fixture(runs[i]).string()});
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (const auto& r : results) {
    EXPECT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(query_value(path, "SELECT count(*) FROM runs"), "3");
}

TEST(Database, ReadTransactionReadsOneSnapshotAndTellsWhetherItIsStillTheNewest)
{
  TempDir tmp;
  const auto path = (tmp / "rfdb.sqlite").string();
  auto writer = store::Database::open(path); // kept open: its -wal makes the reader check for commits
  ASSERT_TRUE(writer);
  auto reader = store::Database::open_read_only(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  ASSERT_TRUE(reader->begin_read());
  EXPECT_EQ(count_runs(*reader), 0);
  auto ins = writer->exec(
      "INSERT INTO runs (run_id, first_ingested_at, last_ingested_at) VALUES ('x', 't', 't')", "test");
  ASSERT_TRUE(ins) << ins.error().describe();
  EXPECT_EQ(count_runs(*reader), 0); // the snapshot taken at begin_read
  EXPECT_FALSE(ended_on_newest(*reader));

  ASSERT_TRUE(reader->begin_read());
  EXPECT_EQ(count_runs(*reader), 1);
  EXPECT_TRUE(ended_on_newest(*reader));
}

// A WAL file whose writer has closed has no -wal. A reader opened then must
// still see what a later writer commits and checkpoints into the file: read
// as immutable, it kept the old pages (or failed with "database disk image
// is malformed" while an ingest checkpointed).
TEST(Database, AReaderOpenedWithoutAWalSeesCommitsMadeAfterIt)
{
  TempDir tmp;
  const auto path = (tmp / "rfdb.sqlite").string();
  ASSERT_TRUE(store::Database::open(path));
  ASSERT_FALSE(fs::exists(path + "-wal")) << "the writer closed: no -wal";
  auto reader = store::Database::open_read_only(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(count_runs(*reader), 0);
  {
    auto writer = store::Database::open(path);
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->exec(
        "INSERT INTO runs (run_id, first_ingested_at, last_ingested_at) VALUES ('x', 't', 't')", "test"));
    ASSERT_TRUE(writer->exec("PRAGMA wal_checkpoint(TRUNCATE)", "test")); // the pages into the file
  }
  EXPECT_EQ(count_runs(*reader), 1);
  ASSERT_TRUE(reader->begin_read());
  EXPECT_EQ(count_runs(*reader), 1);
  EXPECT_TRUE(ended_on_newest(*reader));
}

// A read transaction keeps its snapshot while another connection of this
// process opens (reading the file's header) and a writer in another process
// commits and closes; once ended, it says a commit came in between. (The
// header read that dropped this process's locks is caught by the
// concurrency.read_during_ingest test, which races real processes.)
TEST(Database, AReaderKeepsItsSnapshotWhileAnotherOpensAndAnotherProcessWrites)
{
  TempDir tmp;
  const auto path = (tmp / "rfdb.sqlite").string();
  ASSERT_TRUE(store::Database::open(path));
  auto reader = store::Database::open_read_only(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  ASSERT_TRUE(reader->begin_read());
  EXPECT_EQ(count_runs(*reader), 0);
  auto second = store::Database::open_read_only(path);
  ASSERT_TRUE(second) << second.error().describe();
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    bool ok = false;
    {
      auto writer = store::Database::open(path);
      ok = writer &&
           writer->exec("WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 2000) "
                        "INSERT INTO runs (run_id, first_ingested_at, last_ingested_at) "
                        "SELECT 'r' || v, 't', 't' FROM n",
                        "test");
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the writer process failed";
  EXPECT_EQ(count_runs(*reader), 0) << "the snapshot taken at begin_read";
  EXPECT_FALSE(ended_on_newest(*reader));
  EXPECT_EQ(count_runs(*reader), 2000);
  EXPECT_EQ(count_runs(*second), 2000);
}

TEST(Database, PageCacheOfAConnectionCanBeCapped)
{
  TempDir tmp;
  const auto path = (tmp / "rfdb.sqlite").string();
  ASSERT_TRUE(store::Database::open(path));
  auto reader = store::Database::open_read_only(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  const auto cache_size = [&] {
    auto s = reader->prepare("PRAGMA cache_size", "cache_size");
    EXPECT_TRUE(s);
    EXPECT_TRUE(*s->step());
    return s->get_int(0);
  };
  EXPECT_EQ(cache_size(), -2000); // SQLite's default: 2000 KiB
  ASSERT_TRUE(reader->limit_page_cache(512));
  EXPECT_EQ(cache_size(), -512);
}

} // namespace rfdb::test
