// Test support: a temporary directory, in-process CLI runs with captured
// output and a fixed clock, file helpers, and golden-file comparison.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace SQLite {
class Database;
} // namespace SQLite

namespace rfdb::test {

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& rel) const { return m_path / rel; }

private:
  std::filesystem::path m_path;
};

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Run `rfdb <args>` in-process with the clock fixed at 2026-11-30T12:00:00Z,
// stdout not a terminal (as in a pipe).
CliResult run_cli(const std::vector<std::string>& args);

// How run_cli_with runs rfdb.
struct CliEnv {
  bool terminal = false; // stdout is a terminal
  std::string env_db;    // $RFDB_DB
  bool merged = false;   // stdout and stderr into one stream (CliResult::out), to see their order
  // Polled between runs like a SIGINT flag; empty = never interrupted.
  std::function<bool()> interrupted;
  // Polled inside a run like a second SIGINT (stop at once); empty = never.
  std::function<bool()> aborted;
};
CliResult run_cli_with(const std::vector<std::string>& args, const CliEnv& env);

// run_cli on database `db` (a path or a postgresql:// URL): `rfdb --db DB <args>`.
CliResult rfdb(const std::string& db, std::vector<std::string> args);

std::filesystem::path fixtures_dir();
std::filesystem::path runs_dir();                           // tests/fixtures/runs
std::filesystem::path run_fixture(const std::string& name); // runs_dir()/name
std::filesystem::path dev_run(const std::string& name);     // tests/fixtures/dev-runs/name

// A dump_tables text without the rfdb_meta table `rfdb copy` records its
// state in (a copy's tables compared with its source's).
std::string without_copy_state(const std::string& dump);

inline const std::string k_canonical_run = "e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq";
inline const std::string k_gemm_run = "e2e_Qwen-Qwen3-32B_20260703_142210_9120_p0aa";
inline const std::string k_attn_run = "e2e_meta-llama-Llama-3.1-70B-Instruct_20260815_083000_3311_zz9f";

inline const std::vector<std::string> k_all_runs = {k_canonical_run, k_gemm_run, k_attn_run};

// Ingest fixture runs (by name) into `db`, in that order; fails the test on error.
void ingest_runs(const std::filesystem::path& db, const std::vector<std::string>& runs);

// A database holding the three sample runs, built once per test suite.
class SampleDatabase : public ::testing::Test {
protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  static TempDir* s_tmp;
  static std::filesystem::path s_db;
};

// Whole-file helpers.
std::string read_bytes(const std::filesystem::path& p);
void write_bytes(const std::filesystem::path& p, const std::string& content);
// Copy a fixture run into `dir` and return the copy's path.
std::filesystem::path copy_run(const std::string& name, const std::filesystem::path& dir);

// The names of the files in `dir` (not recursive), sorted.
std::vector<std::string> list_dir(const std::filesystem::path& dir);

// Every row of every rfdb table as text, for "nothing changed" checks.
std::string dump_tables(const std::filesystem::path& db);

// Register on `conn` the SQL functions the migrations call (rfdb_zstd of
// migration 0008), for tests that apply migrations/ with SQLiteCpp directly.
void add_migration_functions(SQLite::Database& conn);

// A database at schema `version` (6 or 7), made by applying the first
// `version` migrations as an older rfdb did, holding every row of the
// current-schema database `from`: what that rfdb stored for the same ingest.
// sources.raw is the file text (decompressed) and, from schema 7,
// sources.size its byte size; kernel_samples.raw and verdicts.raw (the
// per-row JSON migration 0008 drops) are "{}". Throws on a column it cannot fill.
void copy_to_older_schema(const std::filesystem::path& from, const std::filesystem::path& to, int version);

// One value from a SQL query on `db` (first column of the first row, "NULL"
// when null, "" when there is no row).
std::string query_value(const std::filesystem::path& db, const std::string& sql);

// Compare `actual` with tests/golden/<rel>. With RFDB_UPDATE_GOLDEN=1 the file
// is rewritten and the test is skipped, so regenerating cannot pass by accident.
#define RFDB_EXPECT_GOLDEN(rel, actual)                                                                      \
  do {                                                                                                       \
    if (::rfdb::test::update_golden(rel, actual)) {                                                          \
      GTEST_SKIP() << "golden file " << (rel) << " regenerated";                                             \
    }                                                                                                        \
    EXPECT_EQ(::rfdb::test::read_golden(rel), actual)                                                        \
        << "golden file " << (rel) << " differs; regenerate with RFDB_UPDATE_GOLDEN=1";                      \
  } while (false)

bool update_golden(const std::string& rel, const std::string& actual);
std::string read_golden(const std::string& rel);

} // namespace rfdb::test
