// The daily tools: runs, show, query, export, check, retract/restore, and
// the exit codes and messages a script relies on.
#include "rfdb_sql.hpp"
#include "support/helpers.hpp"

#include "store/database.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class Admin : public ::testing::Test {
protected:
  void SetUp() override
  {
    db = (tmp / "rfdb.sqlite").string();
    auto r = run_cli({"--db", db, "ingest", "-q", run_fixture(k_canonical_run).string(),
                      run_fixture(k_gemm_run).string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  TempDir tmp;
  std::string db;
};

} // namespace

TEST_F(Admin, RunsJsonListsIdentityWorkloadAndCounts)
{
  auto r = run_cli({"--db", db, "runs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json runs = json::parse(r.out);
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0]["run_id"], k_canonical_run);
  EXPECT_EQ(runs[0]["run_date"], "2026-06-12");
  EXPECT_EQ(runs[0]["gfx"], "gfx950");
  EXPECT_EQ(runs[0]["workload"]["conc"], 64);
  EXPECT_EQ(runs[0]["counts"]["verdicts"], 3);
  EXPECT_EQ(runs[0]["counts"]["attempts"], 4);
  EXPECT_EQ(runs[1]["run_id"], k_gemm_run);
  EXPECT_EQ(runs[1]["backend"], "sglang");
}

TEST_F(Admin, ShowUnknownRunFailsWithHint)
{
  auto r = run_cli({"--db", db, "show", "nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "rfdb: error: show: no run 'nope'\nhint: `rfdb runs --all` lists the stored runs; a unique "
            "prefix of a run id is enough\n");
}

TEST_F(Admin, RetractHidesRunAndRestoreBringsItBack)
{
  auto r = run_cli({"--db", db, "retract", k_gemm_run, "--reason", "box was not quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(run_cli({"--db", db, "runs", "--format", "json"}).out).size(), 1U);
  const json all = json::parse(run_cli({"--db", db, "runs", "--all", "--format", "json"}).out);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[1]["retracted"], true);
  EXPECT_EQ(query_value(db, "SELECT reason FROM retractions"), "box was not quiet");
  ASSERT_EQ(run_cli({"--db", db, "restore", k_gemm_run}).code, 0);
  EXPECT_EQ(json::parse(run_cli({"--db", db, "runs", "--format", "json"}).out).size(), 2U);
  auto again = run_cli({"--db", db, "restore", k_gemm_run});
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("is not retracted"), std::string::npos) << again.err;
  EXPECT_EQ(run_cli({"--db", db, "retract", "nope", "--reason", "x"}).code, 1);
}

TEST_F(Admin, QueryRunsNamedReadOnlyQueriesWithParameters)
{
  auto list = run_cli({"--db", db, "query", "--list", "--format", "table"});
  ASSERT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("\nverdicts_all "), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("source_insert"), std::string::npos) << "write queries must not be listed";
  auto r =
      run_cli({"--db", db, "query", "run_kernels", "-p", "run_id=" + k_canonical_run, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 10U);
  EXPECT_EQ(rows[0]["short_name"], "fused_moe_kernel");
  EXPECT_DOUBLE_EQ(rows[0]["pct_gpu_time"].get<double>(), 26.45); // numbers stay numbers in JSON
  auto write = run_cli({"--db", db, "query", "source_insert"});
  EXPECT_EQ(write.code, 2);
  auto unknown = run_cli({"--db", db, "query", "nope"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("hint: the queries: "), std::string::npos) << unknown.err;
}

TEST_F(Admin, QueryShowsDigestsAsHexAndTakesThemAsParameters)
{
  // sources stores sha256 as its 32 bytes (migration 0010): `rfdb query`
  // prints the 64 hex digits, as sources_list does, and binds them back.
  auto listed = run_cli({"--db", db, "query", "sources_list", "--format", "json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  std::string env_sha;
  std::string opbench_sha;
  for (const auto& row : json::parse(listed.out)) {
    if (row["run_id"] == k_canonical_run && row["rel_path"] == "env_report.json") {
      env_sha = row["sha256"].get<std::string>();
    }
    if (row["run_id"] == k_canonical_run &&
        row["rel_path"] == "kernels/fused_moe_kernel_task/opbench_result.json") {
      opbench_sha = row["sha256"].get<std::string>();
    }
  }
  ASSERT_EQ(env_sha.size(), 64U);
  ASSERT_EQ(opbench_sha.size(), 64U);
  auto cited = run_cli({"--db", db, "query", "attempt_cited_sources", "-p", "run_id=" + k_canonical_run, "-p",
                        "attempt_key=cand:cand_fused_moe_kernel", "--format", "json"});
  ASSERT_EQ(cited.code, 0) << cited.err;
  bool seen = false;
  for (const auto& row : json::parse(cited.out)) {
    if (row["rel_path"] == "kernels/fused_moe_kernel_task/opbench_result.json") {
      EXPECT_EQ(row["sha256"], opbench_sha);
      seen = true;
    }
  }
  EXPECT_TRUE(seen) << cited.out;
  auto found = run_cli({"--db", db, "query", "source_find", "-p", "run_id=" + k_canonical_run, "-p",
                        "rel_path=env_report.json", "-p", "sha256=" + env_sha, "--format", "json"});
  ASSERT_EQ(found.code, 0) << found.err;
  EXPECT_EQ(json::parse(found.out).size(), 1U) << found.out;
  auto other =
      run_cli({"--db", db, "query", "source_find", "-p", "run_id=" + k_canonical_run, "-p",
               "rel_path=env_report.json", "-p", "sha256=" + std::string(64, '0'), "--format", "json"});
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(json::parse(other.out).size(), 0U) << other.out;
}

TEST_F(Admin, ExportHasOneRowPerAttemptWithPredictionAndOutcome)
{
  auto r = run_cli({"--db", db, "export", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json rows = json::parse(r.out);
  EXPECT_EQ(rows.size(), 7U);
  bool found = false;
  for (const auto& row : rows) {
    if (row["short_name"] == "fused_moe_kernel") {
      found = true;
      EXPECT_DOUBLE_EQ(row["pred_attainable_speedup"].get<double>(), 1.023);
      EXPECT_DOUBLE_EQ(row["isolated_speedup"].get<double>(), 1.047);
      EXPECT_DOUBLE_EQ(row["e2e_delta_pct"].get<double>(), -0.064);
      EXPECT_EQ(row["op_class"], "moe");
      // The attempt as `rfdb show RUN --attempt KEY` names it, and its outcome.
      EXPECT_EQ(row["attempt_key"], "cand:cand_fused_moe_kernel");
      EXPECT_EQ(row["candidate"], "cand_fused_moe_kernel");
      EXPECT_EQ(row["output_parity"], "pass");
      EXPECT_TRUE(row["reject_reason"].is_null());
      EXPECT_EQ(row["deployed"], 0);
      EXPECT_EQ(row["validation_class"], "win");
      EXPECT_DOUBLE_EQ(row["validation_speedup"].get<double>(), 1.012);
    }
  }
  EXPECT_TRUE(found);
  auto csv = run_cli({"--db", db, "export", "-o", (tmp / "a.csv").string()});
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::string text = read_bytes(tmp / "a.csv");
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "run_id,run_date,model,gfx,backend,isl,osl,conc,short_name,op_class,regime,lever,lever_kind,"
            "lever_backend,pred_stage,pred_source_kind,pred_confidence,pred_pct_gpu_time,pred_roofline_pct,"
            "pred_target_eff,pred_attainable_speedup,pred_expected_e2e_gain_pct,pred_headroom_class,"
            "pred_bound_type,pred_suspect,isolated_speedup,e2e_delta_pct,post_efficiency,gate,verdict,"
            "attempt_key,candidate,output_parity,reject_reason,deployed,validation_class,validation_speedup");
  // -o replaces the file atomically and never writes through a link.
  fs::create_symlink(tmp / "a.csv", tmp / "link.csv");
  auto link = run_cli({"--db", db, "export", "-o", (tmp / "link.csv").string()});
  EXPECT_EQ(link.code, 1);
  EXPECT_NE(link.err.find("link.csv"), std::string::npos) << link.err;
  EXPECT_EQ(read_bytes(tmp / "a.csv"), text);
}

TEST_F(Admin, CheckReportsAHealthyDatabase)
{
  auto r = run_cli({"--db", db, "check", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["schema_version"], store::newest_schema_version());
  EXPECT_EQ(j["integrity"], json::array({"ok"}));
}

TEST(Cli, UsageErrorsExitTwoAndHelpExitsZero)
{
  EXPECT_EQ(run_cli({}).code, 2);
  EXPECT_EQ(run_cli({"frobnicate"}).code, 2);
  EXPECT_EQ(run_cli({"runs", "--format", "yaml"}).code, 2);
  auto help = run_cli({"ingest", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos) << help.out;
  auto version = run_cli({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("rfdb "), std::string::npos);
}

TEST(Cli, ReadCommandsOnAMissingDatabaseDoNotCreateIt)
{
  TempDir tmp;
  const auto db = tmp / "absent.sqlite";
  auto r = run_cli({"--db", db.string(), "runs", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(db));
}

} // namespace rfdb::test

namespace rfdb::test {

TEST(Cli, CheckOnAMissingDatabaseSaysSo)
{
  TempDir tmp;
  auto r = run_cli({"--db", (tmp / "typo.sqlite").string(), "check"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no database at this path"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp / "typo.sqlite"));
}

TEST_F(Admin, RetractNeedsAReasonAndHistoryKeepsSupersededVerdicts)
{
  auto r = run_cli({"--db", db, "retract", k_gemm_run, "--reason", "  "});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM retractions"), "0");
  auto h =
      run_cli({"--db", db, "query", "verdict_history", "-p", "run_id=" + k_gemm_run, "--format", "json"});
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_EQ(nlohmann::json::parse(h.out).size(), 10U);
}

} // namespace rfdb::test
