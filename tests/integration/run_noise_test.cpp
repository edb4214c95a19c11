// The noise a run measured (migration 0015): the bench samples and stated
// limitations of the dev runs are stored, rewritten (not duplicated) on
// re-ingest and shown by `rfdb show` (text and JSON); a summary without all_throughput takes its
// samples from bench_runs.jsonl, its spread is decided from them, and `show` / `runs` print the band.
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace fs = std::filesystem;
using namespace rfdb::test;

namespace {

const std::string k_kimi = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
const std::string k_qwen122 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726";

void ingest_dev(const fs::path& db, const std::string& run)
{
  const auto r = run_cli({"--db", db.string(), "ingest", (fixtures_dir() / "dev-runs" / run).string()});
  ASSERT_EQ(r.code, 0) << r.err;
}

} // namespace

TEST(RunNoise, BenchSamplesAndLimitationsAreStoredOnceAcrossReingest)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  ingest_dev(db, k_kimi);
  ingest_dev(db, k_qwen122);
  // Kimi: 7 bench summaries × 3 repetitions; Qwen3.5-122B: 11 × 3.
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM bench_samples WHERE run_id = '" + k_kimi + "'"), "21");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM bench_samples WHERE run_id = '" + k_qwen122 + "'"), "33");
  EXPECT_EQ(query_value(db, "SELECT group_concat(s.throughput_tok_s, ' ') FROM (SELECT s.throughput_tok_s "
                            "FROM bench_samples s JOIN bench_summaries b ON b.source_id = s.source_id "
                            "AND b.run_id = s.run_id WHERE b.role = 'baseline' AND s.run_id = '" +
                                k_qwen122 + "' ORDER BY s.sample_index) s"),
            "3727.261 3692.364 3712.4");
  EXPECT_EQ(query_value(db, "SELECT group_concat(limitation, '|') FROM run_limitations WHERE run_id = '" +
                                k_kimi + "'"),
            "box shared with other tenants: cross-session drift up to 13%");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM run_limitations WHERE run_id = '" + k_qwen122 + "'"), "0");
  ingest_dev(db, k_kimi); // unchanged files: rows rewritten, not added
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM bench_samples"), "54");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM run_limitations"), "1");
}

TEST(RunNoise, ShowPrintsSamplesMedianSpreadBandAndLimitations)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  ingest_dev(db, k_kimi);
  const auto text = run_cli({"--db", db.string(), "show", k_kimi, "--format", "table"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(
      text.out.find("noise      e2e band 1.30 % (the run's measured spread, wider than the fixed 0.5 %)"),
      std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("455.8 449.9 452.7"), std::string::npos) << text.out; // baseline samples
  EXPECT_NE(text.out.find("  - box shared with other tenants: cross-session drift up to 13%"),
            std::string::npos);

  const auto js = run_cli({"--db", db.string(), "show", k_kimi, "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  const auto& noise = j.at("noise");
  EXPECT_DOUBLE_EQ(noise.at("e2e_band_pct").get<double>(), 1.3);
  EXPECT_EQ(noise.at("e2e_band_source"), "measured");
  EXPECT_EQ(noise.at("bench").size(), 7U);
  const auto& base = noise.at("bench").at(0);
  EXPECT_EQ(base.at("role"), "baseline");
  EXPECT_EQ(base.at("samples").size(), 3U);
  EXPECT_DOUBLE_EQ(base.at("samples").at(1).get<double>(), 449.879);
  EXPECT_DOUBLE_EQ(base.at("median_tok_s").get<double>(), 452.7);
  EXPECT_DOUBLE_EQ(base.at("spread_pct").get<double>(), 1.3);
  EXPECT_EQ(noise.at("limitations").size(), 1U);
}

namespace {

// The canonical run copied into `dir` with its baseline summary stripped of
// all_throughput and stating `stated_spread`: its samples must come from
// baseline/bench_runs.jsonl.
fs::path canonical_without_all_throughput(const fs::path& dir, const std::string& stated_spread)
{
  const fs::path run = copy_run(k_canonical_run, dir);
  auto doc = nlohmann::json::parse(read_bytes(run / "baseline" / "bench_summary.json"));
  doc.erase("all_throughput");
  doc["throughput_tok_s_spread_pct"] = nlohmann::json::parse(stated_spread);
  write_bytes(run / "baseline" / "bench_summary.json", doc.dump(2));
  return run;
}

std::string baseline_samples(const fs::path& db)
{
  return query_value(db,
                     "SELECT group_concat(t, ' ') FROM (SELECT s.throughput_tok_s AS t FROM bench_samples s "
                     "JOIN bench_summaries b ON b.source_id = s.source_id AND b.run_id = s.run_id "
                     "WHERE b.role = 'baseline' ORDER BY s.sample_index)");
}

std::string baseline_spread(const fs::path& db)
{
  return query_value(db, "SELECT printf('%.6f', throughput_spread_pct) FROM bench_summaries "
                         "WHERE role = 'baseline'");
}

} // namespace

TEST(RunNoise, SamplesComeFromBenchRunsJsonlWhenTheSummaryListsNone)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  const fs::path run = canonical_without_all_throughput(tmp.path(), "0.5");
  // A malformed third round line: skipped with a warning naming file and line, the others kept.
  const std::string rounds = read_bytes(run / "baseline" / "bench_runs.jsonl");
  write_bytes(run / "baseline" / "bench_runs.jsonl", rounds + "{\"round\": 4, \"output_throughput\": \n");
  const auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("baseline/bench_runs.jsonl:4"), std::string::npos) << r.err;
  // The stated 0.5 % disagrees with the rounds' (4199.909 − 4171.441) / 4186.512 × 100 = 0.68 %.
  EXPECT_NE(r.err.find("baseline/bench_summary.json /throughput_tok_s_spread_pct"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stated spread 0.50 % disagrees with the spread of the 3 samples, 0.68 %"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the wider, computed 0.68 %, is kept"), std::string::npos) << r.err;
  EXPECT_EQ(baseline_samples(db), "4171.441 4186.512 4199.909");
  EXPECT_EQ(baseline_spread(db), "0.679993");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE kind = 'bench_runs' "
                            "AND rel_path = 'baseline/bench_runs.jsonl'"),
            "1");

  // A second ingest of the same dir changes nothing.
  const std::string before = dump_tables(db);
  const auto again = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(dump_tables(db), before);
}

TEST(RunNoise, ImplausibleStatedSpreadIsRefusedAndTheSamplesDecide)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  const fs::path run = canonical_without_all_throughput(tmp.path(), "130");
  const auto r = run_cli({"--db", db.string(), "ingest", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("/throughput_tok_s_spread_pct"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("implausible spread 130 % (expected 0–100 %); refused"), std::string::npos) << r.err;
  EXPECT_EQ(baseline_spread(db), "0.679993"); // the rounds' spread, computed from bench_runs.jsonl
}

TEST(RunNoise, ShowJudgesEachE2eDeltaAgainstTheBandAndRunsPrintsTheBand)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  ingest_runs(db, {k_canonical_run});
  // The canonical run's baseline spread 0.68 % is wider than the fixed 0.5 %: the measured band.
  const auto js = run_cli({"--db", db.string(), "show", k_canonical_run, "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& a : j.at("attempts")) {
    by_key[a.at("attempt").get<std::string>()] = a.at("e2e_judgement");
  }
  const auto& cfg1 = by_key.at("config:cfg1"); // e2e +1.2 %
  EXPECT_EQ(cfg1.at("judgement"), "beyond");
  EXPECT_DOUBLE_EQ(cfg1.at("band_pct").get<double>(), 0.68);
  EXPECT_EQ(cfg1.at("band"), "measured");
  EXPECT_EQ(by_key.at("config:cfg2").at("judgement"), "loss");                  // −0.8 %: the fixed edge
  EXPECT_EQ(by_key.at("cand:cand_fused_moe_kernel").at("judgement"), "inside"); // −0.064 %
  EXPECT_TRUE(by_key.at("cand:cand_kernel_paged_attention_2d").is_null());      // no e2e evidence

  const auto text = run_cli({"--db", db.string(), "show", k_canonical_run, "--format", "table"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("e2e_vs_band"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1.20  beyond 0.68 % measured"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("-0.80  loss ≤ -0.5 %"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("-0.06  inside 0.68 % measured"), std::string::npos) << text.out;

  const auto runs = run_cli({"--db", db.string(), "runs", "--format", "json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  const auto band = nlohmann::json::parse(runs.out).at(0).at("e2e_band");
  EXPECT_DOUBLE_EQ(band.at("pct").get<double>(), 0.68);
  EXPECT_EQ(band.at("source"), "measured");
  const auto table = run_cli({"--db", db.string(), "runs", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("e2e_band_%"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1.012  0.68 measured"), std::string::npos) << table.out;
}
