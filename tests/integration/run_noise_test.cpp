// The noise a run measured (migration 0015): the bench samples and stated
// limitations of the dev runs are stored, rewritten (not duplicated) on
// re-ingest and shown by `rfdb show` (text and JSON).
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
