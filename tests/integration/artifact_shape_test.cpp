// An artifact of the wrong shape (issue 34 item 6): valid JSON holding none
// of the fields rfdb reads is a warning naming the file and the fields, not
// a silently unmeasured row.
#include "support/helpers.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(ArtifactShape, IntegrateOpbenchAndBenchSummaryWithNoFieldRfdbReadsAreWarnedNamingTheFields)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  write_bytes(run / "overlay/cand_kernel_paged_attention_2d/integrate_result.json", R"({"a": "b"})");
  write_bytes(run / "kernels/fused_moe_kernel_task/opbench_result.json", R"({"a": "b"})");
  write_bytes(run / "config/cfg1/bench_summary.json", R"({"a": "b"})");
  const auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: warning: " + k_canonical_run +
                          ": overlay/cand_kernel_paged_attention_2d/integrate_result.json: none "
                          "of the fields rfdb reads are present (isolated_speedup, e2e_delta_pct, ref_med, "
                          "cand_med, gate, ab_complete); attempt kept unmeasured"))
      << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: warning: " + k_canonical_run +
                          ": kernels/fused_moe_kernel_task/opbench_result.json: none of the "
                          "fields rfdb reads are present (measured, winner_kind, winner_backend, backend, "
                          "isolated_speedup, gate); no attempt recorded"))
      << r.err;
  EXPECT_TRUE(
      contains(r.err, "rfdb: warning: " + k_canonical_run +
                          ": config/cfg1/bench_summary.json: none of the fields rfdb reads are "
                          "present (throughput_tok_s_median, output_throughput_tok_s_median, "
                          "throughput_tok_s_spread_pct, output_throughput_tok_s_spread_pct, ttft_ms_median, "
                          "tpot_ms_median, runs, metric_basis, measurement_mode); the summary holds no "
                          "measurement"))
      << r.err;
  // Each warning once, and the rows are what the warnings say.
  EXPECT_EQ(r.err.find("integrate_result.json: none"), r.err.rfind("integrate_result.json: none")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT ifnull(throughput_tok_s_median, 'NULL') FROM bench_summaries WHERE "
                            "label = 'cfg1'"),
            "NULL");
  EXPECT_EQ(query_value(db,
                        "SELECT measured || '|' || ifnull(isolated_speedup, 'NULL') || '|' || verdict FROM "
                        "attempts WHERE candidate = 'cand_kernel_paged_attention_2d'"),
            "0|NULL|unknown");
}

TEST(ArtifactShape, FixtureRunsGiveNoShapeWarning)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  for (const auto& name : k_all_runs) {
    const auto r = run_cli({"--db", db.string(), "ingest", run_fixture(name).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(contains(r.err, "none of the fields rfdb reads")) << name << "\n" << r.err;
  }
}

TEST(ArtifactShape, OneFieldReadIsEnoughForNoShapeWarning)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  write_bytes(run / "overlay/cand_kernel_paged_attention_2d/integrate_result.json",
              R"({"gate": "incomplete"})");
  write_bytes(run / "config/cfg1/bench_summary.json", R"({"runs": 3})");
  const auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "none of the fields rfdb reads")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT runs_count FROM bench_summaries WHERE label = 'cfg1'"), "3");
}

} // namespace rfdb::test
