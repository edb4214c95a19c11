// `rfdb copy` between SQLite files: every table row for row with its ids, the same priors and
// report, a verified summary, and a destination that holds data refused byte for byte untouched.
#include "support/helpers.hpp"

#include "store/store_transfer.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A store with a row in every table: the three sample runs, a superseded
// source (a self-reference in sources), knowledge findings and a retraction.
void build_store(const TempDir& tmp, const fs::path& db)
{
  ingest_runs(db, k_all_runs);
  fs::create_directories(tmp / "runs");
  const fs::path run = copy_run(k_canonical_run, tmp / "runs");
  const auto roofline = run / "profile/round_0/profile_roofline.json";
  const std::string stage_b = read_bytes(roofline);
  write_bytes(roofline, read_bytes(fixtures_dir() / "variants/canonical_profile_roofline.stage_A.json"));
  ASSERT_EQ(rfdb(db, {"ingest", "-q", run.string()}).code, 0);
  write_bytes(roofline, stage_b);
  ASSERT_EQ(rfdb(db, {"ingest", "-q", run.string()}).code, 0);
  ASSERT_EQ(rfdb(db, {"ingest", "-q", (fixtures_dir() / "knowledge" / "learned").string()}).code, 0);
  ASSERT_EQ(rfdb(db, {"retract", k_attn_run, "--reason", "box was not quiet"}).code, 0);
  ASSERT_EQ(rfdb(db, {"tag", k_canonical_run, "quant=fp8", "tp=1"}).code, 0);
  ASSERT_EQ(rfdb(db, {"untag", k_canonical_run, "tp"}).code, 0);
  ASSERT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE superseded_by IS NOT NULL"), "1");
}

// Stops `rfdb copy` between its commit and its verification while alive (a kill there).
struct KilledAfterCommit {
  KilledAfterCommit()
  {
    store::set_copy_committed_hook(
        []() -> Result<void> { return fail(make_error(ErrorCode::io, "killed after the commit")); });
  }
  ~KilledAfterCommit() { store::set_copy_committed_hook({}); }
  KilledAfterCommit(const KilledAfterCommit&) = delete;
  KilledAfterCommit& operator=(const KilledAfterCommit&) = delete;
};

} // namespace

TEST(Copy, SqliteToSqliteKeepsEveryRowAndTheSameOutputs)
{
  TempDir tmp;
  const auto src = tmp / "team.sqlite";
  build_store(tmp, src);
  const auto dst = tmp / "copy.sqlite";
  const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["counts_match"].get<bool>());
  EXPECT_TRUE(j["check_ok"].get<bool>());
  EXPECT_TRUE(j["priors_identical"].get<bool>());
  // Parents first, every table of the schema, none empty in this store but the ones nothing fills.
  std::vector<std::string> tables;
  for (const auto& t : j["tables"]) {
    tables.push_back(t["table"].get<std::string>());
    EXPECT_EQ(t["source_rows"], t["dest_rows"]) << t.dump();
  }
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables.front(), "runs");
  const auto pos = [&tables](const std::string& name) {
    return std::find(tables.begin(), tables.end(), name) - tables.begin();
  };
  EXPECT_LT(pos("sources"), pos("bench_summaries"));
  EXPECT_LT(pos("verdicts"), pos("attempts"));
  EXPECT_LT(pos("attempts"), pos("attempt_sources"));
  EXPECT_EQ(pos("active_runs"), static_cast<std::ptrdiff_t>(tables.size())) << "views are not copied";
  EXPECT_EQ(query_value(dst, "SELECT count(*) FROM runs"), "3");

  // Row for row, ids included (rfdb_meta is the destination's own: its copy state).
  EXPECT_EQ(without_copy_state(dump_tables(dst)), dump_tables(src));
  EXPECT_EQ(query_value(dst, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "verified");
  // The tags and their history (tag_log) come along.
  EXPECT_EQ(query_value(dst, "SELECT group_concat(run_id || ' ' || key || '=' || value) FROM run_tags"),
            k_canonical_run + " quant=fp8");
  EXPECT_EQ(query_value(dst, "SELECT group_concat(action || ' ' || key, ',') FROM (SELECT * FROM tag_log "
                             "ORDER BY event_id)"),
            "tag quant,tag tp,untag tp");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"priors", "--format", "json"},
                                             {"priors", "--by", "class,gfx,regime", "--format", "json"},
                                             {"report"},
                                             {"runs", "--all", "--format", "json"},
                                             {"runs", "--tag", "quant=fp8", "--format", "json"},
                                             {"show", k_canonical_run, "--format", "json"}}) {
    const auto a = rfdb(src, args);
    const auto b = rfdb(dst, args);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << args[0];
  }
  // The copy takes new rows after the copied ids (a new run ingests cleanly).
  const auto more =
      rfdb(dst, {"ingest", "-q", (fixtures_dir() / "knowledge" / "backend_playbook.md").string()});
  EXPECT_EQ(more.code, 0) << more.err;
  EXPECT_EQ(rfdb(dst, {"check"}).code, 0);
}

TEST(Copy, TableSummarySaysWhatWasVerified)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  const auto r =
      run_cli({"copy", "--from", src.string(), "--to", (tmp / "b.sqlite").string(), "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("copied " + src.string() + " into " + (tmp / "b.sqlite").string() + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nruns  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check            ok\npriors (json)    identical\nok\n"), std::string::npos) << r.out;
}

TEST(Copy, RefusesADestinationHoldingDataAndLeavesItByteIdentical)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  const auto dst = tmp / "b.sqlite";
  ingest_runs(dst, {k_attn_run});
  const auto before = read_bytes(dst);
  const auto files = list_dir(tmp.path());
  const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("the destination is not empty (runs: 1, sources: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: copy into a new database: rfdb copy never merges two stores"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_bytes(dst), before);
  EXPECT_EQ(list_dir(tmp.path()), files) << "no -wal or -shm left behind";
}

TEST(Copy, AReRunAfterAKillBetweenCommitAndVerificationVerifies)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run, k_attn_run});
  const auto dst = tmp / "b.sqlite";
  {
    KilledAfterCommit kill;
    const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string(), "--format", "json"});
    ASSERT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
  ASSERT_TRUE(fs::exists(dst));
  EXPECT_EQ(query_value(dst, "SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(query_value(dst, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "copied, unverified");
  EXPECT_EQ(query_value(dst, "SELECT value FROM rfdb_meta WHERE key = 'copy_from'"), src.string());

  // The same copy again: verified, not refused as "not empty".
  auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("holds a copy of " + src.string() +
                       " committed but not verified (the copy was interrupted): verifying it"),
            std::string::npos)
      << r.err;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["resumed"].get<bool>());
  EXPECT_TRUE(j["check_ok"].get<bool>());
  EXPECT_TRUE(j["priors_identical"].get<bool>());
  for (const auto& t : j["tables"]) {
    EXPECT_EQ(t["source_rows"], t["dest_rows"]) << t.dump();
  }
  EXPECT_EQ(j["tables"][0]["table"], "runs");
  EXPECT_EQ(j["tables"][0]["dest_rows"], 2);
  EXPECT_EQ(query_value(dst, "SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(query_value(dst, "SELECT value FROM rfdb_meta WHERE key = 'copy_state'"), "verified");

  // A verified copy is refused, untouched, saying it is one.
  const auto before = read_bytes(dst);
  r = run_cli({"copy", "--from", src.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the destination is a verified copy of " + src.string() + " already"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hint: it is a verified copy already"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(dst), before);

  // A copy whose verification failed is refused naming the state and what to do.
  {
    SQLite::Database conn(dst.string(), SQLite::OPEN_READWRITE);
    conn.exec("UPDATE rfdb_meta SET value = 'verification failed' WHERE key = 'copy_state'");
  }
  r = run_cli({"copy", "--from", src.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("in state 'verification failed'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: its verification failed: remove it and copy again"), std::string::npos)
      << r.err;

  // An unverified copy of another source is not verified against this one.
  {
    SQLite::Database conn(dst.string(), SQLite::OPEN_READWRITE);
    conn.exec("UPDATE rfdb_meta SET value = 'copied, unverified' WHERE key = 'copy_state'");
  }
  const auto other = tmp / "other.sqlite";
  ingest_runs(other, {k_gemm_run});
  r = run_cli({"copy", "--from", other.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("in state 'copied, unverified'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: re-run `rfdb copy --from " + src.string()), std::string::npos) << r.err;
}

TEST(Copy, KnowledgeAloneIsDataToo)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  const auto dst = tmp / "b.sqlite";
  ASSERT_EQ(rfdb(dst, {"ingest", "-q", (fixtures_dir() / "knowledge" / "backend_playbook.md").string()}).code,
            0);
  ASSERT_EQ(query_value(dst, "SELECT count(*) FROM runs"), "0");
  const auto before = read_bytes(dst);
  const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the destination is not empty (sources: "), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(dst), before);
}

TEST(Copy, IntoAnEmptyExistingDatabase)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  const auto dst = tmp / "b.sqlite";
  ASSERT_EQ(rfdb(dst, {"migrate"}).code, 0); // created empty
  const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(without_copy_state(dump_tables(dst)), dump_tables(src));
}

TEST(Copy, TablesComeFromTheSchemaAndAFailedCopyLeavesNoNewFile)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  {
    // A table this rfdb's schema does not have: copied if the destination had it, so refused here.
    SQLite::Database conn(src.string(), SQLite::OPEN_READWRITE);
    conn.exec("CREATE TABLE zz_notes (run_id TEXT REFERENCES runs(run_id), note TEXT) STRICT");
  }
  const auto dst = tmp / "b.sqlite";
  const auto r = run_cli({"copy", "--from", src.string(), "--to", dst.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the destination has no table zz_notes"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dst));
  EXPECT_FALSE(fs::exists(dst.string() + "-wal"));
}

TEST(Copy, UsageAndSourceErrors)
{
  TempDir tmp;
  const auto src = tmp / "a.sqlite";
  ingest_runs(src, {k_gemm_run});
  auto r = run_cli({"copy", "--from", src.string(), "--to", src.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--from and --to name the same database"), std::string::npos) << r.err;
  r = run_cli({"copy", "--from", src.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  // A missing source is not created, and nothing is made at the destination.
  r = run_cli({"copy", "--from", (tmp / "none.sqlite").string(), "--to", (tmp / "c.sqlite").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no database at this path"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: --from names an existing rfdb database"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "none.sqlite"));
  // The hints speak of --to, not of --db, which copy does not take.
  r = run_cli({"copy", "--from", src.string(), "--to", (tmp / "nodir" / "x.sqlite").string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("copy: into "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: --to names a new SQLite file"), std::string::npos) << r.err;
  r = run_cli({"copy", "--from", src.string(), "--to", tmp.path().string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("hint: --to names a new SQLite file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "c.sqlite"));
  // A source that is not an rfdb database: exit 3.
  write_bytes(tmp / "foreign.sqlite", "not a database at all, just text that is long enough to be read");
  r = run_cli({"copy", "--from", (tmp / "foreign.sqlite").string(), "--to", (tmp / "d.sqlite").string()});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "d.sqlite"));
}

} // namespace rfdb::test
