// `rfdb rescore` (issue 32, docs/rescore.md) on the four dev runs (tests/fixtures/dev-runs):
// one run's verdicts hand-checked under the stored (a), today's (b) and leave-the-run-out (c)
// priors with a golden table, the seed banding cases by name, a verdict that crosses the
// saturated edge when the prior moves, and the errors.
#include "support/helpers.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string k_gemma = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";      // D8, gfx950
const std::string k_kimi = "e2e_Kimi-K2.6_20260621_142207_774130_3902";                 // D9, gfx942
const std::string k_qwen122 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726"; // D7, gfx950

class Rescore : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "dev.sqlite";
    std::vector<std::string> args{"--db", s_db.string(), "ingest", "-q"};
    for (const auto& e : fs::directory_iterator(fixtures_dir() / "dev-runs")) {
      if (e.is_directory()) {
        args.push_back(e.path().string());
      }
    }
    std::sort(args.begin() + 4, args.end());
    const auto r = run_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }

  // A copy of the dev-runs database that a test may change.
  static fs::path scratch(const std::string& name)
  {
    const fs::path copy = *s_tmp / name;
    fs::copy_file(s_db, copy, fs::copy_options::overwrite_existing);
    return copy;
  }

  // The history of RoutingReplayWinnerMovesUpUnderTheLeaveRunOutPriors in `db`: gemma's split-KV
  // head stored with target_eff 0.44, its prefill attention head at roofline_pct 0.30.
  static void make_winner_move_up(const fs::path& db)
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    ASSERT_EQ(conn.exec("UPDATE verdicts SET target_eff = 0.44 WHERE run_id = '" + k_gemma +
                        "' AND round = '0' AND short_name = '_fwd_grouped_kernel_stage1' AND superseded = 0"),
              1);
    ASSERT_EQ(conn.exec("UPDATE verdicts SET roofline_pct = 0.30 WHERE run_id = '" + k_gemma +
                        "' AND round = '0' AND short_name = '_fwd_kernel' AND superseded = 0"),
              1);
  }

  static json rescore_json(const fs::path& db, std::vector<std::string> args)
  {
    args.insert(args.begin(), {"--db", db.string(), "rescore"});
    args.insert(args.end(), {"--format", "json"});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out);
  }

  static TempDir* s_tmp;
  static fs::path s_db;
};

TempDir* Rescore::s_tmp = nullptr;
fs::path Rescore::s_db;

// The verdict of `kernel` in round `round` of the document's verdicts.
const json& verdict_of(const json& doc, const std::string& kernel, const std::string& round = "0")
{
  for (const auto& v : doc.at("verdicts")) {
    if (v.at("short_name") == kernel && v.at("round") == round) {
      return v;
    }
  }
  ADD_FAILURE() << kernel << " not in " << doc.dump(1);
  static const json none;
  return none;
}

double num(const json& j)
{
  return j.get<double>();
}

} // namespace

// The golden table of one dev run under the three prior sets, hand-checked (docs/rescore.md).
//
// The gemma run (D8, gfx950, 2026-08-24) stored target_eff 0.90 (moe) and 0.50 (attn). Today's
// priors (b, as of 2026-08-24, --by class): moe = (2 x 0.90 + 0.6 x 0.8030) / 2.6 = 0.8776 (one
// observation, the Kimi int4 MoE tune, medium 0.6, e 0.8030); attn = (2 x 0.50 + 0.6 x 0.4752) /
// 2.6 = 0.4943 (this run's own split-KV launcher, e 0.432 x 1.10 = 0.4752). Before the run (c,
// as of 2026-08-23) moe is the same 0.8776 and attn is still its seed 0.50.
//
// fused_moe_kernel (moe, pct_gpu_time 17.42, roofline_pct 0.702):
//   a: 0.702 / 0.90 = 0.780, in [0.6, 0.9): moderate; attainable 0.90 / 0.702 = 1.282;
//      gain 17.42 x (1 - 0.702 / 0.90) = 3.83 %
//   b, c: 0.702 / 0.8776 = 0.800: moderate; attainable 0.8776 / 0.702 = 1.250;
//      gain 17.42 x (1 - 0.702 / 0.8776) = 3.49 %
// _fwd_kernel (attn, prefill, 6.21 %, 0.196): underperforming under all three;
//   a, c: attainable 0.50 / 0.196 = 2.551, gain 6.21 x (1 - 0.392) = 3.78 %
//   b: attainable 0.4943 / 0.196 = 2.522, gain 6.21 x (1 - 0.196 / 0.4943) = 3.75 %
// _fwd_grouped_kernel_stage1 (attn, 22.80 %, 0.432): moderate under all three (0.432 / 0.4943 =
//   0.874 < 0.9); a, c: gain 22.8 x (1 - 0.864) = 3.10 %; b: 22.8 x (1 - 0.432 / 0.4943) = 2.87 %
// Head order by expected gain: a: fused_moe_kernel 3.83, _fwd_kernel 3.78, stage1 3.10;
// b: _fwd_kernel 3.75, fused_moe_kernel 3.49, stage1 2.87; c: _fwd_kernel 3.78, fused_moe_kernel
// 3.49, stage1 3.10. So under both b and c the prefill attention head moves up to first and the
// MoE head down to second: two rank changes each. No band changes and no skip (every
// roofline_pct is below its target_eff). cross_device_reduce_1stage has no verdict and the
// hipBLASLt Cijk GEMM is dispatch-bound: no band.
TEST_F(Rescore, OneDevRunUnderStoredTodaysAndLeaveRunOutPriors)
{
  const auto table =
      run_cli({"--db", s_db.string(), "rescore", "--run", "e2e_gemma", "--all", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  RFDB_EXPECT_GOLDEN("cli/rescore_gemma.txt", table.out);

  const json doc = rescore_json(s_db, {"--run", "e2e_gemma", "--all"});
  EXPECT_EQ(doc.at("as_of"), "2026-08-24");
  EXPECT_EQ(doc.at("run"), k_gemma);
  const json& moe = verdict_of(doc, "fused_moe_kernel");
  EXPECT_EQ(num(moe.at("stored").at("target_eff")), 0.9);
  EXPECT_EQ(moe.at("stored").at("headroom_class"), "moderate");
  EXPECT_NEAR(num(moe.at("stored").at("attainable_speedup")), 0.9 / 0.702, 1e-4);
  EXPECT_NEAR(num(moe.at("stored").at("expected_e2e_gain_pct")), 17.42 * (1 - 0.702 / 0.9), 1e-4);
  EXPECT_EQ(moe.at("stored").at("rank"), 1);
  const double moe_today = (2 * 0.9 + 0.6 * 0.8030) / 2.6;
  EXPECT_NEAR(num(moe.at("today").at("target_eff")), moe_today, 1e-4);
  EXPECT_EQ(moe.at("today").at("prior_key"), "moe");
  EXPECT_EQ(moe.at("today").at("headroom_class"), "moderate");
  EXPECT_NEAR(num(moe.at("today").at("expected_e2e_gain_pct")), 17.42 * (1 - 0.702 / moe_today), 1e-3);
  EXPECT_EQ(moe.at("today").at("rank"), 2);
  EXPECT_EQ(moe.at("before").at("as_of"), "2026-08-23");
  EXPECT_NEAR(num(moe.at("before").at("target_eff")), moe_today, 1e-4);
  EXPECT_EQ(moe.at("before").at("rank"), 2);
  EXPECT_EQ(moe.at("changes"), json::parse(R"([
    {"prior_set": "today", "decision": "rank", "from": "1", "to": "2", "saturated": false},
    {"prior_set": "before", "decision": "rank", "from": "1", "to": "2", "saturated": false}])"));

  const json& prefill = verdict_of(doc, "_fwd_kernel");
  const double attn_today = (2 * 0.5 + 0.6 * 0.432 * 1.10) / 2.6;
  EXPECT_NEAR(num(prefill.at("today").at("target_eff")), attn_today, 1e-4);
  EXPECT_NEAR(num(prefill.at("today").at("expected_e2e_gain_pct")), 6.21 * (1 - 0.196 / attn_today), 1e-3);
  EXPECT_EQ(num(prefill.at("before").at("target_eff")), 0.5);
  EXPECT_EQ(prefill.at("before").at("prior_source"), "seed");
  EXPECT_EQ(prefill.at("stored").at("rank"), 2);
  EXPECT_EQ(prefill.at("today").at("rank"), 1);
  EXPECT_EQ(prefill.at("before").at("rank"), 1);

  EXPECT_EQ(doc.at("summary"), json::parse(R"({"runs": 1, "rounds": 2, "verdicts": 6, "banded": 4,
    "heads": 6, "changed": 2, "today": {"band": 0, "saturated": 0, "rank": 2, "skip": 0},
    "before": {"band": 0, "saturated": 0, "rank": 2, "skip": 0},
    "replay": {"runs": 1, "up": 0, "down": 0, "same": 1,
               "mean_abs_error_pct": {"stored": 17.4292, "today": 17.6573, "before": 17.4292}}})"));
  // The replay's winner, the split-KV rewrite (+20.53 %), expected 22.8 x (1 - 0.432 / 0.50) =
  // 3.1008 % under a and c: 3.1008 - 20.53 = -17.4292; under b 22.8 x (1 - 0.432 / 0.4943) - 20.53.
}

// The seed's banding case under rescore: roofline_pct 0.88 with target_eff 0.90 is saturated
// (0.88 / 0.90 = 0.978 >= 0.9). Put on the Qwen3.5-122B run's round-0 MoE head (stored
// target_eff 0.90), it stays saturated under today's moe prior 0.8776 (0.88 / 0.8776 >= 0.9),
// but the skip gate roofline_pct >= target_eff, which tries it at 0.90 (0.88 < 0.90), skips it
// at 0.8776 (and before the run, as of 2026-08-18, when moe was already 0.8776).
TEST_F(Rescore, SeedCaseRooflinePct088AgainstTargetEff090IsSaturated)
{
  const fs::path db = scratch("seed_case.sqlite");
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    ASSERT_EQ(conn.exec("UPDATE verdicts SET roofline_pct = 0.88 WHERE run_id = '" + k_qwen122 +
                        "' AND round = '0' AND short_name = 'fused_moe_kernel' AND superseded = 0"),
              1);
  }
  const json doc = rescore_json(db, {"--run", k_qwen122, "--all"});
  const json& v = verdict_of(doc, "fused_moe_kernel");
  EXPECT_EQ(num(v.at("stored").at("target_eff")), 0.9);
  EXPECT_EQ(v.at("stored").at("headroom_class"), "saturated");
  EXPECT_EQ(v.at("stored").at("skip"), false);
  EXPECT_NEAR(num(v.at("stored").at("attainable_speedup")), 0.9 / 0.88, 1e-4);
  EXPECT_EQ(v.at("today").at("headroom_class"), "saturated");
  EXPECT_EQ(v.at("today").at("skip"), true);
  EXPECT_EQ(v.at("before").at("as_of"), "2026-08-18");
  EXPECT_EQ(v.at("before").at("skip"), true);
  EXPECT_EQ(v.at("changes"), json::parse(R"([
    {"prior_set": "today", "decision": "skip", "from": "try", "to": "skip", "saturated": false},
    {"prior_set": "before", "decision": "skip", "from": "try", "to": "skip", "saturated": false}])"));
}

// The seed's other case: a dispatch-bound or infeasible kernel has no verdict, and no band under
// any prior set. On the Qwen3.5-122B run the gated-delta kernel is dispatch-bound (both rounds)
// and round 1's kentry GEMM is suspect (an infeasible byte model, raw roofline_pct 1.066); on the
// Kimi run the hipBLASLt Cijk GEMM is dispatch-bound.
TEST_F(Rescore, DispatchBoundAndInfeasibleKernelsHaveNoBand)
{
  const json doc = rescore_json(s_db, {"--all"});
  const auto expect_unbanded = [&](const std::string& run, const std::string& kernel,
                                   const std::string& round, const std::string& reason) {
    bool found = false;
    for (const auto& v : doc.at("verdicts")) {
      if (v.at("run_id") != run || v.at("short_name").get<std::string>().rfind(kernel, 0) != 0 ||
          v.at("round") != round) {
        continue;
      }
      found = true;
      EXPECT_EQ(v.at("no_band"), reason) << kernel;
      for (const char* set : {"stored", "today", "before"}) {
        EXPECT_TRUE(v.at(set).at("headroom_class").is_null()) << kernel << " " << set;
        EXPECT_TRUE(v.at(set).at("attainable_speedup").is_null()) << kernel << " " << set;
        EXPECT_TRUE(v.at(set).at("expected_e2e_gain_pct").is_null()) << kernel << " " << set;
        EXPECT_TRUE(v.at(set).at("rank").is_null()) << kernel << " " << set;
        EXPECT_TRUE(v.at(set).at("skip").is_null()) << kernel << " " << set;
      }
      EXPECT_TRUE(v.at("changes").empty()) << kernel;
    }
    EXPECT_TRUE(found) << run << " " << kernel;
  };
  expect_unbanded(k_qwen122, "fused_recurrent_gated_delta_rule_fwd_kernel", "0", "dispatch_bound");
  expect_unbanded(k_qwen122, "fused_recurrent_gated_delta_rule_fwd_kernel", "1", "dispatch_bound");
  expect_unbanded(k_qwen122, "kentry", "1", "suspect");
  expect_unbanded(k_kimi, "Cijk_Ailk_Bljk", "0", "dispatch_bound");
  expect_unbanded(k_kimi, "cross_device_reduce_2stage", "0", "no verdict");
}

// A verdict crossing the saturated edge when the prior moves: the gemma run's MoE head put at
// roofline_pct 0.80 is moderate at the stored 0.90 (0.80 < 0.9 x 0.90 = 0.81) and saturated at
// today's moe prior 0.8776 (0.80 >= 0.9 x 0.8776 = 0.7898): the playbook would reroute it to
// byte reduction. attainable 0.90 / 0.80 = 1.125 -> 0.8776 / 0.80 = 1.097; gain 17.42 x (1 -
// 0.80 / 0.90) = 1.94 % -> 17.42 x (1 - 0.80 / 0.8776) = 1.54 %, which also drops it from first
// to third among the run's heads (below _fwd_kernel 3.75 % and stage1 2.87 %).
TEST_F(Rescore, AVerdictCrossesTheSaturatedEdgeWhenThePriorMoves)
{
  const fs::path db = scratch("crossing.sqlite");
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    ASSERT_EQ(conn.exec("UPDATE verdicts SET roofline_pct = 0.80 WHERE run_id = '" + k_gemma +
                        "' AND round = '0' AND short_name = 'fused_moe_kernel' AND superseded = 0"),
              1);
  }
  const json doc = rescore_json(db, {"--run", k_gemma});
  const json& v = verdict_of(doc, "fused_moe_kernel");
  EXPECT_EQ(v.at("stored").at("headroom_class"), "moderate");
  EXPECT_EQ(v.at("today").at("headroom_class"), "saturated");
  EXPECT_EQ(v.at("before").at("headroom_class"), "saturated");
  EXPECT_NEAR(num(v.at("stored").at("attainable_speedup")), 1.125, 1e-9);
  EXPECT_NEAR(num(v.at("today").at("expected_e2e_gain_pct")),
              17.42 * (1 - 0.80 / ((1.8 + 0.6 * 0.8030) / 2.6)), 1e-3);
  EXPECT_EQ(v.at("changes").at(0), json::parse(R"({"prior_set": "today", "decision": "band",
    "from": "moderate", "to": "saturated", "saturated": true})"));
  EXPECT_EQ(doc.at("summary").at("today").at("saturated"), 1);
  EXPECT_EQ(doc.at("summary").at("before").at("saturated"), 1);
  const auto table = run_cli({"--db", db.string(), "rescore", "--run", k_gemma, "--format", "table"});
  EXPECT_NE(table.out.find("b: band moderate -> saturated (into saturated)"), std::string::npos) << table.out;
}

// --by picks the priors row at that level, else the nearest level above with a row: on the
// gemma run the prefill attention head has no attn:gfx950:prefill row and takes attn:gfx950;
// the MoE head takes moe:gfx950:decode, a parent row (no gfx950 MoE observation: 0.8776 from the
// class); before the Kimi run (as of 2026-06-20) no gfx row exists and its MoE head takes the
// class seed 0.90.
TEST_F(Rescore, ByChoosesThePriorsLevelWithFallbackToTheLevelAbove)
{
  const json doc = rescore_json(s_db, {"--by", "class,gfx,regime", "--all"});
  EXPECT_EQ(doc.at("by"), "class,gfx,regime");
  const auto find = [&](const std::string& run, const std::string& kernel) -> const json& {
    for (const auto& v : doc.at("verdicts")) {
      if (v.at("run_id") == run && v.at("short_name") == kernel && v.at("round") == "0") {
        return v;
      }
    }
    ADD_FAILURE() << kernel;
    static const json none;
    return none;
  };
  EXPECT_EQ(find(k_gemma, "_fwd_kernel").at("today").at("prior_key"), "attn:gfx950");
  const json& moe = find(k_gemma, "fused_moe_kernel");
  EXPECT_EQ(moe.at("today").at("prior_key"), "moe:gfx950:decode");
  EXPECT_EQ(moe.at("today").at("prior_source"), "parent");
  EXPECT_NEAR(num(moe.at("today").at("target_eff")), (2 * 0.9 + 0.6 * 0.8030) / 2.6, 1e-4);
  const json& kimi = find(k_kimi, "fused_moe_kernel_gptq_awq");
  EXPECT_EQ(kimi.at("before").at("as_of"), "2026-06-20");
  EXPECT_EQ(kimi.at("before").at("prior_key"), "moe");
  EXPECT_EQ(kimi.at("before").at("prior_source"), "seed");
  EXPECT_EQ(num(kimi.at("before").at("target_eff")), 0.9);
  EXPECT_EQ(kimi.at("today").at("prior_key"), "moe:gfx942:decode");
}

// A retracted run is left out of every-run rescoring and of the priors, but --run still
// rescores it.
TEST_F(Rescore, ARetractedRunIsLeftOutUnlessNamed)
{
  const fs::path db = scratch("retracted.sqlite");
  ASSERT_EQ(run_cli({"--db", db.string(), "retract", k_gemma, "--reason", "test"}).code, 0);
  const json all = rescore_json(db, {"--all"});
  EXPECT_EQ(all.at("summary").at("runs"), 3);
  for (const auto& v : all.at("verdicts")) {
    EXPECT_NE(v.at("run_id"), k_gemma);
  }
  const json one = rescore_json(db, {"--run", k_gemma, "--all"});
  EXPECT_EQ(one.at("summary").at("runs"), 1);
  // Without the gemma run's own observation attention is back at its seed today.
  EXPECT_EQ(num(verdict_of(one, "_fwd_kernel").at("today").at("target_eff")), 0.5);
}

// Routing replay on the dev runs: each run's best realized kernel e2e win and its head's rank.
// Kimi's int4 MoE tune (+16.049 %) was first by expected gain under every set; its expected
// gain was 53.71 x (1 - 0.512 / 0.90) = 23.155 % under a and c (seed 0.90 before the run), so
// the error is 23.155 - 16.049 = +7.106; under b (0.8776) 53.71 x (1 - 0.512 / 0.8776) = 22.375,
// +6.326. The gemma run's winner, the split-KV rewrite of _fwd_grouped_kernel_stage1 (+20.53 %),
// was ranked last (3) under all three sets: no run's winner moves.
TEST_F(Rescore, RoutingReplayOnTheDevRuns)
{
  const json doc = rescore_json(s_db, {});
  const json& summary = doc.at("summary").at("replay");
  EXPECT_EQ(summary.at("runs"), 4);
  EXPECT_EQ(summary.at("up"), 0);
  EXPECT_EQ(summary.at("down"), 0);
  EXPECT_EQ(summary.at("same"), 4);
  const json& kimi = doc.at("replay").at(0);
  EXPECT_EQ(kimi.at("run_id"), k_kimi);
  EXPECT_EQ(kimi.at("short_name"), "fused_moe_kernel_gptq_awq");
  EXPECT_NEAR(num(kimi.at("realized_e2e_pct")), 16.049, 1e-9);
  EXPECT_EQ(kimi.at("rank"), json::parse(R"({"stored": 1, "today": 1, "before": 1})"));
  EXPECT_NEAR(num(kimi.at("error_pct").at("stored")), 53.71 * (1 - 0.512 / 0.9) - 16.049, 1e-4);
  EXPECT_NEAR(num(kimi.at("error_pct").at("today")),
              53.71 * (1 - 0.512 / ((1.8 + 0.6 * 0.8030) / 2.6)) - 16.049, 1e-3);
  EXPECT_NEAR(num(kimi.at("error_pct").at("before")), 53.71 * (1 - 0.512 / 0.9) - 16.049, 1e-4);
  const json& gemma = doc.at("replay").at(3);
  EXPECT_EQ(gemma.at("short_name"), "_fwd_grouped_kernel_stage1");
  EXPECT_EQ(gemma.at("rank"), json::parse(R"({"stored": 3, "today": 3, "before": 3})"));
}

// A constructed history where the leave-the-run-out prior moves the winning head up: the gemma
// run as if it had routed with attention at target_eff 0.44 (below the 0.50 rfdb would have told
// it) and its prefill attention head at roofline_pct 0.30. Under a the split-KV head (the run's
// winner, +20.53 %) expects 22.8 x (1 - 0.432 / 0.44) = 0.41 % and ranks last behind the MoE head
// (3.83 %) and the prefill head (6.21 x (1 - 0.30 / 0.50) = 2.48 %); under c (attention 0.50) it
// expects 22.8 x (1 - 0.432 / 0.50) = 3.10 %, second behind the MoE head (3.49 %): up from 3 to 2.
TEST_F(Rescore, RoutingReplayWinnerMovesUpUnderTheLeaveRunOutPriors)
{
  const fs::path db = scratch("replay_up.sqlite");
  ASSERT_NO_FATAL_FAILURE(make_winner_move_up(db));
  const json doc = rescore_json(db, {"--run", k_gemma});
  ASSERT_EQ(doc.at("replay").size(), 1U) << doc.dump(1);
  const json& winner = doc.at("replay").at(0);
  EXPECT_EQ(winner.at("short_name"), "_fwd_grouped_kernel_stage1");
  EXPECT_EQ(winner.at("rank").at("stored"), 3);
  EXPECT_EQ(winner.at("rank").at("before"), 2);
  EXPECT_NEAR(num(winner.at("error_pct").at("stored")), 22.8 * (1 - 0.432 / 0.44) - 20.53, 1e-3);
  EXPECT_NEAR(num(winner.at("error_pct").at("before")), 22.8 * (1 - 0.432 / 0.5) - 20.53, 1e-3);
  EXPECT_EQ(doc.at("summary").at("replay").at("up"), 1);
  EXPECT_EQ(doc.at("summary").at("replay").at("down"), 0);
}

// The playbook's "Would calibration have changed routing?" replays the newest day with a measured
// kernel win (gemma, 2026-08-24) at class x gfx, on the history above where the leave-run-out
// priors move the winner up: 3 -> 2, errors 22.8 x (1 - 0.432 / 0.44) - 20.53 = -20.12 under a and
// 22.8 x (1 - 0.432 / 0.50) - 20.53 = -17.43 under c (attn:gfx950 as of 2026-08-23 is its seed,
// 0.50). The winner itself changes band: 0.432 / 0.44 = 0.98 is saturated under a, 0.432 / 0.50 =
// 0.86 moderate under c.
TEST_F(Rescore, PlaybookReplaysTheNewestDayWithAWin)
{
  const fs::path db = scratch("replay_playbook.sqlite");
  ASSERT_NO_FATAL_FAILURE(make_winner_move_up(db));
  const auto report = run_cli({"--db", db.string(), "report", "-o", "-"});
  ASSERT_EQ(report.code, 0) << report.err;
  const auto begin = report.out.find("## Would calibration have changed routing?");
  const auto end = report.out.find("## What works");
  ASSERT_NE(begin, std::string::npos) << report.out;
  ASSERT_NE(end, std::string::npos) << report.out;
  const std::string section = report.out.substr(begin, end - begin);
  EXPECT_NE(section.find("Replayed: 1 run of 2026-08-24, the newest day with a measured kernel win."),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("as of 2026-08-23 (c:"), std::string::npos) << section;
  EXPECT_NE(section.find("| `" + k_gemma +
                         "` | 0 | `_fwd_grouped_kernel_stage1` | +20.53 | 3 \u2192 2 | "
                         "-20.12 / -17.43 |"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("Under c the winner ranks higher in 1, lower in 0 and the same in 0 of 1 run; mean "
                         "|expected \u2212 realized| a 20.12 %, c 17.43 %."),
            std::string::npos)
      << section;
  EXPECT_NE(
      section.find("c changes 1 band (of them 1 into or out of saturated), 2 head ranks and 0 skip-gate "
                   "decisions."),
      std::string::npos)
      << section;
  // The same figures as rfdb rescore at the same level for that run.
  const json doc = rescore_json(db, {"--run", k_gemma, "--by", "class,gfx"});
  ASSERT_EQ(doc.at("replay").size(), 1U) << doc.dump(1);
  EXPECT_EQ(doc.at("replay").at(0).at("rank").at("before"), 2);
  EXPECT_NEAR(num(doc.at("summary").at("replay").at("mean_abs_error_pct").at("stored")), 20.1155, 1e-3);
}

// With no run holding a measured kernel win (every e2e delta removed), the section says so.
TEST_F(Rescore, PlaybookSaysWhenNoRunHasAWinToReplay)
{
  const fs::path db = scratch("replay_none.sqlite");
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec("UPDATE attempts SET e2e_delta_pct = NULL");
  }
  const auto report = run_cli({"--db", db.string(), "report", "-o", "-"});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_NE(report.out.find("## Would calibration have changed routing?\n\nNo run in scope has a measured "
                            "kernel win yet"),
            std::string::npos)
      << report.out;
}

TEST_F(Rescore, AnUnknownRunIsAnErrorAsForShow)
{
  const auto r = run_cli({"--db", s_db.string(), "rescore", "--run", "e2e_nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty());
  const auto show = run_cli({"--db", s_db.string(), "show", "e2e_nope"});
  EXPECT_EQ(show.code, r.code);
  EXPECT_NE(r.err.find("rfdb: error: rescore: "), std::string::npos) << r.err;
  const auto ambiguous = run_cli({"--db", s_db.string(), "rescore", "--run", "e2e_Qwen3.5"});
  EXPECT_EQ(ambiguous.code, 2) << ambiguous.err;
  const auto by = run_cli({"--db", s_db.string(), "rescore", "--by", "gfx"});
  EXPECT_EQ(by.code, 2) << by.err;
}

// A measured baseline verdict (roofline-v1, phase baseline) is rescored as the round `measured`,
// with its kernel's profile pct_gpu_time, ranked among the run's measured heads only; post
// verdicts (after a lever) are left out.
// Kimi (D9): fused_moe_kernel_gptq_awq measured 0.496 of 0.90, profile share 53.71 %:
//   a: attainable 0.90 / 0.496 = 1.8145, gain 53.71 x (1 - 0.496 / 0.90) = 24.11 %, underperforming
//   (its post verdict, 0.803, is an outcome and is not listed).
// gemma (D8): _fwd_kernel measured 0.614 of 0.50: saturated under a and c (0.614 >= 0.9 x 0.50),
//   attainable 1, skipped by the gate, while its analytic verdict (0.196) ranks it first under c.
TEST_F(Rescore, MeasuredBaselineVerdictsAreRescoredOnTheirOwnScale)
{
  const json kimi = rescore_json(s_db, {"--run", k_kimi, "--all"});
  std::vector<json> measured;
  for (const auto& v : kimi.at("verdicts")) {
    if (v.at("round") == "measured") {
      measured.push_back(v);
    }
  }
  ASSERT_EQ(measured.size(), 1U) << kimi.dump();
  const json& moe = measured.front();
  EXPECT_EQ(moe.at("short_name"), "fused_moe_kernel_gptq_awq");
  EXPECT_EQ(moe.at("source_kind"), "measured");
  EXPECT_NEAR(num(moe.at("pct_gpu_time")), 53.71, 1e-9);
  EXPECT_NEAR(num(moe.at("roofline_pct")), 0.496, 1e-9);
  const json& a = moe.at("stored");
  EXPECT_EQ(a.at("headroom_class"), "underperforming");
  EXPECT_NEAR(num(a.at("attainable_speedup")), 0.90 / 0.496, 1e-4);
  EXPECT_NEAR(num(a.at("expected_e2e_gain_pct")), 53.71 * (1 - 0.496 / 0.90), 1e-3);
  EXPECT_EQ(a.at("rank"), 1);

  const json gemma = rescore_json(s_db, {"--run", k_gemma, "--all"});
  bool found = false;
  for (const auto& v : gemma.at("verdicts")) {
    if (v.at("round") != "measured") {
      continue;
    }
    found = true;
    EXPECT_EQ(v.at("short_name"), "_fwd_kernel");
    EXPECT_NEAR(num(v.at("roofline_pct")), 0.614, 1e-9);
    EXPECT_NEAR(num(v.at("pct_gpu_time")), 6.21, 1e-9);
    for (const char* set : {"stored", "before"}) {
      EXPECT_EQ(v.at(set).at("headroom_class"), "saturated") << set;
      EXPECT_EQ(v.at(set).at("skip"), true) << set;
      EXPECT_NEAR(num(v.at(set).at("attainable_speedup")), 1.0, 1e-12) << set;
    }
  }
  EXPECT_TRUE(found) << gemma.dump();
}

// Every run: the changed decisions only, in run-date order, and the summary counts them.
TEST_F(Rescore, EveryRunListsOnlyTheChangedDecisions)
{
  const json doc = rescore_json(s_db, {});
  EXPECT_EQ(doc.at("listed"), "changed");
  EXPECT_EQ(doc.at("summary").at("runs"), 4);
  EXPECT_EQ(doc.at("summary").at("rounds"), 8); // 5 profile rounds, 3 runs with a measured baseline
  for (const auto& v : doc.at("verdicts")) {
    EXPECT_FALSE(v.at("changes").empty()) << v.dump();
  }
  EXPECT_EQ(doc.at("verdicts").size(), doc.at("summary").at("changed").get<std::size_t>());
  const auto table = run_cli({"--db", s_db.string(), "rescore", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("verdicts rescored"), std::string::npos) << table.out;
}

} // namespace rfdb::test
