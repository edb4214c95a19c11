// Ingest's trust limits end to end (issue 8, "Copies, links, limits"): copies
// of a stored run, symlinks and special files inside an eval dir, duplicate
// JSON keys, the file-size limit and early-milestone dirs. Every refusal
// exits 1 with the file named and leaves the database byte-for-byte as it was.
#include "support/helpers.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

const std::string k_copy_name = "e2e_Qwen-Qwen3-32B_20260801_000000_1_copy";

void append(const fs::path& file, const std::string& text)
{
  write_bytes(file, read_bytes(file) + text);
}

// Replace the first occurrence of `from` in `file` with `to`.
void patch(const fs::path& file, const std::string& from, const std::string& to)
{
  std::string text = read_bytes(file);
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << file;
  text.replace(at, from.size(), to);
  write_bytes(file, text);
}

// Copy fixture run `name` to `dir/new_name`.
fs::path copy_run_as(const std::string& name, const fs::path& dir, const std::string& new_name)
{
  fs::copy(run_fixture(name), dir / new_name, fs::copy_options::recursive);
  return dir / new_name;
}

bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

// A database holding the gemm sample run, and its bytes.
struct StoredGemm {
  TempDir tmp;
  fs::path db = tmp / "rfdb.sqlite";
  std::string before;
  StoredGemm()
  {
    const auto r = run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()});
    EXPECT_EQ(r.code, 0) << r.err;
    before = read_bytes(db);
  }
};

} // namespace

// ---- copies

TEST(IngestCopies, ACopyDifferingByOneTrailingSpaceIsRefusedNamingTheStoredRun)
{
  StoredGemm s;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM attempts WHERE isolated_speedup IS NOT NULL "
                              "OR e2e_delta_pct IS NOT NULL"),
            "3");
  const auto copy = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  append(copy / "overlay/cand_fused_add_rmsnorm_kernel/integrate_result.json", " ");
  auto r = run_cli({"--db", s.db.string(), "ingest", copy.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: error: ingest: " + copy.string() + ": a copy of stored run '" + k_gemm_run +
                          "' (same model, gfx, backend and workload, and the same 3 measured attempts)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "hint: if it is the same run, ingest it as --run " + k_gemm_run)) << r.err;
  EXPECT_TRUE(contains(r.err, "pass --allow-copy")) << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT group_concat(run_id) FROM runs"), k_gemm_run);
  EXPECT_EQ(read_bytes(s.db), s.before);
}

TEST(IngestCopies, ReformattedJsonIsStillACopy)
{
  StoredGemm s;
  const auto copy = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  // Every JSON file re-indented: no sha256 matches any more.
  for (const auto& e : fs::recursive_directory_iterator(copy)) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      std::string text = read_bytes(e.path());
      std::string out;
      for (const char c : text) {
        out += c;
        if (c == '\n') {
          out += "  ";
        }
      }
      write_bytes(e.path(), out + "\n");
    }
  }
  auto r = run_cli({"--db", s.db.string(), "ingest", copy.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "a copy of stored run '" + k_gemm_run + "'")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
}

TEST(IngestCopies, AllowCopyStoresBoth)
{
  StoredGemm s;
  const auto copy = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  append(copy / "env_report.json", " ");
  // A dry run says what it would do, and stores nothing.
  auto r = run_cli({"--db", s.db.string(), "ingest", "--dry-run", "--allow-copy", copy.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: note: " + k_copy_name + ": a copy of stored run '" + k_gemm_run +
                                  "' (same model, gfx, backend and workload, and the same 3 measured "
                                  "attempts): would be stored anyway (--allow-copy)"))
      << r.err;
  EXPECT_FALSE(contains(r.err, ": stored anyway")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
  r = run_cli({"--db", s.db.string(), "ingest", "--allow-copy", copy.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: note: " + k_copy_name + ": a copy of stored run '" + k_gemm_run +
                                  "' (same model, gfx, backend and workload, and the same 3 measured "
                                  "attempts): stored anyway (--allow-copy)"))
      << r.err;
  EXPECT_EQ(
      query_value(s.db, "SELECT group_concat(run_id, ' ') FROM (SELECT run_id FROM runs ORDER BY run_id)"),
      k_gemm_run + " " + k_copy_name);
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM attempts WHERE run_id = '" + k_copy_name + "'"),
            query_value(s.db, "SELECT count(*) FROM attempts WHERE run_id = '" + k_gemm_run + "'"));
}

TEST(IngestCopies, ARetractedRunStillCountsAsTheOriginal)
{
  StoredGemm s;
  ASSERT_EQ(run_cli({"--db", s.db.string(), "retract", k_gemm_run, "--reason", "bad node"}).code, 0);
  const std::string before = read_bytes(s.db);
  const auto copy = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  auto r = run_cli({"--db", s.db.string(), "ingest", copy.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "a copy of stored run '" + k_gemm_run + "'")) << r.err;
  EXPECT_EQ(read_bytes(s.db), before);
}

TEST(IngestCopies, SameAttemptsUnderAnotherWorkloadAreNotACopy)
{
  StoredGemm s;
  const auto other = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  patch(other / "env_report.json", "\"conc\": 32", "\"conc\": 64");
  auto r = run_cli({"--db", s.db.string(), "ingest", other.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM runs"), "2");
}

// One kernel attempt changed beyond the rounding step: the other two still
// repeat the stored run's measurements, so it is a partial copy; below the
// step it is the same measurement everywhere: a copy.
TEST(IngestCopies, ADifferentMeasuredSpeedupOnOneAttemptLeavesAPartialCopy)
{
  StoredGemm s;
  const auto other = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  // The hipBLASLt tuning attempt, stated only in the ledger: 1.03 → 1.031 (10 rounding steps).
  patch(other / "workflow_return.json", "\"isolated_speedup\": 1.03,", "\"isolated_speedup\": 1.031,");
  auto r = run_cli({"--db", s.db.string(), "ingest", other.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.err, "a partial copy of stored run '" + k_gemm_run +
                          "' (same model, gfx, backend and workload, and 2 shared measured kernel attempts: "
                          "cand:cand_Cijk_Alik_Bljk_BBS_BH_MT256x256x64_aiter, "
                          "cand:cand_fused_add_rmsnorm_kernel): its evidence would count twice"))
      << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
  // Below the rounding step it is the same measurement: a copy.
  const auto third = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name + "3");
  patch(third / "workflow_return.json", "\"isolated_speedup\": 1.03,", "\"isolated_speedup\": 1.03001,");
  r = run_cli({"--db", s.db.string(), "ingest", third.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "a copy of stored run '" + k_gemm_run + "'")) << r.err;
}

// Every kernel attempt measured anew (another isolated speedup on each):
// the same kernels and levers under the same identity are another run.
TEST(IngestCopies, DifferentSpeedupsOnEveryKernelAttemptAreNotACopy)
{
  StoredGemm s;
  const auto other = copy_run_as(k_gemm_run, s.tmp.path(), k_copy_name);
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"1.03,", "1.031,"}, {"1.28", "1.2815"}, {"1.1,", "1.1012,"}}) {
    for (const auto& e : fs::recursive_directory_iterator(other)) {
      if (e.is_regular_file() && e.path().extension() == ".json") {
        std::string text = read_bytes(e.path());
        for (const std::string key : {"\"isolated_speedup\": ", "\"isolated\": ", "\"micro_speedup\": "}) {
          for (auto at = text.find(key + from); at != std::string::npos; at = text.find(key + from, at + 1)) {
            text.replace(at + key.size(), from.size(), to);
          }
        }
        write_bytes(e.path(), text);
      }
    }
  }
  auto r = run_cli({"--db", s.db.string(), "ingest", other.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM runs"), "2");
}

// The issue's snapshot: a dev run (D6) copied under a new name with one
// candidate removed (its overlay dir and its ledger row) is no longer the
// same multiset of attempts, but its other three kernel attempts repeat the
// stored run's: refused as a partial copy naming them; --allow-copy stores
// it with the note; --run D6 adds it to the stored run.
TEST(IngestCopies, ASnapshotWithOneCandidateRemovedIsAPartialCopy)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const std::string d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (fixtures_dir() / "dev-runs" / d6).string()}).code, 0);
  const std::string before = read_bytes(db);
  const std::string snap_name = "e2e_Qwen3.5-27B-FP8_20260823_101010_1_snap";
  const auto snap = tmp / snap_name;
  fs::copy(fixtures_dir() / "dev-runs" / d6, snap, fs::copy_options::recursive);
  fs::remove_all(snap / "overlay/cand__w8a8_block_fp8_matmul_aiter_swap");
  auto wf = nlohmann::json::parse(read_bytes(snap / "workflow_return.json"));
  auto& ledger = wf["state"]["history"]["ledger"];
  ASSERT_EQ(ledger[0]["direction"], "_w8a8_block_fp8_matmul:ck");
  ledger.erase(ledger.begin());
  write_bytes(snap / "workflow_return.json", wf.dump(2));

  auto r = run_cli({"--db", db.string(), "ingest", snap.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  const std::string why =
      "a partial copy of stored run '" + d6 +
      "' (same model, gfx, backend and workload, and 3 shared measured kernel attempts: "
      "cand:cand__w8a8_block_fp8_matmul_ck_tuned, cand:cand__w8a8_block_fp8_matmul_flydsl, "
      "cand:cand__w8a8_block_fp8_matmul_triton)";
  EXPECT_TRUE(contains(r.err, why + ": its evidence would count twice")) << r.err;
  EXPECT_TRUE(contains(r.err, "hint: if it is the same run, ingest it as --run " + d6)) << r.err;
  EXPECT_EQ(read_bytes(db), before);

  r = run_cli({"--db", db.string(), "ingest", "--allow-copy", snap.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: note: " + snap_name + ": " + why + ": stored anyway (--allow-copy)"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts WHERE run_id = '" + snap_name +
                                "' AND measured = 1 "
                                "AND kind = 'kernel'"),
            "3");

  // The same snapshot added to the stored run instead: no second run.
  const auto other_db = tmp / "other.sqlite";
  ASSERT_EQ(run_cli({"--db", other_db.string(), "ingest", (fixtures_dir() / "dev-runs" / d6).string()}).code,
            0);
  r = run_cli({"--db", other_db.string(), "ingest", "--run", d6, snap.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(other_db, "SELECT count(*) FROM runs"), "1");
}

// Config trials alone never make a copy: an independent sweep of the same
// identity can repeat a coarse e2e delta (D6's --async-scheduling +1.1 %).
TEST(IngestCopies, ARunSharingOnlyConfigTrialDeltasIsNotACopy)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const std::string d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
  const fs::path src = fixtures_dir() / "dev-runs" / d6;
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", src.string()}).code, 0);
  const auto sweep = tmp / "e2e_Qwen3.5-27B-FP8_20260901_080000_1_sweep";
  fs::create_directories(sweep / "config");
  fs::copy_file(src / "env_report.json", sweep / "env_report.json");
  // Its own file (one more space), the same trial deltas.
  write_bytes(sweep / "config/sweep_results.json", read_bytes(src / "config/sweep_results.json") + " ");
  const auto r = run_cli({"--db", db.string(), "ingest", sweep.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts WHERE run_id = '" + sweep.filename().string() +
                                "' AND kind = 'config' AND e2e_delta_pct IS NOT NULL"),
            "3");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs"), "2");
}

// A run without measured attempts is a copy only when every file matches.
TEST(IngestCopies, WithoutMeasuredAttemptsOnlyIdenticalFilesMakeACopy)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto make_run = [&](const std::string& name) {
    const auto dir = tmp / name;
    fs::create_directories(dir / "baseline");
    fs::copy_file(run_fixture(k_gemm_run) / "env_report.json", dir / "env_report.json");
    fs::copy_file(run_fixture(k_gemm_run) / "baseline/bench_summary.json",
                  dir / "baseline/bench_summary.json");
    return dir;
  };
  const auto first = make_run("e2e_early_20260801_000000_1_a");
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", first.string()}).code, 0);
  ASSERT_EQ(query_value(db, "SELECT count(*) FROM attempts"), "0");

  const auto same = make_run("e2e_early_20260802_000000_1_b");
  const std::string before = read_bytes(db);
  auto r = run_cli({"--db", db.string(), "ingest", same.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "a copy of stored run 'e2e_early_20260801_000000_1_a' (same model, gfx, "
                              "backend and workload, and every file already stored there)"))
      << r.err;
  EXPECT_EQ(read_bytes(db), before);

  // One trailing space: without measured attempts nothing says it is the same run.
  append(same / "baseline/bench_summary.json", " ");
  r = run_cli({"--db", db.string(), "ingest", same.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs"), "2");
}

// Two renamed copies at the same moment, each with its own connection: the
// check inside BEGIN IMMEDIATE lets exactly one land.
TEST(IngestCopies, TwoConcurrentRenamedCopiesEndAsOneRun)
{
  for (int round = 0; round < 3; ++round) {
    TempDir tmp;
    const auto db = tmp / "rfdb.sqlite";
    // An unrelated run first: the database exists before the race.
    ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_attn_run).string()}).code, 0);
    const auto a = copy_run_as(k_gemm_run, tmp.path(), "e2e_Qwen-Qwen3-32B_20260801_000000_1_a");
    const auto b = copy_run_as(k_gemm_run, tmp.path(), "e2e_Qwen-Qwen3-32B_20260801_000000_2_b");
    append(b / "workflow_return.json", " ");
    std::array<CliResult, 2> results;
    std::thread ta([&] { results[0] = run_cli({"--db", db.string(), "ingest", a.string()}); });
    std::thread tb([&] { results[1] = run_cli({"--db", db.string(), "ingest", b.string()}); });
    ta.join();
    tb.join();
    const int ok = (results[0].code == 0 ? 1 : 0) + (results[1].code == 0 ? 1 : 0);
    ASSERT_EQ(ok, 1) << "round " << round << ": " << results[0].err << results[1].err;
    const CliResult& refused = results[0].code == 0 ? results[1] : results[0];
    EXPECT_EQ(refused.code, 1) << refused.err;
    EXPECT_TRUE(contains(refused.err, "a copy of stored run 'e2e_Qwen-Qwen3-32B_20260801_000000_"))
        << refused.err;
    EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs WHERE run_id != '" + k_attn_run + "'"), "1");
  }
}

// ---- symlinks and special files

TEST(IngestLinks, SymlinkedProfileDirAndEnvReportInsideTheEvalDirAreFollowed)
{
  TempDir tmp;
  const auto plain_db = tmp / "plain.sqlite";
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", plain_db.string(), "ingest", run_fixture(k_canonical_run).string()}).code, 0);
  const std::string kernels = query_value(plain_db, "SELECT count(*) FROM kernel_samples");
  ASSERT_NE(kernels, "0");

  const auto run = copy_run(k_canonical_run, tmp.path());
  fs::rename(run / "profile", run / "raw_profile");
  fs::create_directory_symlink("raw_profile", run / "profile");
  fs::create_directories(run / "meta");
  fs::rename(run / "env_report.json", run / "meta/env.json");
  fs::create_symlink("meta/env.json", run / "env_report.json");
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kernel_samples"), kernels);
  EXPECT_EQ(query_value(db, "SELECT gfx FROM runs"), "gfx950");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path LIKE 'profile/round_%'"),
            query_value(plain_db, "SELECT count(*) FROM sources WHERE rel_path LIKE 'profile/round_%'"));
}

TEST(IngestLinks, SymlinkLeavingTheEvalDirIsRefusedWithAWarningAndStrictFails)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  fs::rename(run / "workflow_return.json", s.tmp / "outside.json");
  fs::create_symlink(s.tmp / "outside.json", run / "workflow_return.json");

  auto r = run_cli({"--db", s.db.string(), "ingest", "--strict", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.err, "--strict: refused to read workflow_return.json (symlink leaving the eval dir (→ " +
                          fs::canonical(s.tmp / "outside.json").string() + "))"))
      << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);

  r = run_cli({"--db", s.db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": workflow_return.json: not read: symlink leaving the eval dir"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE run_id = '" + k_canonical_run + "'"), "17");
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE run_id = '" + k_canonical_run +
                                  "' AND rel_path = 'workflow_return.json'"),
            "0");
}

TEST(IngestLinks, SymlinkLoopIsRefusedNotFollowedForever)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  fs::create_directory_symlink("..", run / "profile/round_0/up");
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: warning: " + k_canonical_run + ": profile/round_0/up: not read: symlink loop"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "18");
}

TEST(IngestLinks, FifoNamedLikeAnArtifactDoesNotHangAndIsRefused)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  const auto fifo = run / "director_e2e_validation.json";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_cli({"--db", s.db.string(), "ingest", "--strict", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--strict: refused to read director_e2e_validation.json (a FIFO)")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);

  r = run_cli({"--db", s.db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": director_e2e_validation.json: not read: a FIFO"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE run_id = '" + k_canonical_run + "'"), "17");
}

TEST(IngestLinks, DirectoryNamedLikeAnArtifactIsRefusedNotSkippedInSilence)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  const auto dir = run / "director_e2e_validation.json";
  fs::remove(dir);
  fs::create_directory(dir);
  auto r = run_cli({"--db", s.db.string(), "ingest", "--strict", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--strict: refused to read director_e2e_validation.json (a directory, not the "
                              "artifact file its name says)"))
      << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);

  r = run_cli({"--db", s.db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": director_e2e_validation.json: not read: a directory, not the "
                                  "artifact file its name says"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE run_id = '" + k_canonical_run + "'"), "17");
}

// ---- duplicate JSON keys

TEST(IngestDuplicateKeys, MeasuredKeyWithDifferentValuesFailsAndChangesNothing)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  const std::string file = "overlay/cand_fused_moe_kernel/integrate_result.json";
  patch(run / file, "\"isolated_speedup\": 1.047", "\"isolated_speedup\": 1.047, \"isolated_speedup\": 5.0");
  auto r = run_cli({"--db", s.db.string(), "ingest", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, file + ": /isolated_speedup: duplicate key 'isolated_speedup' with different "
                                     "values (1.047, then 5.0)"))
      << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
}

TEST(IngestDuplicateKeys, NestedMeasuredKeyIsNamedByItsPointer)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  const std::string file = "profile/round_0/profile_roofline.json";
  patch(run / file, "\"roofline_pct\": 0.88", "\"roofline_pct\": 0.88, \"roofline_pct\": 0.18");
  auto r = run_cli({"--db", s.db.string(), "ingest", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, file + ": /entries/0/roofline_pct: duplicate key")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
}

TEST(IngestDuplicateKeys, OtherOrEqualDuplicatesAreWarningsNamingFileAndPointer)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  patch(run / "env_report.json", "{", R"({"note": "first", "note": "second",)");
  patch(run / "overlay/cand_fused_moe_kernel/integrate_result.json", "\"isolated_speedup\": 1.047",
        "\"isolated_speedup\": 1.047, \"isolated_speedup\": \"1.0470\"");
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": env_report.json /note: duplicate key 'note': the last value is kept"))
      << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: warning: " + k_canonical_run +
                          ": overlay/cand_fused_moe_kernel/integrate_result.json "
                          "/isolated_speedup: duplicate key 'isolated_speedup' repeats the same value"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT isolated_speedup FROM attempts WHERE short_name = 'fused_moe_kernel'"),
            "1.047");
}

// ---- file size

TEST(IngestLimits, FileOverMaxFileSizeIsRefusedBeforeReadingNamingItsSize)
{
  StoredGemm s;
  const auto run = copy_run(k_canonical_run, s.tmp.path());
  // The walk goes in name order: baseline/bench_runs.jsonl is the first artifact it meets.
  const auto size = fs::file_size(run / "baseline/bench_runs.jsonl");
  ASSERT_GT(size, 100U);
  auto r = run_cli({"--db", s.db.string(), "ingest", "--max-file-size", "100", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "baseline/bench_runs.jsonl is " + std::to_string(size) +
                                  " bytes (1.1 KiB), over the limit of 100 bytes; not read"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "hint: raise the limit with --max-file-size")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);

  // Suffixes: 1K is 1024 bytes; the default admits the run.
  r = run_cli({"--db", s.db.string(), "ingest", "--max-file-size", "1K", run.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "over the limit of 1024 bytes (1.0 KiB)")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
  EXPECT_EQ(run_cli({"--db", s.db.string(), "ingest", "--max-file-size", "0", run.string()}).code, 2);
  r = run_cli({"--db", s.db.string(), "ingest", "--max-file-size", "64M", run.string()});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(IngestLimits, SingleArtifactOverTheLimitIsRefused)
{
  StoredGemm s;
  const auto file = run_fixture(k_canonical_run) / "profile/round_0/profile_topN.json";
  auto r = run_cli(
      {"--db", s.db.string(), "ingest", "--run", "manual_run", "--max-file-size", "100", file.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "profile_topN.json is " + std::to_string(fs::file_size(file)) + " bytes"))
      << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
}

// ---- what counts as an eval dir

TEST(IngestEvalDirs, EarlyMilestoneDirGetsTheMissingEnvReportError)
{
  StoredGemm s;
  const auto dir = s.tmp / "early";
  write_bytes(dir / "env_info.txt", "ROCm 7.0\n");
  write_bytes(dir / "model_path.txt", "/models/Qwen3-32B\n");
  auto r = run_cli({"--db", s.db.string(), "ingest", dir.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "missing env_report.json")) << r.err;
  EXPECT_FALSE(contains(r.out, "knowledge")) << r.out;
  EXPECT_EQ(read_bytes(s.db), s.before);

  // The parent of such a dir stands for it.
  r = run_cli({"--db", s.db.string(), "ingest", s.tmp.path().string()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "early: missing env_report.json")) << r.err;
}

TEST(IngestEvalDirs, ADirNamedLikeAnEvalDirIsOneEvenWhenEmpty)
{
  StoredGemm s;
  const auto dir = s.tmp / "e2e_Qwen-Qwen3-32B_20260901_101010_77_new";
  fs::create_directories(dir);
  write_bytes(dir / "notes.md", "# started\n");
  auto r = run_cli({"--db", s.db.string(), "ingest", dir.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "missing env_report.json")) << r.err;
  EXPECT_EQ(read_bytes(s.db), s.before);
}

// ---- many runs in one command: the prefetch threads load, parse and
// compress the files of the runs ahead (from the tenth run on)

TEST(IngestAhead, ManyRunsInOneCommandStoreAndReportWhatOneRunPerCommandDoes)
{
  TempDir tmp;
  const auto runs = tmp / "runs";
  fs::create_directories(runs);
  std::vector<fs::path> dirs;
  for (int i = 0; i < 14; ++i) {
    dirs.push_back(copy_run_as(k_canonical_run, runs, fmt::format("e2e_Copy_20260801_0000{:02}_{}", i, i)));
  }
  patch(dirs[11] / "env_report.json", "{", R"({"note": "first", "note": "second",)");
  const std::string bad = "overlay/cand_fused_moe_kernel/integrate_result.json";
  patch(dirs[12] / bad, "\"isolated_speedup\": 1.047",
        "\"isolated_speedup\": 1.047, \"isolated_speedup\": 5.0");
  const auto together = tmp / "together.sqlite";
  const auto one_by_one = tmp / "one_by_one.sqlite";
  const auto all =
      run_cli({"--db", together.string(), "ingest", "--allow-copy", "--format", "json", runs.string()});
  EXPECT_EQ(all.code, 1) << all.err;
  EXPECT_TRUE(contains(all.err, bad + ": /isolated_speedup: duplicate key 'isolated_speedup' with different"))
      << all.err;
  EXPECT_TRUE(contains(all.err, "env_report.json /note: duplicate key 'note': the last value is kept"))
      << all.err;
  const auto report = nlohmann::json::parse(all.out);
  ASSERT_EQ(report.at("paths").size(), dirs.size());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const auto one = run_cli(
        {"--db", one_by_one.string(), "ingest", "--allow-copy", "--format", "json", dirs[i].string()});
    EXPECT_EQ(one.code, i == 12 ? 1 : 0) << one.err;
    EXPECT_EQ(report.at("paths").at(i), nlohmann::json::parse(one.out).at("paths").at(0)) << dirs[i];
  }
  const std::string frames = "SELECT group_concat(run_id || rel_path || hex(raw_zst), ',') FROM "
                             "(SELECT * FROM sources ORDER BY run_id, rel_path)";
  EXPECT_EQ(query_value(together, frames), query_value(one_by_one, frames));
  EXPECT_EQ(run_cli({"--db", together.string(), "export"}).out,
            run_cli({"--db", one_by_one.string(), "export"}).out);
  EXPECT_EQ(query_value(together, "SELECT count(*) FROM runs"), "13");
}

} // namespace rfdb::test
