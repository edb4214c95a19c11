// Databases that are missing, shared or read-only (issue 13): read commands
// never create a database, open it read-only without switching its journal
// mode or migrating it, leave no file behind, and refuse foreign, newer and
// older files byte-for-byte untouched (a pending WAL included).
#include "rfdb_sql.hpp"
#include "support/helpers.hpp"

#include "store/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

// The commands that only read, with the arguments they need.
const std::vector<std::vector<std::string>> k_read_commands = {
    {"runs"}, {"show", "e2e_Qwen-Qwen3-32B"}, {"priors"}, {"report"}, {"query", "verdicts_all"}, {"export"},
    {"check"}};

// Every file in `dir` with its bytes, for "nothing changed, nothing added".
std::map<std::string, std::string> snapshot(const fs::path& dir)
{
  std::map<std::string, std::string> files;
  for (const auto& name : list_dir(dir)) {
    files[name] = read_bytes(dir / name);
  }
  return files;
}

// A database at schema `version` (the first `version` migrations), as an
// older rfdb left it.
void make_old_database(const fs::path& path, int version)
{
  SQLite::Database conn(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  conn.exec("PRAGMA journal_mode = WAL");
  for (int i = 0; i < version; ++i) {
    conn.exec(std::string(sql::k_migrations[static_cast<std::size_t>(i)].sql));
  }
  conn.exec("INSERT INTO runs (run_id, run_date, first_ingested_at, last_ingested_at) "
            "VALUES ('e2e_old_20260101_000000_1_a', '2026-01-01', 't', 't')");
  conn.exec("PRAGMA application_id = " + std::to_string(store::k_application_id));
  conn.exec("PRAGMA user_version = " + std::to_string(version));
}

} // namespace

TEST(SharedDb, ReadCommandsOnAMissingDatabaseFailWithAHint)
{
  TempDir tmp;
  const auto db = tmp / "typo.sqlite";
  for (const auto& args : k_read_commands) {
    const auto r = rfdb(db, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_EQ(r.err,
              "rfdb: error: " + args[0] + ": " + db.string() +
                  ": no database at this path\nhint: `rfdb ingest EVAL_DIR…` creates it; --db PATH (or "
                  "RFDB_DB) says which file to read\n");
  }
  EXPECT_EQ(list_dir(tmp.path()), std::vector<std::string>{}) << "nothing created";
  // An empty file (e.g. from `touch`) is no database either.
  write_bytes(db, "");
  const auto r = rfdb(db, {"runs"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, ": the database file is empty\n")) << r.err;
  EXPECT_EQ(read_bytes(db), "");
}

TEST(SharedDb, ADirectoryOrAMissingDirectoryIsNamed)
{
  TempDir tmp;
  auto r = rfdb(tmp.path(), {"runs"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "rfdb: error: runs: " + tmp.path().string() +
                ": is a directory, not a database file\nhint: --db (or RFDB_DB) names the database file, "
                "e.g. --db " +
                (tmp / "rfdb.sqlite").string() + "\n");
  const auto missing = tmp / "no_such_dir" / "rfdb.sqlite";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"runs"}, {"ingest", run_fixture(k_gemm_run)}}) {
    r = rfdb(missing, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_EQ(r.err,
              "rfdb: error: " + args[0] + ": " + missing.string() + ": directory " +
                  (tmp / "no_such_dir").string() +
                  " does not exist\nhint: create it, or point --db (or RFDB_DB) at a file in an existing "
                  "directory\n");
  }
  EXPECT_FALSE(fs::exists(tmp / "no_such_dir"));
}

TEST(SharedDb, ReadCommandsWorkOnAReadOnlyFileAndLeaveNothingBehind)
{
  TempDir tmp;
  const auto dir = tmp / "shared";
  fs::create_directory(dir);
  const auto db = dir / "team.sqlite";
  ingest_runs(db, {k_gemm_run});
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const auto before = snapshot(dir);
  ASSERT_EQ(before.size(), 1U) << "only the database file";
  for (const auto& args : k_read_commands) {
    const auto r = rfdb(db, args);
    EXPECT_EQ(r.code, 0) << args[0] << ": " << r.err;
  }
  EXPECT_EQ(snapshot(dir), before) << "no -wal, -shm or journal left, the file unchanged";
  fs::permissions(dir, fs::perms::owner_all);
}

TEST(SharedDb, ReadCommandsDoNotSwitchTheJournalMode)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, {k_gemm_run});
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec("PRAGMA journal_mode = DELETE");
  }
  const auto before = snapshot(tmp.path());
  for (const auto& args : k_read_commands) {
    EXPECT_EQ(rfdb(db, args).code, 0) << args[0];
  }
  EXPECT_EQ(snapshot(tmp.path()), before);
  EXPECT_EQ(query_value(db, "PRAGMA journal_mode"), "delete");
}

TEST(SharedDb, ReadCommandsSeeCommittedDataInAPendingWal)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, {k_gemm_run});
  SQLite::Database writer(db.string(), SQLite::OPEN_READWRITE); // keeps the WAL open
  writer.exec("PRAGMA wal_autocheckpoint = 0");
  writer.exec("UPDATE runs SET backend = 'vllm'");
  const auto r = rfdb(db, {"runs"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)[0]["backend"], "vllm");
}

// --db may name a symlink: SQLite opens the file it points to and names the
// -wal after that file, so the pending WAL of real.sqlite is read through
// link.sqlite, and a writer goes through the link as well.
TEST(SharedDb, ADatabaseReachedThroughASymlinkIsReadWithItsPendingWal)
{
  TempDir tmp;
  const auto db = tmp / "real.sqlite";
  ingest_runs(db, {k_gemm_run});
  const auto link = tmp / "link.sqlite";
  fs::create_symlink("real.sqlite", link);
  {
    SQLite::Database writer(db.string(), SQLite::OPEN_READWRITE); // keeps the WAL open
    writer.exec("PRAGMA wal_autocheckpoint = 0");
    writer.exec("UPDATE runs SET backend = 'vllm'");
    const auto r = rfdb(link, {"runs"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)[0]["backend"], "vllm");
  }
  const auto ingest = rfdb(link, {"ingest", run_fixture(k_attn_run)});
  ASSERT_EQ(ingest.code, 0) << ingest.err;
  const auto runs = rfdb(link, {"runs"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out).size(), 2U);
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(SharedDb, AnOlderSchemaIsReportedWithTheCommandThatMigratesIt)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  make_old_database(db, 2);
  const auto before = snapshot(tmp.path());
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"runs"}, {"ingest", run_fixture(k_gemm_run)}}) {
    const auto r = rfdb(db, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_EQ(r.err,
              "rfdb: error: " + args[0] + ": " + db.string() +
                  ": database schema is version 2, this rfdb uses version " +
                  std::to_string(store::newest_schema_version()) +
                  "\nhint: run `rfdb migrate` to upgrade it (it writes a backup copy first); older rfdb "
                  "binaries cannot read the upgraded file\n");
  }
  const auto check = rfdb(db, {"check", "--format", "table"});
  EXPECT_EQ(check.code, 1) << "not ok until migrated";
  EXPECT_TRUE(
      contains(check.out, "schema version   2 (this rfdb: " + std::to_string(store::newest_schema_version()) +
                              "); run `rfdb migrate` to upgrade\n"))
      << check.out;
  EXPECT_EQ(snapshot(tmp.path()), before) << "refused and checked without a change";

  const auto migrate = rfdb(db, {"migrate"});
  ASSERT_EQ(migrate.code, 0) << migrate.err;
  const auto backup = db.string() + ".v2.bak";
  EXPECT_EQ(migrate.out, "migrated " + db.string() + " from schema version 2 to " +
                             std::to_string(store::newest_schema_version()) + "; the old file is kept as " +
                             backup + "\n");
  EXPECT_EQ(query_value(backup, "PRAGMA user_version"), "2");
  EXPECT_EQ(query_value(backup, "SELECT run_id FROM runs"), "e2e_old_20260101_000000_1_a");
  const auto runs = rfdb(db, {"runs"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out)[0]["run_id"], "e2e_old_20260101_000000_1_a");
  const auto again = rfdb(db, {"migrate"});
  EXPECT_EQ(again.out, db.string() + " is at schema version " +
                           std::to_string(store::newest_schema_version()) + ": nothing to do\n");
  EXPECT_FALSE(fs::exists(db.string() + ".v3.bak"));
}

TEST(SharedDb, RefusingANewerOrForeignWalDatabaseLeavesItByteIdentical)
{
  for (const bool foreign : {false, true}) {
    TempDir tmp;
    const auto live = tmp / "live.sqlite";
    if (foreign) {
      SQLite::Database conn(live.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
      conn.exec("PRAGMA journal_mode = WAL");
    } else {
      ingest_runs(live, {k_gemm_run});
    }
    // A writer commits into the WAL and is still open: copy the three files
    // as a crashed writer would leave them.
    const auto copy = tmp / "copy";
    fs::create_directory(copy);
    {
      SQLite::Database writer(live.string(), SQLite::OPEN_READWRITE);
      writer.exec("PRAGMA wal_autocheckpoint = 0");
      writer.exec(foreign ? "CREATE TABLE notes (x)" : "PRAGMA user_version = 99");
      for (const auto& name : list_dir(tmp.path())) {
        if (name.rfind("live.sqlite", 0) == 0) {
          fs::copy_file(tmp / name, copy / name);
        }
      }
    }
    const auto db = copy / "live.sqlite";
    ASSERT_TRUE(fs::exists(db.string() + "-wal"));
    ASSERT_GT(fs::file_size(db.string() + "-wal"), 0U);
    const std::string main_bytes = read_bytes(db);
    const std::string wal_bytes = read_bytes(db.string() + "-wal");
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"runs"}, {"ingest", run_fixture(k_attn_run)}, {"migrate"}}) {
      const auto r = rfdb(db, args);
      EXPECT_EQ(r.code, 3) << args[0] << ": " << r.err;
      EXPECT_TRUE(contains(r.err, foreign ? "not an rfdb database" : "database schema is version 99"))
          << r.err;
      EXPECT_EQ(read_bytes(db), main_bytes) << args[0];
      EXPECT_EQ(read_bytes(db.string() + "-wal"), wal_bytes) << args[0];
    }
  }
}

TEST(SharedDb, OnlyWritingCommandsCreateADatabase)
{
  TempDir tmp;
  const auto db = tmp / "new.sqlite";
  auto r = rfdb(db, {"ingest", "--dry-run", run_fixture(k_gemm_run)});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(db)) << "a dry run creates nothing";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"retract", "e2e_x", "--reason", "r"}, {"restore", "e2e_x"}}) {
    r = rfdb(db, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_TRUE(contains(r.err, ": no database at this path\n")) << r.err;
    EXPECT_FALSE(fs::exists(db)) << args[0] << " has nothing to change in a missing database";
  }
  r = rfdb(db, {"migrate"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "created " + db.string() + " at schema version " +
                       std::to_string(store::newest_schema_version()) + "\n");
  r = rfdb(db, {"runs"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[]\n");
}

TEST(SharedDb, MigratingFromSchema6KeepsTheRunsAndRecordsTheStatOnTheNextIngest)
{
  TempDir tmp;
  const auto current = tmp / "current.sqlite";
  const auto run = copy_run(k_gemm_run, tmp.path());
  ASSERT_EQ(rfdb(current, {"ingest", run.string()}).code, 0);
  // The same rows at schema 6, as an older rfdb left them: sources without the stat.
  const auto db = tmp / "rfdb.sqlite";
  copy_to_older_schema(current, db, 6);
  const std::string files = query_value(db, "SELECT count(*) || '/' || sum(bytes) FROM sources");
  const std::string attempts = query_value(db, "SELECT count(*) FROM attempts");
  const auto migrate = rfdb(db, {"migrate"});
  ASSERT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_TRUE(
      contains(migrate.out, "from schema version 6 to " + std::to_string(store::newest_schema_version())))
      << migrate.out;
  EXPECT_EQ(query_value(db, "SELECT count(*) || '/' || sum(bytes) FROM sources"), files);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts"), attempts);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE mtime_ns IS NULL"),
            files.substr(0, files.find('/')));
  // No stat stored: the files are hashed, found unchanged, and their mtime recorded.
  auto r = rfdb(db, {"ingest", "--format", "json", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["paths"][0]["status"], "unchanged") << r.out;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE mtime_ns > 0"),
            files.substr(0, files.find('/')));
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts"), attempts);
}

} // namespace rfdb::test

namespace rfdb::test {

namespace {

// Restores the migrate backup hook and the SQLite write fault however a test ends.
struct StoreHooks {
  StoreHooks() = default;
  StoreHooks(const StoreHooks&) = delete;
  StoreHooks& operator=(const StoreHooks&) = delete;
  ~StoreHooks()
  {
    store::set_migrate_backup_hook({});
    store::set_sqlite_write_fault(std::nullopt);
  }
};

} // namespace

// Issue 34, item 6: the backup is written as <backup>.partial and renamed
// when complete. A migrate stopped after its backup was written but before
// the rename (as a kill would) leaves no .bak, and the next migrate takes the
// same name instead of a second ".v2.1.bak".
TEST(SharedDb, AMigrateStoppedDuringItsBackupLeavesNoPartialBakAndTheNextTakesTheSameName)
{
  TempDir tmp;
  const StoreHooks hooks;
  const auto db = tmp / "rfdb.sqlite";
  make_old_database(db, 2);
  const std::string backup = db.string() + ".v2.bak";
  std::string seen;
  store::set_migrate_backup_hook([&](const std::string& partial) -> Result<void> {
    seen = partial;
    EXPECT_FALSE(fs::exists(backup)) << "the backup is visible under its name before it is complete";
    return fail(make_error(ErrorCode::interrupted, "killed"));
  });
  const auto killed = rfdb(db, {"migrate"});
  EXPECT_NE(killed.code, 0);
  EXPECT_EQ(seen, backup + ".partial");
  EXPECT_FALSE(fs::exists(backup));
  EXPECT_EQ(query_value(db, "PRAGMA user_version"), "2") << "not migrated";

  store::set_migrate_backup_hook({});
  const auto migrate = rfdb(db, {"migrate"});
  ASSERT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_TRUE(contains(migrate.out, "the old file is kept as " + backup + "\n")) << migrate.out;
  EXPECT_EQ(query_value(backup, "SELECT run_id FROM runs"), "e2e_old_20260101_000000_1_a");
  EXPECT_FALSE(fs::exists(db.string() + ".v2.1.bak"));
  EXPECT_FALSE(fs::exists(backup + ".partial"));
}

// With the disk full, ingest stops at the run that hit it and reports what
// committed; the later runs are not tried (each would fail the same way).
TEST(SharedDb, IngestStopsAtTheFirstFullDiskWithTheCommittedSummary)
{
  TempDir tmp;
  const StoreHooks hooks;
  const auto db = tmp / "rfdb.sqlite";
  CliEnv env;
  bool armed = false;
  env.aborted = [&] { // polled inside each run: the disk fills up once the first run committed
    if (!armed && query_value(db, "SELECT count(*) FROM runs") == "1") {
      store::set_sqlite_write_fault(store::SqliteWriteFault{13 /* SQLITE_FULL */, 0});
      armed = true;
    }
    return false;
  };
  const auto r =
      run_cli_with({"--db", db.string(), "ingest", "--format", "json", run_fixture(k_canonical_run).string(),
                    run_fixture(k_gemm_run).string(), run_fixture(k_attn_run).string()},
                   env);
  EXPECT_EQ(r.code, 1) << r.err;
  const auto report = json::parse(r.out);
  ASSERT_EQ(report["paths"].size(), 2U) << "the third run was tried: " << r.out;
  EXPECT_EQ(report["paths"][0]["status"], "added");
  EXPECT_EQ(report["paths"][1]["status"], "failed");
  EXPECT_TRUE(contains(report["paths"][1]["error"].get<std::string>(), "the disk is full")) << r.out;
  EXPECT_TRUE(contains(r.err, "hint: free space on the database's disk")) << r.err;
  EXPECT_TRUE(contains(r.err, "stopped: the disk is full; 1 run committed, 1 not tried\n")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT group_concat(run_id) FROM runs"), k_canonical_run);
}

// A write refused as read-only says where to write instead. Injected
// (SQLITE_READONLY on the first write), so it holds as root too.
TEST(SharedDb, AWriteRefusedAsReadOnlySaysWhatToDo)
{
  TempDir tmp;
  const StoreHooks hooks;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"migrate"}).code, 0);
  store::set_sqlite_write_fault(store::SqliteWriteFault{8 /* SQLITE_READONLY */, 0});
  const auto r = rfdb(db, {"ingest", run_fixture(k_gemm_run).string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "the database is read-only (")) << r.err;
  EXPECT_TRUE(contains(r.err, "\nhint: pass --db PATH to a writable location, or fix the permissions"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs"), "0");
}

// The same from the file system: a database file and a directory this user
// may not write. Root writes anyway (the injected test above covers it).
TEST(SharedDb, AReadOnlyFileOrDirectorySaysWhatToDo)
{
  TempDir tmp;
  const auto hint = "\nhint: pass --db PATH to a writable location, or fix the permissions";
  if (::geteuid() == 0) {
    GTEST_SKIP() << "root writes files and directories without write permission";
  }
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(rfdb(db, {"migrate"}).code, 0);
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  auto r = rfdb(db, {"ingest", run_fixture(k_gemm_run).string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "read-only")) << r.err;
  EXPECT_TRUE(contains(r.err, hint)) << r.err;
  const auto dir = tmp / "ro";
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  r = rfdb(dir / "new.sqlite", {"ingest", run_fixture(k_gemm_run).string()});
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "read-only")) << r.err;
  EXPECT_TRUE(contains(r.err, hint)) << r.err;
}

} // namespace rfdb::test
