// End-to-end ingest through the CLI, in-process: real values after ingest,
// idempotence, the stage A→B supersede, and every class of bad input failing
// with file + JSON pointer, exit 1 and the database byte-for-byte unchanged.
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <sys/stat.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json show(const fs::path& db, const std::string& run)
{
  auto r = run_cli({"--db", db.string(), "show", run, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out);
}

// Ingest the eval dir `run` into `db` (exit 0 expected) and return its
// status: "added", "updated" or "unchanged".
std::string ingest_status(const fs::path& db, const fs::path& run)
{
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "json", run.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out)["paths"][0]["status"].get<std::string>();
}

const json& find_by(const json& arr, const std::string& key, const std::string& value)
{
  for (const auto& e : arr) {
    if (e.value(key, "") == value) {
      return e;
    }
  }
  static const json none;
  ADD_FAILURE() << "no element with " << key << " = " << value;
  return none;
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

} // namespace

TEST(Ingest, CanonicalRunStoresVerdictsAndAttemptWithPrediction)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  auto r =
      run_cli({"--db", db.string(), "ingest", "--format", "table", run_fixture(k_canonical_run).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(k_canonical_run + " added: 18 new file(s)"), std::string::npos) << r.out;

  const json run = show(db, k_canonical_run);
  EXPECT_EQ(run["gfx"], "gfx950");
  EXPECT_EQ(run["backend"], "vllm");
  EXPECT_EQ(run["model_arch_class"], "hybrid_linear_attention_moe");
  EXPECT_EQ(run["workload"]["isl"], 1024);
  EXPECT_EQ(run["workload"]["osl"], 1024);
  EXPECT_EQ(run["workload"]["conc"], 64);

  const json& moe = find_by(run["verdicts"], "short_name", "fused_moe_kernel");
  EXPECT_DOUBLE_EQ(moe["roofline_pct"].get<double>(), 0.88);
  EXPECT_EQ(moe["headroom_class"], "saturated");
  EXPECT_EQ(moe["bound_type"], "memory");
  EXPECT_EQ(moe["op_class"], "moe");
  EXPECT_EQ(moe["stage"], "B");
  EXPECT_EQ(moe["confidence"], "medium");
  EXPECT_DOUBLE_EQ(moe["attainable_speedup"].get<double>(), 1.023);

  const json& attn = find_by(run["verdicts"], "short_name", "kernel_paged_attention_2d");
  EXPECT_DOUBLE_EQ(attn["roofline_pct"].get<double>(), 0.18);
  EXPECT_EQ(attn["headroom_class"], "underperforming");

  const json& att = find_by(run["attempts"], "short_name", "fused_moe_kernel");
  EXPECT_DOUBLE_EQ(att["isolated_speedup"].get<double>(), 1.047);
  EXPECT_DOUBLE_EQ(att["e2e_delta_pct"].get<double>(), -0.064);
  EXPECT_DOUBLE_EQ(att["prediction"]["attainable_speedup"].get<double>(), 1.023);
  EXPECT_DOUBLE_EQ(att["prediction"]["roofline_pct"].get<double>(), 0.88);
  EXPECT_EQ(att["prediction"]["headroom_class"], "saturated");
  EXPECT_DOUBLE_EQ(att["prediction"]["pct_gpu_time"].get<double>(), 26.45);
  // One attempt citing every file that describes it.
  const auto sources = att["sources"].get<std::vector<std::string>>();
  EXPECT_EQ(sources, (std::vector<std::string>{"kernels/fused_moe_kernel_task/opbench_result.json",
                                               "overlay/cand_fused_moe_kernel/integrate_result.json",
                                               "workflow_return.json"}));

  const json& paged = find_by(run["attempts"], "short_name", "kernel_paged_attention_2d");
  EXPECT_DOUBLE_EQ(paged["isolated_speedup"].get<double>(), 1.56);
  EXPECT_TRUE(paged["e2e_delta_pct"].is_null());
  EXPECT_DOUBLE_EQ(paged["prediction"]["attainable_speedup"].get<double>(), 2.778);
}

TEST(Ingest, StageCMeasuredRooflineLinksTaskToProfiledKernel)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_attn_run).string()}).code, 0);
  const json run = show(db, k_attn_run);
  const json& att = find_by(run["attempts"], "short_name", "decode_attention");
  EXPECT_DOUBLE_EQ(att["isolated_speedup"].get<double>(), 1.72);
  EXPECT_DOUBLE_EQ(att["prediction"]["roofline_pct"].get<double>(), 0.31);
  EXPECT_DOUBLE_EQ(att["prediction"]["attainable_speedup"].get<double>(), 1.613);
  EXPECT_EQ(att["prediction"]["confidence"], "high");
  EXPECT_DOUBLE_EQ(att["prediction"]["pct_gpu_time"].get<double>(), 31.74);
  // The post roofline's measured efficiency is kept for calibration.
  EXPECT_EQ(query_value(db, "SELECT post_efficiency FROM attempts WHERE short_name = 'decode_attention'"),
            "0.58");
}

TEST(Ingest, SuspectAndDispatchBoundVerdictsHaveNoHeadroom)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()}).code, 0);
  EXPECT_EQ(query_value(db,
                        "SELECT headroom_class || ',' || suspect || ',' || roofline_pct_raw FROM verdicts "
                        "WHERE short_name = 'fused_add_rmsnorm_kernel' AND round = '0'"),
            "unknown,1,1.35");
  EXPECT_EQ(query_value(db,
                        "SELECT headroom_class || ',' || dispatch_bound || ',' || bound_type FROM verdicts "
                        "WHERE short_name = 'vectorized_elementwise_kernel' AND round = '0'"),
            "unknown,1,latency");
}

TEST(Ingest, ReingestingTheSameDirChangesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_canonical_run).string()}).code, 0);
  const std::string before = dump_tables(db);
  auto r =
      run_cli({"--db", db.string(), "ingest", "--format", "table", run_fixture(k_canonical_run).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("unchanged: 0 new file(s), 0 superseded, 18 unchanged"), std::string::npos) << r.out;
  EXPECT_EQ(dump_tables(db), before);
}

// "Unchanged" is decided from size + mtime before any file is read: a file
// rewritten with the same size and mtime is not re-read (the trade-off of
// rsync and make); a touched file is re-hashed, stays unchanged and has its
// new stat recorded; a changed mtime makes the new content count.
TEST(Ingest, ReingestDecidesUnchangedFromTheStatBeforeReading)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  const auto status = [&] { return ingest_status(db, run); };
  ASSERT_EQ(status(), "added");
  const auto env = run / "env_report.json";
  const std::string stored_sha = "SELECT hex(sha256) FROM sources WHERE rel_path = 'env_report.json' AND "
                                 "superseded_by IS NULL";
  const std::string sha_before = query_value(db, stored_sha);
  const std::string stored_mtime = "SELECT mtime_ns FROM sources WHERE rel_path = 'env_report.json'";
  EXPECT_EQ(query_value(db, "SELECT bytes FROM sources WHERE rel_path = 'env_report.json'"),
            std::to_string(fs::file_size(env)));
  const std::string mtime_ns = query_value(db, stored_mtime);
  const std::string before = dump_tables(db);

  // Same size and mtime, other content: not read, so still unchanged.
  const auto mtime = fs::last_write_time(env);
  const std::string original = read_bytes(env);
  std::string edited = original;
  const auto at = edited.find("\": ");
  ASSERT_NE(at, std::string::npos);
  edited[at + 2] = '\t';
  ASSERT_EQ(edited.size(), original.size());
  write_bytes(env, edited);
  fs::last_write_time(env, mtime);
  EXPECT_EQ(status(), "unchanged");
  EXPECT_EQ(dump_tables(db), before) << "nothing read, nothing written";

  // Touched with its original content: re-hashed, unchanged, new stat recorded.
  write_bytes(env, original);
  const auto touched = mtime + std::chrono::seconds(5);
  fs::last_write_time(env, touched);
  EXPECT_EQ(status(), "unchanged");
  EXPECT_EQ(query_value(db, stored_sha), sha_before);
  const std::string touched_ns = query_value(db, stored_mtime);
  EXPECT_EQ(touched_ns, std::to_string(std::stoll(mtime_ns) + 5'000'000'000));
  EXPECT_EQ(status(), "unchanged");
  EXPECT_EQ(query_value(db, stored_mtime), touched_ns) << "recorded once";

  // The other content with a new mtime: read, stored as a new version.
  write_bytes(env, edited);
  fs::last_write_time(env, touched + std::chrono::seconds(5));
  EXPECT_EQ(status(), "updated");
  EXPECT_NE(query_value(db, stored_sha), sha_before);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path = 'env_report.json'"), "2");
}

// A file deleted from the eval dir (a clean-up of raw artifacts) stays in the
// store: rfdb is the run's memory, and `rfdb retract` is how evidence is
// withdrawn. The re-ingest is decided from the stat of the files still there,
// without reading them.
TEST(Ingest, AFileDeletedFromTheEvalDirStaysStoredAndIsNotReadAgain)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  const auto status = [&] { return ingest_status(db, run); };
  ASSERT_EQ(status(), "added");
  const std::string before = dump_tables(db);
  fs::remove(run / "config" / "sweep_results.json");
  EXPECT_EQ(status(), "unchanged");
  EXPECT_EQ(dump_tables(db), before) << "the deleted file's version and rows stay";

  // Not read: another file's content changed with its size and mtime kept
  // goes unseen, as for any run whose files all match their stat.
  const auto env = run / "env_report.json";
  const auto mtime = fs::last_write_time(env);
  std::string edited = read_bytes(env);
  const auto at = edited.find("\": ");
  ASSERT_NE(at, std::string::npos);
  edited[at + 2] = '\t';
  write_bytes(env, edited);
  fs::last_write_time(env, mtime);
  EXPECT_EQ(status(), "unchanged");
  EXPECT_EQ(dump_tables(db), before);
}

// Several runs in one call (their eval dirs listed ahead on a second
// thread): a file added to a run's directory, a file touched with its
// content unchanged and a file rewritten with the same size are each seen.
TEST(Ingest, ReingestOfSeveralRunsSeesAddedTouchedAndRewrittenFiles)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto runs = tmp / "runs";
  fs::create_directories(runs);
  for (const auto& name : k_all_runs) {
    copy_run(name, runs);
  }
  const auto ingest = [&] {
    auto r = run_cli({"--db", db.string(), "ingest", "-q", "--format", "json", runs.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    const json doc = json::parse(r.out);
    std::map<std::string, json> by_run;
    for (const auto& p : doc["paths"]) {
      by_run[p["target"].get<std::string>()] = p;
    }
    return by_run;
  };
  auto first = ingest();
  ASSERT_EQ(first.size(), 3U);
  for (const auto& name : k_all_runs) {
    EXPECT_EQ(first[name]["status"], "added") << name;
  }
  auto again = ingest();
  for (const auto& name : k_all_runs) {
    EXPECT_EQ(again[name]["status"], "unchanged") << name;
  }
  const std::string before = dump_tables(db);
  const std::string env_mtime = "SELECT mtime_ns FROM sources WHERE run_id = '" + k_canonical_run +
                                "' AND rel_path = 'env_report.json'";
  const std::string env_mtime_ns = query_value(db, env_mtime);

  // Added: a new artifact in an existing directory of the gemm run.
  const auto task = runs / k_gemm_run / "kernels/fused_add_rmsnorm_kernel_task";
  fs::copy_file(task / "opbench_result.json", task / "opbench_result_try2.json");
  // Touched: the canonical run's env_report.json, content unchanged.
  const auto env = runs / k_canonical_run / "env_report.json";
  const auto mtime = fs::last_write_time(env);
  fs::last_write_time(env, mtime + std::chrono::seconds(5));
  // Rewritten: the attention run's env_report.json, same size, other bytes.
  const auto attn_env = runs / k_attn_run / "env_report.json";
  std::string text = read_bytes(attn_env);
  const auto at = text.find("\": ");
  ASSERT_NE(at, std::string::npos);
  text[at + 2] = '\t';
  const auto attn_mtime = fs::last_write_time(attn_env);
  write_bytes(attn_env, text);
  fs::last_write_time(attn_env, attn_mtime + std::chrono::seconds(5));

  auto changed = ingest();
  EXPECT_EQ(changed[k_gemm_run]["status"], "updated");
  EXPECT_EQ(changed[k_gemm_run]["files"]["added"],
            json::array({"kernels/fused_add_rmsnorm_kernel_task/opbench_result_try2.json"}));
  EXPECT_EQ(changed[k_canonical_run]["status"], "unchanged");
  EXPECT_EQ(changed[k_attn_run]["status"], "updated");
  EXPECT_EQ(changed[k_attn_run]["files"]["superseded"], json::array({"env_report.json"}));
  EXPECT_NE(dump_tables(db), before);
  EXPECT_EQ(query_value(db, env_mtime), std::to_string(std::stoll(env_mtime_ns) + 5'000'000'000));
  auto settled = ingest();
  for (const auto& name : k_all_runs) {
    EXPECT_EQ(settled[name]["status"], "unchanged") << name;
  }
}

TEST(Ingest, IngestOrderDoesNotChangeDerivedRows)
{
  TempDir tmp;
  const auto a = tmp / "a.sqlite";
  const auto b = tmp / "b.sqlite";
  ASSERT_EQ(run_cli({"--db", a.string(), "ingest", run_fixture(k_canonical_run).string(),
                     run_fixture(k_gemm_run).string()})
                .code,
            0);
  ASSERT_EQ(run_cli({"--db", b.string(), "ingest", run_fixture(k_gemm_run).string(),
                     run_fixture(k_canonical_run).string()})
                .code,
            0);
  auto attempts = [](const fs::path& db) {
    return run_cli({"--db", db.string(), "export", "--format", "csv"}).out;
  };
  EXPECT_EQ(attempts(a), attempts(b));
}

TEST(Ingest, StageBRooflineSupersedesStageAAndKeepsItQueryable)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  const auto roofline = run / "profile/round_0/profile_roofline.json";
  const std::string stage_b = read_bytes(roofline);
  write_bytes(roofline, read_bytes(fixtures_dir() / "variants/canonical_profile_roofline.stage_A.json"));
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run.string()}).code, 0);
  EXPECT_EQ(
      query_value(db,
                  "SELECT stage || ',' || roofline_pct FROM verdicts WHERE short_name = 'fused_moe_kernel'"),
      "A,0.85");

  write_bytes(roofline, stage_b);
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "table", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("updated: 1 new file(s), 1 superseded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("superseded profile/round_0/profile_roofline.json"), std::string::npos) << r.out;
  EXPECT_EQ(query_value(db, "SELECT stage || ',' || roofline_pct FROM verdicts "
                            "WHERE short_name = 'fused_moe_kernel' AND superseded = 0"),
            "B,0.88");
  EXPECT_EQ(query_value(db, "SELECT stage || ',' || roofline_pct || ',' || confidence FROM verdicts "
                            "WHERE short_name = 'fused_moe_kernel' AND superseded = 1"),
            "A,0.85,low");
  // The attempt's prediction follows the current (stage B) verdict.
  EXPECT_EQ(
      query_value(db, "SELECT pred_attainable_speedup FROM attempts WHERE short_name = 'fused_moe_kernel'"),
      "1.023");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE superseded_by IS NOT NULL"), "1");
}

TEST(Ingest, AFileRevertedOnDiskMakesItsOlderVersionCurrentAgain)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  const auto roofline = run / "profile/round_0/profile_roofline.json";
  const std::string stage_b = read_bytes(roofline);
  const std::string stage_a = read_bytes(fixtures_dir() / "variants/canonical_profile_roofline.stage_A.json");
  write_bytes(roofline, stage_a);
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run.string()}).code, 0);
  write_bytes(roofline, stage_b);
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run.string()}).code, 0);
  const auto current_stage = [&] {
    return query_value(db, "SELECT stage || ',' || roofline_pct FROM verdicts "
                           "WHERE short_name = 'fused_moe_kernel' AND superseded = 0");
  };
  ASSERT_EQ(current_stage(), "B,0.88");

  // Back to stage A on disk (a later mtime): no third version is stored, the
  // stage A version is current again and the run is derived from it.
  write_bytes(roofline, stage_a);
  fs::last_write_time(roofline, fs::last_write_time(roofline) + std::chrono::seconds(5));
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "table", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("updated: 1 new file(s), 1 superseded"), std::string::npos) << r.out;
  EXPECT_EQ(current_stage(), "A,0.85");
  EXPECT_EQ(query_value(
                db, "SELECT count(*) FROM sources WHERE rel_path = 'profile/round_0/profile_roofline.json'"),
            "2");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE superseded_by IS NULL "
                            "AND rel_path = 'profile/round_0/profile_roofline.json'"),
            "1");

  // The revived version holds the file's stat, so the next ingest decides
  // "unchanged" without reading the file.
  struct stat st {};
  ASSERT_EQ(::stat(roofline.c_str(), &st), 0);
  EXPECT_EQ(
      query_value(db, "SELECT mtime_ns FROM sources WHERE superseded_by IS NULL "
                      "AND rel_path = 'profile/round_0/profile_roofline.json'"),
      std::to_string(static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec));
  const std::string before = dump_tables(db);
  r = run_cli({"--db", db.string(), "ingest", "--format", "json", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["paths"][0]["status"], "unchanged") << r.out;
  EXPECT_EQ(dump_tables(db), before);
}

// A reverted file is parsed again: the warnings of the version it goes back
// to are shown again, as when that version was first stored.
TEST(Ingest, AFileRevertedToAVersionWithAWarningWarnsAgain)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  const auto roofline = run / "profile/round_0/profile_roofline.json";
  const std::string clean = read_bytes(roofline);
  std::string misspelled = clean;
  const std::string from = "\"headroom_class\": \"saturated\"";
  ASSERT_NE(misspelled.find(from), std::string::npos);
  misspelled.replace(misspelled.find(from), from.size(), "\"headroom_class\": \"saturatedd\"");
  int step = 0;
  const auto warnings = [&](const std::string& text) {
    write_bytes(roofline, text);
    fs::last_write_time(roofline, fs::file_time_type::clock::now() + std::chrono::seconds(++step));
    const auto r = run_cli({"--db", db.string(), "ingest", "--format", "json", run.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    const json doc = json::parse(r.out);
    std::vector<std::string> out;
    for (const auto& w : doc["paths"][0]["warnings"]) {
      out.push_back(w["pointer"].get<std::string>());
    }
    return out;
  };
  const std::vector<std::string> headroom{"/entries/0/headroom_class"};
  EXPECT_EQ(warnings(misspelled), headroom);
  EXPECT_EQ(warnings(clean), std::vector<std::string>{});
  EXPECT_EQ(warnings(misspelled), headroom);
  EXPECT_EQ(query_value(
                db, "SELECT count(*) FROM sources WHERE rel_path = 'profile/round_0/profile_roofline.json'"),
            "2");
}

TEST(Ingest, DryRunReportsButWritesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()}).code, 0);
  const std::string before = read_bytes(db);
  auto r = run_cli({"--db", db.string(), "ingest", "--dry-run", "--format", "json",
                    run_fixture(k_canonical_run).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["paths"][0]["status"], "added");
  EXPECT_EQ(j["paths"][0]["rows"]["attempts"], 4);
  EXPECT_EQ(read_bytes(db), before);
}

TEST(Ingest, SingleArtifactNeedsRunAndLandsInThatRun)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto file = run_fixture(k_canonical_run) / "profile/round_0/profile_topN.json";
  auto r = run_cli({"--db", db.string(), "ingest", file.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("needs --run"), std::string::npos) << r.err;
  r = run_cli({"--db", db.string(), "ingest", "--run", "manual_run", file.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT rel_path FROM sources WHERE run_id = 'manual_run'"),
            "profile/round_0/profile_topN.json");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kernel_samples"), "10");
}

TEST(Ingest, UnknownClosedValueIsStoredAsUnknownWithAWarning)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  patch(run / "profile/round_0/profile_roofline.json", "\"bound_type\": \"memory\"",
        "\"bound_type\": \"dispatch\"");
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("rfdb: warning: " + k_canonical_run +
                       ": profile/round_0/profile_roofline.json /entries/0/bound_type"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("dispatch"), std::string::npos) << r.err;
  EXPECT_EQ(
      query_value(
          db,
          "SELECT bound_type || ',' || bound_type_raw FROM verdicts WHERE short_name = 'fused_moe_kernel'"),
      "unknown,dispatch");
}

// ---- bad input: exit 1, file + pointer named, database byte-for-byte unchanged

struct BadInput {
  const char* name;
  const char* file; // relative to the run dir
  std::string (*mutate)(std::string);
  const char* expect_in_error;
};

std::string replace_first(std::string text, const std::string& from, const std::string& to)
{
  const auto at = text.find(from);
  if (at != std::string::npos) {
    text.replace(at, from.size(), to);
  }
  return text;
}

const BadInput k_bad_inputs[] = {
    {"truncated_json", "profile/round_0/profile_topN.json",
     [](std::string t) { return t.substr(0, t.size() / 2); }, "profile/round_0/profile_topN.json"},
    {"wrong_type", "profile/round_0/profile_topN.json",
     [](std::string t) { return replace_first(t, "\"pct_gpu_time\": 26.45", "\"pct_gpu_time\": [26.45]"); },
     "/top_kernels/0/pct_gpu_time"},
    {"nan", "overlay/cand_fused_moe_kernel/integrate_result.json",
     [](std::string t) {
       return replace_first(t, "\"isolated_speedup\": 1.047", "\"isolated_speedup\": NaN");
     },
     "overlay/cand_fused_moe_kernel/integrate_result.json"},
    {"infinity", "profile/round_0/profile_roofline.json",
     [](std::string t) {
       return replace_first(t, "\"roofline_pct_raw\": 0.88", "\"roofline_pct_raw\": Infinity");
     },
     "profile/round_0/profile_roofline.json"},
    {"negative_speedup", "overlay/cand_fused_moe_kernel/integrate_result.json",
     [](std::string t) {
       return replace_first(t, "\"isolated_speedup\": 1.047", "\"isolated_speedup\": -1.047");
     },
     "/isolated_speedup"},
    {"pct_150", "profile/round_0/profile_topN.json",
     [](std::string t) { return replace_first(t, "\"pct_gpu_time\": 26.45", "\"pct_gpu_time\": 150"); },
     "/top_kernels/0/pct_gpu_time"},
    {"roofline_pct_raw_not_a_number", "profile/round_0/profile_roofline.json",
     [](std::string t) {
       return replace_first(t, "\"roofline_pct_raw\": 0.88", "\"roofline_pct_raw\": \"high\"");
     },
     "/entries/0/roofline_pct_raw"},
    {"implausible_speedup", "overlay/cand_fused_moe_kernel/integrate_result.json",
     [](std::string t) {
       return replace_first(t, "\"isolated_speedup\": 1.047", "\"isolated_speedup\": 1e308");
     },
     "is implausible"},
    {"negative_roofline_pct", "profile/round_0/profile_roofline.json",
     [](std::string t) { return replace_first(t, "\"roofline_pct\": 0.88", "\"roofline_pct\": -0.62"); },
     "/entries/0/roofline_pct"},
    {"empty_file", "workflow_return.json", [](std::string) { return std::string(); }, "workflow_return.json"},
    {"binary_garbage", "director_e2e_validation.json",
     [](std::string) { return std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18); },
     "director_e2e_validation.json"},
    {"deep_nesting", "env_report.json",
     [](std::string) { return std::string(10000, '[') + std::string(10000, ']'); }, "nesting deeper"},
};

class IngestBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(IngestBadInput, FailsNamingTheFileAndLeavesTheDatabaseUnchanged)
{
  const BadInput& bad = GetParam();
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()}).code, 0);
  const std::string before = read_bytes(db);
  const auto run = copy_run(k_canonical_run, tmp.path());
  write_bytes(run / bad.file, bad.mutate(read_bytes(run / bad.file)));
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("rfdb: error: ingest: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad.file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad.expect_in_error), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(db), before) << "database changed";
  EXPECT_FALSE(fs::exists(tmp / "rfdb.sqlite-wal") && fs::file_size(tmp / "rfdb.sqlite-wal") > 0);
}

INSTANTIATE_TEST_SUITE_P(AllClasses, IngestBadInput, ::testing::ValuesIn(k_bad_inputs),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(Ingest, MissingEnvReportFailsAndWritesNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()}).code, 0);
  const std::string before = read_bytes(db);
  const auto run = copy_run(k_canonical_run, tmp.path());
  fs::remove(run / "env_report.json");
  auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing env_report.json"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(db), before);
}

// An empty directory is not silently "unchanged": it warns. A path that is
// neither a file nor a directory fails with kind and target null.
TEST(Ingest, AnEmptyDirectoryWarnsAndAFifoFailsWithoutAKind)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  fs::create_directories(tmp / "empty");
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0600), 0);
  auto r = run_cli(
      {"--db", db.string(), "ingest", "--format", "json", (tmp / "empty").string(), (tmp / "fifo").string()});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc["paths"].size(), 2U) << r.out;
  EXPECT_EQ(doc["paths"][0]["kind"], "knowledge");
  EXPECT_EQ(doc["paths"][0]["status"], "unchanged");
  ASSERT_EQ(doc["paths"][0]["warnings"].size(), 1U) << r.out;
  EXPECT_NE(doc["paths"][0]["warnings"][0]["message"].get<std::string>().find("nothing to read here"),
            std::string::npos);
  EXPECT_EQ(doc["paths"][1]["status"], "failed");
  EXPECT_TRUE(doc["paths"][1]["kind"].is_null()) << r.out;
  EXPECT_TRUE(doc["paths"][1]["target"].is_null()) << r.out;
  EXPECT_NE(doc["paths"][1]["error"].get<std::string>().find("not a regular file or directory"),
            std::string::npos);
  EXPECT_EQ(r.out, nlohmann::ordered_json::parse(r.out).dump(2) + "\n");
}

// The --format json report is written path by path (spooled, so memory stays
// flat over thousands of runs) and must still be exactly nlohmann's indent-2
// dump of the whole document: warnings, a failed path and several runs.
TEST(Ingest, JsonReportOfSeveralPathsIsTheIndentedDocument)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto broken = copy_run(k_canonical_run, tmp.path());
  fs::remove(broken / "env_report.json");
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "json", run_fixture(k_gemm_run).string(),
                    broken.string(), run_fixture(k_canonical_run).string()});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc["paths"].size(), 3U) << r.out;
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["paths"][0]["status"], "added");
  EXPECT_EQ(doc["paths"][1]["status"], "failed");
  EXPECT_NE(doc["paths"][1]["error"].get<std::string>().find("missing env_report.json"), std::string::npos);
  EXPECT_EQ(doc["paths"][2]["status"], "added");
  EXPECT_EQ(r.out, nlohmann::ordered_json::parse(r.out).dump(2) + "\n");
  // Again: unchanged runs (written without building their JSON object) around
  // the failed path, in the same document.
  r = run_cli({"--db", db.string(), "ingest", "--format", "json", run_fixture(k_gemm_run).string(),
               broken.string(), run_fixture(k_canonical_run).string()});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto again = json::parse(r.out);
  ASSERT_EQ(again["paths"].size(), 3U) << r.out;
  EXPECT_EQ(again["paths"][0]["status"], "unchanged");
  EXPECT_EQ(again["paths"][0]["files"]["unchanged"], doc["paths"][0]["files"]["added"].size());
  EXPECT_EQ(again["paths"][0]["files"]["added"], json::array());
  EXPECT_EQ(again["paths"][0]["target"], doc["paths"][0]["target"]);
  EXPECT_EQ(again["paths"][1]["status"], "failed");
  EXPECT_EQ(again["paths"][2]["status"], "unchanged");
  EXPECT_EQ(r.out, nlohmann::ordered_json::parse(r.out).dump(2) + "\n");
}

} // namespace rfdb::test

namespace rfdb::test {

TEST(IngestPaths, TrailingSlashAndParentDirNameTheRunsByTheirDirectories)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  auto r = run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string() + "/"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT group_concat(run_id) FROM runs"), k_gemm_run);
  // The parent of eval dirs stands for the eval dirs in it.
  r = run_cli({"--db", db.string(), "ingest", "-q", runs_dir().string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM runs"), "3");
}

TEST(IngestPaths, ACopiedEvalDirIsRefusedAsDuplicateEvidence)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run_fixture(k_gemm_run).string()}).code, 0);
  const std::string before = read_bytes(db);
  std::filesystem::copy(run_fixture(k_gemm_run), tmp / "e2e_copy_20260801_000000_1_x",
                        std::filesystem::copy_options::recursive);
  auto r = run_cli({"--db", db.string(), "ingest", (tmp / "e2e_copy_20260801_000000_1_x").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("a copy of stored run '" + k_gemm_run + "'"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(db), before);
}

TEST(IngestPaths, ARunWithoutADateIsStoredWithAWarning)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  std::filesystem::copy(run_fixture(k_canonical_run), tmp / "myrun",
                        std::filesystem::copy_options::recursive);
  auto r = run_cli({"--db", db.string(), "ingest", (tmp / "myrun").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("rfdb: warning: myrun: no _YYYYmmdd_HHMMSS_ date"), std::string::npos) << r.err;
  EXPECT_EQ(query_value(db, "SELECT ifnull(run_date, 'none') FROM runs"), "none");
  // Priors leave its attempts out, and the playbook's priors sentence counts
  // none of them, with or without a window.
  for (const std::vector<std::string>& window : {std::vector<std::string>{},
                                                 {"--as-of", "2026-11-30"},
                                                 {"--since", "2020-01-01", "--as-of", "2026-11-30"}}) {
    std::vector<std::string> args{"--db", db.string(), "report"};
    args.insert(args.end(), window.begin(), window.end());
    r = run_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("0 attempts, 0 observations)"), std::string::npos) << r.out;
  }
}

// Run ids become directory names and JSON strings, paths are stored as text:
// a run id or a file name that is not valid UTF-8, and a run id with a path
// separator or a control character, are refused with the name escaped, and
// the database stays as it was.
TEST(Ingest, UnusableNamesAreRefusedAndWriteNothing)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, {k_gemm_run});
  const std::string before = dump_tables(db);

  namespace fs = std::filesystem;
  fs::create_directories(tmp / "bad_name");
  const auto bad_dir = tmp.path() / "bad_name" / "e2e_Bad\xffModel_20260101_000000_1_a";
  fs::rename(copy_run(k_canonical_run, tmp / "bad_name"), bad_dir);
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "json", bad_dir.string()});
  EXPECT_EQ(r.code, 1);
  const auto report = nlohmann::json::parse(r.out); // the report stays valid JSON
  EXPECT_EQ(report["paths"][0]["target"], "e2e_Bad\\xFFModel_20260101_000000_1_a");
  EXPECT_NE(r.err.find("run id 'e2e_Bad\\xFFModel_20260101_000000_1_a' is not valid UTF-8"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(dump_tables(db), before);

  const auto run = copy_run(k_canonical_run, tmp.path());
  fs::rename(run / "kernels" / "fused_moe_kernel_task", run / "kernels" / "fused\x01\xfe_task");
  auto file = run_cli({"--db", db.string(), "ingest", "--format", "json", run.string()});
  EXPECT_EQ(file.code, 1);
  EXPECT_NE(file.err.find("file name 'kernels/fused\\x01\\xFE_task/opbench_result.json' is not valid UTF-8"),
            std::string::npos)
      << file.err;
  EXPECT_EQ(dump_tables(db), before);

  const auto artifact = (run / "env_report.json").string();
  for (const auto& [id, why] :
       std::vector<std::pair<std::string, std::string>>{{"../../tmp/x", "holds a path separator"},
                                                        {"..", "is a relative directory name"},
                                                        {"e2e_a\nb", "holds a control character"}}) {
    auto bad = run_cli({"--db", db.string(), "ingest", "--run", id, artifact});
    EXPECT_EQ(bad.code, 1) << id;
    EXPECT_NE(bad.err.find(why), std::string::npos) << bad.err;
  }
  EXPECT_EQ(dump_tables(db), before);

  // One id for two eval dirs would merge them into one run: a usage error.
  const auto other = copy_run(k_gemm_run, tmp.path());
  auto merged = run_cli({"--db", db.string(), "ingest", "--run", "one_id", run.string(), other.string()});
  EXPECT_EQ(merged.code, 2);
  EXPECT_NE(merged.err.find("--run names one run, but 2 paths were given"), std::string::npos) << merged.err;
  EXPECT_EQ(dump_tables(db), before);
}

} // namespace rfdb::test
