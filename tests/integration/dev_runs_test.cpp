// The four realistic dev runs (tests/fixtures/dev-runs, reconstructed from
// public optimization outcomes) ingest to exactly the attempts, predictions
// and run identity their <run>.expected.json lists (docs/attempt-model.md).
//
// Two prediction fields deliberately differ from the expected files' bridge
// reading for *measured* predictions (issue 8 overrides it): the confidence
// is the one the roofline-v1 file states (medium in these files), and
// attainable_speedup = max(1, target_eff / roofline_pct), so it agrees with
// the headroom band; the file's headroom_ratio stays raw on the verdict.
#include "support/helpers.hpp"

#include "ingest/evaldir/derive.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

namespace rfdb::test {
namespace {

using nlohmann::json;

const std::vector<std::string> k_dev_runs = {
    "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931",      // D6
    "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726", // D7
    "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817",    // D8
    "e2e_Kimi-K2.6_20260621_142207_774130_3902",              // D9
};

std::filesystem::path dev_runs_dir()
{
  return fixtures_dir() / "dev-runs";
}

json expected_of(const std::string& run)
{
  std::ifstream in(dev_runs_dir() / (run + ".expected.json"));
  return json::parse(in);
}

json show_json(const std::filesystem::path& db, const std::string& run)
{
  const auto r = run_cli({"--db", db.string(), "show", run, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out);
}

bool is_null(const json& j, const char* key)
{
  return !j.contains(key) || j.at(key).is_null();
}

// The ingested attempt an expected one describes: kernel attempts by
// (short_name, candidate dir, isolated speedup); ledger-only ones by kernel
// and verdict; config attempts by trial id (README "Matching").
const json* find_attempt(const json& attempts, const json& want)
{
  const json* found = nullptr;
  int hits = 0;
  for (const auto& a : attempts) {
    bool same = false;
    if (want.at("kind") == "config") {
      same = a.at("kind") == "config" && a.at("candidate") == want.at("candidate");
    } else if (!is_null(want, "candidate")) {
      same = a.at("kind") == "kernel" && a.at("short_name") == want.at("short_name") &&
             a.at("candidate") == want.at("candidate") && !a.at("isolated_speedup").is_null() &&
             std::fabs(a.at("isolated_speedup").get<double>() - want.at("isolated_speedup").get<double>()) <
                 1e-9;
    } else {
      same = a.at("kind") == "kernel" && a.at("short_name") == want.at("short_name") &&
             !a.at("measured").get<bool>() && a.at("verdict_raw") == want.at("verdict");
    }
    if (same) {
      found = &a;
      ++hits;
    }
  }
  return hits == 1 ? found : nullptr;
}

void expect_number(const json& got, const json& want, double tol, const std::string& what)
{
  if (want.is_null()) {
    EXPECT_TRUE(got.is_null()) << what << ": expected null, got " << got;
    return;
  }
  ASSERT_FALSE(got.is_null()) << what << ": expected " << want;
  EXPECT_NEAR(got.get<double>(), want.get<double>(), tol) << what;
}

// The attainable speedup of a measured prediction from its roofline-v1 file,
// computed here from the cases (issue 28): one matched case → max(1,
// target_eff / roofline_pct); two or more → Amdahl over the matched cases,
// 1 / Σ (t_i / a_i), with t_i the guidance time_share (else the case weight)
// normalised to sum 1.
double measured_attainable(const std::string& run, const json& wp)
{
  std::ifstream in(dev_runs_dir() / run / wp.at("file").get<std::string>());
  const json doc = json::parse(in);
  const double target = wp.at("target_eff").get<double>();
  std::vector<std::pair<double, double>> cases; // (share, attainable)
  for (const auto& c : doc.at("cases")) {
    if (c.at("status") != "matched") {
      continue;
    }
    double share = c.value("weight", 1.0);
    for (const auto& g : doc.at("guidance").at("cases")) {
      if (g.at("case_id") == c.at("case_id") && g.contains("time_share") && g.at("time_share").is_number()) {
        share = g.at("time_share").get<double>();
      }
    }
    const double pct = c.at("metrics").at("roofline_efficiency_pct").get<double>() / 100.0;
    cases.emplace_back(share, std::max(1.0, target / pct));
  }
  if (cases.size() < 2) {
    return std::max(1.0, target / wp.at("roofline_pct").get<double>());
  }
  double total = 0.0;
  double inverse = 0.0;
  for (const auto& [t, a] : cases) {
    total += t;
  }
  for (const auto& [t, a] : cases) {
    inverse += t / total / a;
  }
  return 1.0 / inverse;
}

class DevRun : public ::testing::TestWithParam<std::string> {};

TEST_P(DevRun, IngestsToExactlyTheExpectedAttemptsAndPredictions)
{
  const std::string run = GetParam();
  const json want = expected_of(run);
  TempDir tmp;
  const auto db = tmp / "dev.sqlite";
  const auto ing = run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()});
  ASSERT_EQ(ing.code, 0) << ing.err;
  const json got = show_json(db, run);

  // Run identity, workload (D7's lives only in workflow_return.json) and outcome.
  EXPECT_EQ(got.at("model"), want.at("model"));
  EXPECT_EQ(got.at("model_arch_class"), want.at("model_arch_class"));
  EXPECT_EQ(got.at("gfx"), want.at("gfx"));
  EXPECT_EQ(got.at("backend"), want.at("backend"));
  EXPECT_EQ(got.at("backend_version"), want.at("backend_version"));
  EXPECT_EQ(got.at("run_date"), want.at("date"));
  EXPECT_EQ(got.at("workload"), want.at("workload"));
  // tp: env_report.json's, else the Director's serving_config (D6 TP4, D8 TP2 state it only there).
  EXPECT_EQ(query_value(db, "SELECT tp FROM runs"), std::to_string(want.at("tp").get<int>()));
  EXPECT_NEAR(got.at("throughput_speedup").get<double>(), want.at("throughput").at("speedup").get<double>(),
              1e-9);
  EXPECT_EQ(got.at("validation_status"), want.at("throughput").at("validation_status"));

  const json& attempts = got.at("attempts");
  EXPECT_EQ(attempts.size(), want.at("attempt_count").get<std::size_t>()) << attempts.dump(1);
  for (const auto& w : want.at("attempts")) {
    const std::string id = run + " " + w.at("id").get<std::string>();
    const json* a = find_attempt(attempts, w);
    ASSERT_NE(a, nullptr) << id << " not found exactly once";
    expect_number(a->at("isolated_speedup"), w.at("isolated_speedup"), 1e-9, id + " isolated");
    expect_number(a->at("e2e_delta_pct"), w.at("e2e_delta_pct"), 1e-9, id + " e2e");
    if (w.at("kind") == "config") {
      continue;
    }
    EXPECT_EQ(a->at("measured").get<bool>(), w.at("isolated_speedup_measured").get<bool>()) << id;
    EXPECT_EQ(a->at("gate"), w.at("gate")) << id;
    EXPECT_EQ(a->at("output_parity"), w.at("output_parity")) << id;
    EXPECT_EQ(a->at("parity_kind"), w.at("parity_kind")) << id;
    if (!is_null(w, "candidate")) {
      EXPECT_EQ(a->at("reason"), w.at("reason")) << id;
      EXPECT_EQ(a->at("candidate_short_name").is_null() ? a->at("short_name") : a->at("candidate_short_name"),
                w.at("candidate_short_name"))
          << id;
    }
    EXPECT_EQ(a->at("deployed").get<bool>(), w.at("deployed_in_final").get<bool>()) << id;
    // Post efficiency only for the attempt the post roofline measured.
    const bool post = w.at("post_roofline").at("measured_this_attempt").get<bool>();
    EXPECT_EQ(a->at("post_measured").get<bool>(), post) << id;
    if (post) {
      expect_number(a->at("post_efficiency"),
                    w.at("post_roofline").at("roofline_efficiency_pct").get<double>() / 100.0, 1e-9,
                    id + " post_efficiency");
    } else {
      EXPECT_TRUE(a->at("post_efficiency").is_null()) << id;
    }
    // The decision-time prediction (or a listed alternative reading).
    const json& p = a->at("prediction");
    // The primary reading, or the alternative whose round the attempt took.
    json wp = w.at("predicted");
    for (const auto& alt : w.at("predicted_alternatives")) {
      if (a->at("round") != wp.at("round") && a->at("round") == alt.at("predicted").at("round")) {
        wp = alt.at("predicted");
      }
    }
    expect_number(p.at("roofline_pct"), wp.at("roofline_pct"), 0.0015, id + " roofline_pct");
    EXPECT_EQ(p.at("source"), wp.at("source")) << id;
    EXPECT_EQ(p.at("stage"), wp.at("stage")) << id;
    EXPECT_EQ(p.at("headroom_class"), wp.at("headroom_class")) << id;
    EXPECT_EQ(p.at("bound_type"), wp.at("bound_type")) << id;
    EXPECT_EQ(a->at("round"), wp.at("round")) << id;
    expect_number(p.at("pct_gpu_time"), wp.at("pct_gpu_time"), 1e-9, id + " pct_gpu_time");
    expect_number(p.at("target_eff"), wp.at("target_eff"), 1e-9, id + " target_eff");
    if (wp.at("source") == "analytic") {
      EXPECT_EQ(p.at("confidence"), wp.at("confidence")) << id;
      expect_number(p.at("attainable_speedup"), wp.at("attainable_speedup"),
                    wp.at("attainable_speedup").get<double>() * 0.002, id + " attainable");
      expect_number(p.at("expected_e2e_gain_pct"), wp.at("expected_e2e_gain_pct"), 0.02,
                    id + " expected_e2e");
    } else {
      // Issue 8: the file's stated confidence, and attainable against
      // target_eff; issue 28: over the matched cases' time mix.
      EXPECT_EQ(p.at("confidence"), "medium") << id;
      const double att = measured_attainable(run, wp);
      expect_number(p.at("attainable_speedup"), att, 1e-6, id + " attainable");
      expect_number(p.at("expected_e2e_gain_pct"), wp.at("pct_gpu_time").get<double>() * (1.0 - 1.0 / att),
                    1e-6, id + " expected_e2e");
    }
  }

  // Every attempt agrees with every file it cites.
  const auto check = run_cli({"--db", db.string(), "check", "--format", "json"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_EQ(json::parse(check.out).at("evidence_disagreements").size(), 0U) << check.out;
}

INSTANTIATE_TEST_SUITE_P(Expected, DevRun, ::testing::ValuesIn(k_dev_runs),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return std::string("D") + std::to_string(6 + param.index);
                         });

// D6's worked merge: the four sibling candidates on one kernel stay four
// attempts, each with exactly the ledger row whose numbers agree.
TEST(DevRunMerges, SiblingCandidatesKeepTheirOwnLedgerRows)
{
  TempDir tmp;
  const auto db = tmp / "dev.sqlite";
  const std::string run = k_dev_runs[0];
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0);
  const auto cites = [&](const std::string& candidate) {
    return query_value(db, "SELECT group_concat(x.json_pointer, ' ') FROM (SELECT src.json_pointer FROM "
                           "attempt_sources src JOIN attempts a USING (attempt_id) JOIN sources s USING "
                           "(source_id) WHERE a.candidate = '" +
                               candidate + "' AND s.kind = 'workflow_return' ORDER BY 1) x");
  };
  EXPECT_EQ(cites("cand__w8a8_block_fp8_matmul_aiter_swap"), "/state/history/ledger/0");
  EXPECT_EQ(cites("cand__w8a8_block_fp8_matmul_ck_tuned"), "/state/history/ledger/1");
  EXPECT_EQ(cites("cand__w8a8_block_fp8_matmul_flydsl"), "/state/history/ledger/2");
  EXPECT_EQ(cites("cand__w8a8_block_fp8_matmul_triton"),
            "/accepted_heads/0 /state/history/ledger/3 /state/history/ledger/4");
  // The bake-off winner (flydsl 1.735×) is the flydsl candidate's attempt.
  EXPECT_EQ(query_value(db, "SELECT a.candidate FROM attempt_sources src JOIN attempts a USING (attempt_id) "
                            "JOIN sources s USING (source_id) WHERE s.kind = 'opbench_result'"),
            "cand__w8a8_block_fp8_matmul_flydsl");
}

// A planted disagreement (an attempt row edited behind rfdb's back) is found
// by `rfdb check`, which names the file and exits 1.
TEST(EvidenceCheck, FlagsAPlantedDisagreement)
{
  TempDir tmp;
  const auto db = tmp / "dev.sqlite";
  const std::string run = k_dev_runs[3];
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0);
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec(
        "UPDATE attempts SET isolated_speedup = 1.75 WHERE candidate = 'cand_fused_moe_kernel_gptq_awq'");
  }
  const auto r = run_cli({"--db", db.string(), "check", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  const json j = json::parse(r.out);
  EXPECT_FALSE(j.at("ok").get<bool>());
  std::vector<std::string> files;
  for (const auto& d : j.at("evidence_disagreements")) {
    EXPECT_EQ(d.at("field"), "isolated_speedup");
    EXPECT_EQ(d.at("attempt_value"), "1.75");
    files.push_back(d.at("file").get<std::string>() + "#" + d.at("pointer").get<std::string>());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"kernels/fused_moe_kernel_gptq_awq_task/opbench_result.json#",
                                             "overlay/cand_fused_moe_kernel_gptq_awq/integrate_result.json#",
                                             "workflow_return.json#/accepted_heads/0",
                                             "workflow_return.json#/state/history/ledger/1"}));
}

} // namespace
} // namespace rfdb::test

namespace rfdb::test {
namespace {

const json& prior_row(const json& doc, const std::string& op, const std::string& gfx = "",
                      const std::string& regime = "")
{
  for (const auto& r : doc.at("priors")) {
    const bool gfx_ok = gfx.empty() ? r.at("gfx").is_null() : r.at("gfx") == gfx;
    const bool regime_ok = regime.empty() ? r.at("regime").is_null() : r.at("regime") == regime;
    if (r.at("op_class") == op && gfx_ok && regime_ok) {
      return r;
    }
  }
  ADD_FAILURE() << "no prior row " << op << ":" << gfx << ":" << regime;
  static const json k_null;
  return k_null;
}

// The priors of the four dev runs, worked by hand from their expected
// attempts under issue 9's rules (k = 2 since issue 28, q = weighted 75th percentile,
// weights high 1 / medium 0.6 / low 0.25; measured predictions carry the
// confidence their roofline-v1 file states: medium) and issue 28's split:
// the k observations of one run on one kernel and one prediction weigh w/k.
// Every dev run's measured roofline says "rocprofiler-compute version: 3.1.1"
// and three runs are gfx950, so their measured verdicts are flagged
// profiler_hbm_undercount (issue 30): this computation counts them
// (--include-biased-profiler); DevRunPriors.BiasedProfilerEvidenceIsLeftOutByDefault
// works the default.
TEST(DevRunPriors, MatchTheHandComputation)
{
  TempDir tmp;
  const auto db = tmp / "dev.sqlite";
  for (const auto& run : k_dev_runs) {
    ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0) << run;
  }
  const auto r = run_cli({"--db", db.string(), "priors", "--by", "class,gfx,regime", "--format", "json",
                          "--include-biased-profiler"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("as_of"), "2026-08-24");
  EXPECT_EQ(doc.at("parameters").at("include_biased_profiler"), true);

  // gemm, five observations from two runs (all gfx950 decode); D6's four
  // candidates rest on one prediction (its measured baseline, medium: 0.6),
  // so each weighs 0.6 / 4 = 0.15:
  //   D6 A1 ck swap     0.474 × 1.288 = 0.6105  w 0.15
  //   D6 A2 ck tuned    0.474 × 1.523 = 0.7219  w 0.15
  //   D6 A3 flydsl      0.474 × 1.735 = 0.8224  w 0.15
  //   D6 A4 triton      post roofline 78.6 %  = 0.7860  w 0.15 (the deployed candidate)
  //   D7 A1 CK replay   0.472 × 1.9029 = 0.8982 w 0.25 (stage-A analytic, low)
  //   W = 0.85, 0.75·W = 0.6375: cumulative 0.15, 0.30, 0.45, 0.60, 0.85 → q = 0.8982
  //   t = (2·0.90 + 0.85·0.89817) / 2.85 = 0.8995
  // (Unsplit, D6 weighed 2.4 against D7's 0.25: W 2.65, q 0.8224, t 0.8558.)
  const json& gemm = prior_row(doc, "gemm");
  EXPECT_EQ(gemm.at("target_eff"), 0.8995);
  EXPECT_EQ(gemm.at("n"), 5);
  EXPECT_EQ(gemm.at("runs"), 2);
  EXPECT_EQ(gemm.at("weight"), 0.85);
  EXPECT_EQ(gemm.at("statistic"), 0.8982);
  EXPECT_EQ(gemm.at("measured"), 4); // D6's baseline roofline-v1
  EXPECT_EQ(gemm.at("analytic"), 1); // D7's stage A
  // All of gemm's evidence is gfx950 decode: each finer key equals the class.
  EXPECT_EQ(prior_row(doc, "gemm", "gfx950").at("target_eff"), 0.8995);
  EXPECT_EQ(prior_row(doc, "gemm", "gfx950", "decode").at("target_eff"), 0.8995);

  // moe: D9 A2 post roofline 80.3 % (w 0.6). D7's tunes (1.028×, 1.034×) are
  // inside the 3.4 % band. t = (1.8 + 0.6·0.803) / 2.6 = 0.8776.
  const json& moe = prior_row(doc, "moe");
  EXPECT_EQ(moe.at("target_eff"), 0.8776);
  EXPECT_EQ(moe.at("n"), 1);
  EXPECT_EQ(prior_row(doc, "moe", "gfx942").at("target_eff"), 0.8776);
  // moe:gfx950 has no evidence: the class value, and its nearest key.
  const json& moe950 = prior_row(doc, "moe", "gfx950");
  EXPECT_EQ(moe950.at("source"), "parent");
  EXPECT_EQ(moe950.at("target_eff"), 0.8776);
  EXPECT_EQ(moe950.at("nearest"), json::parse(R"([{"key": "moe:gfx942", "target_eff": 0.8776}])"));

  // attn: D8 only (gfx950), the parity-failed aggressive rewrite (2.347×) excluded:
  //   A1 launcher  0.432 × 1.10  = 0.4752 (decode)   A2 rewrite post 71.8 % = 0.7180 (decode)
  //   A4 pow2 cut  0.614 × 1.194 = 0.7331 (prefill)  A5 rebind  post 64.9 % = 0.6490 (prefill)
  //   w 0.6 each, split in two per prediction (decode kernel {A1, A2}, prefill
  //   kernel {A4, A5}): 0.3 each. W = 1.2, 0.75·W = 0.9: 0.4752, 0.6490, 0.7180
  //   (cum 0.9) → q 0.718; attn = (1.0 + 1.2·0.718) / 3.2 = 0.58175 → 0.5818 (= attn:gfx950)
  //   attn:gfx950:decode: gfx950 minus decode = {0.7331, 0.649}, W 0.6 → q 0.7331:
  //     (1.0 + 0.6·0.73312)/2.6 = 0.55380; own {0.4752, 0.718} → q 0.718:
  //     (2·0.55380 + 0.6·0.718)/2.6 = 0.5917
  //   attn:gfx950:prefill: gfx950 minus prefill = {0.4752, 0.718} → (1.0 + 0.4308)/2.6 = 0.55031;
  //     own q 0.7331: (2·0.55031 + 0.6·0.73312)/2.6 = 0.5925
  EXPECT_EQ(prior_row(doc, "attn").at("target_eff"), 0.5818);
  EXPECT_EQ(prior_row(doc, "attn").at("n"), 4);
  EXPECT_EQ(prior_row(doc, "attn").at("weight"), 1.2);
  EXPECT_EQ(prior_row(doc, "attn").at("runs"), 1);
  EXPECT_TRUE(prior_row(doc, "attn").at("interval").is_null()); // one run: D8
  EXPECT_EQ(prior_row(doc, "attn").at("interval_reason"), "one run");
  EXPECT_EQ(prior_row(doc, "attn", "gfx950").at("target_eff"), 0.5818);
  EXPECT_EQ(prior_row(doc, "attn", "gfx950", "decode").at("target_eff"), 0.5917);
  EXPECT_EQ(prior_row(doc, "attn", "gfx950", "prefill").at("target_eff"), 0.5925);
  EXPECT_EQ(prior_row(doc, "elementwise").at("source"), "seed");

  // e2e transfer, x = clamp(d / c, −1, 2), c = pct × (1 − 1/s):
  //   gemm decode, runs D6 and D7:
  //     D7 A1 c = 20.00 × (1 − 1/1.9029) = 9.490, d 19.45 → 2.05 → x 2 (beyond the ceiling)
  //     D6 A1 c = 41.22 × (1 − 1/1.288) = 9.217, d 0.41 → 0.0445
  //     D6 A2 c = 14.155, d 6.46 → 0.4564;  D6 A3 c = 17.462, d −51.9 → x −1;
  //     D6 A4 c = 19.514, d 15.81 → 0.8102
  //     ascending x: −1 (17.46), 0.0445 (26.68), 0.4564 (40.83 ≥ ½·69.84) → m 0.4564
  //     ratio (3 + 2·0.4564) / 5 = 0.7826
  //   moe decode, runs D7 and D9:
  //     D9 A2 c = 53.71 × (1 − 1/1.5902) = 19.934, d 16.049 → 0.8051
  //     D7 A2 c = 21.40 × (1 − 1/1.028) = 0.583, d 1.36 → x 2; D7 A3 c 0.704, d −0.21 → −0.2984
  //     ascending: −0.2984 (0.70), 0.8051 (20.64 ≥ ½·21.22) → m 0.8051; (3 + 1.6102)/5 = 0.9220
  //   attn decode and prefill: one run each (D8; the no_engagement A4 and the
  //   parity-failed A3 left out) → ratio 1, raw.
  std::map<std::string, json> transfer;
  for (const auto& t : doc.at("e2e_transfer")) {
    transfer[t.at("op_class").get<std::string>() + ":" + t.at("regime").get<std::string>()] = t;
  }
  ASSERT_EQ(transfer.size(), 4U);
  EXPECT_EQ(transfer["gemm:decode"].at("median_ratio"), 0.7826);
  EXPECT_EQ(transfer["gemm:decode"].at("statistic"), 0.4564);
  EXPECT_EQ(transfer["gemm:decode"].at("n"), 2);
  EXPECT_EQ(transfer["gemm:decode"].at("attempts"), 5);
  EXPECT_EQ(transfer["gemm:decode"].at("beyond_ceiling"), 1);
  EXPECT_EQ(transfer["gemm:decode"].at("sign_flips"), 1);
  EXPECT_EQ(transfer["moe:decode"].at("median_ratio"), 0.922);
  EXPECT_EQ(transfer["moe:decode"].at("attempts"), 3);
  EXPECT_EQ(transfer["attn:decode"].at("median_ratio"), 1.0);
  EXPECT_EQ(transfer["attn:decode"].at("source"), "raw");
  EXPECT_EQ(transfer["attn:decode"].at("attempts"), 2);
  EXPECT_EQ(transfer["attn:prefill"].at("attempts"), 1);
}

// The default priors of the dev runs (issue 30): the observations resting on
// a gfx950 measured roofline from rocprof-compute 3.1.1 (< 3.5) are left out,
// 7 of them: D6's four gemm candidates (their prediction is D6's measured
// baseline; A4's e is also its post roofline's), D8's attn A2 (e from the
// post roofline), A4 and A5 (the _fwd_kernel measured baseline). D9's moe
// evidence is gfx942 (not flagged) and stays.
//   gemm: D7 A1 only, 0.472 × 1.9029 = 0.8982, w 0.25 (stage-A analytic, low):
//     (2·0.90 + 0.25·0.8982) / 2.25 = 0.8998 (was 0.8995 with D6's four)
//   attn: D8 A1 only, 0.432 × 1.10 = 0.4752, w 0.6 (its decode kernel's
//     prediction now has one observation, so no split): (1.0 + 0.6·0.4752) / 2.6
//     = 0.4943 (was 0.5818); attn:gfx950:decode the same; no prefill key is left
//     (its observations were A4 and A5)
//   moe: 0.8776, unchanged. The e2e transfer reads pct_gpu_time, s and d, not
//   the roofline: unchanged (gemm decode 0.7826 over 5 attempts).
TEST(DevRunPriors, BiasedProfilerEvidenceIsLeftOutByDefault)
{
  TempDir tmp;
  const auto db = tmp / "dev.sqlite";
  for (const auto& run : k_dev_runs) {
    ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0) << run;
  }
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM verdicts WHERE profiler_hbm_undercount = 1"), "7");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM verdicts v JOIN runs r ON r.run_id = v.run_id WHERE "
                            "v.profiler_hbm_undercount = 1 AND r.gfx <> 'gfx950'"),
            "0");
  const auto r = run_cli({"--db", db.string(), "priors", "--by", "class,gfx,regime", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("parameters").at("include_biased_profiler"), false);
  const json& gemm = prior_row(doc, "gemm");
  EXPECT_EQ(gemm.at("target_eff"), 0.8998);
  EXPECT_EQ(gemm.at("n"), 1);
  EXPECT_EQ(gemm.at("weight"), 0.25);
  EXPECT_EQ(gemm.at("statistic"), 0.8982);
  EXPECT_EQ(gemm.at("measured"), 0);
  EXPECT_EQ(prior_row(doc, "gemm", "gfx950", "decode").at("target_eff"), 0.8998);
  EXPECT_EQ(prior_row(doc, "moe").at("target_eff"), 0.8776);
  EXPECT_EQ(prior_row(doc, "moe", "gfx942").at("n"), 1);
  const json& attn = prior_row(doc, "attn");
  EXPECT_EQ(attn.at("target_eff"), 0.4943);
  EXPECT_EQ(attn.at("n"), 1);
  EXPECT_EQ(attn.at("weight"), 0.6);
  EXPECT_EQ(attn.at("statistic"), 0.4752);
  EXPECT_EQ(prior_row(doc, "attn", "gfx950", "decode").at("target_eff"), 0.4943);
  for (const auto& row : doc.at("priors")) {
    EXPECT_FALSE(row.at("op_class") == "attn" && row.at("regime") == "prefill") << row.dump();
  }
  bool gemm_decode = false;
  for (const auto& t : doc.at("e2e_transfer")) {
    if (t.at("op_class") == "gemm" && t.at("regime") == "decode") {
      EXPECT_EQ(t.at("median_ratio"), 0.7826);
      EXPECT_EQ(t.at("attempts"), 5);
      gemm_decode = true;
    }
  }
  EXPECT_TRUE(gemm_decode);
  // The text form counts them among the exclusions; the playbook names them.
  const auto text = run_cli({"--db", db.string(), "--format", "table", "priors"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("biased_profiler 7"), std::string::npos) << text.out;
  const auto report = run_cli({"--db", db.string(), "report"});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_NE(report.out.find(" 7 observations on measured rooflines from rocprof-compute < 3.5 on gfx950 left "
                            "out (HBM under-count"),
            std::string::npos);
}

// `--transfer-strength` (k_t, default 3) is the transfer's own shrink toward
// 1 and reaches it; `--prior-strength` (target_eff's k) does not
// (docs/estimator.md, "Why k = 2"). gemm decode: m 0.4564 over 2 runs.
TEST(DevRunPriors, TransferStrengthReachesTheTransferAndPriorStrengthDoesNot)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  for (const auto& run : k_dev_runs) {
    ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0) << run;
  }
  const auto gemm_decode = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"--db", db.string(), "priors", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const json doc = json::parse(r.out);
    for (const auto& t : doc.at("e2e_transfer")) {
      if (t.at("op_class") == "gemm" && t.at("regime") == "decode") {
        return t.at("median_ratio").get<double>();
      }
    }
    ADD_FAILURE() << "no gemm decode transfer row";
    return 0.0;
  };
  EXPECT_EQ(gemm_decode({}), 0.7826);                           // (3 + 2·0.4564) / 5
  EXPECT_EQ(gemm_decode({"--transfer-strength", "3"}), 0.7826); // the default
  EXPECT_EQ(gemm_decode({"--transfer-strength", "0"}), 0.4564); // m itself
  EXPECT_EQ(gemm_decode({"--transfer-strength", "8"}), 0.8913); // (8 + 0.9128) / 10
  EXPECT_EQ(gemm_decode({"--prior-strength", "10"}), 0.7826);   // target_eff's k only
  const auto negative = run_cli({"--db", db.string(), "priors", "--transfer-strength", "-1"});
  EXPECT_EQ(negative.code, 2); // a usage error
  EXPECT_NE(negative.err.find("--transfer-strength: expected a number of 0 or more, got '-1'"),
            std::string::npos)
      << negative.err;
  EXPECT_EQ(negative.out, "");
}

// Ingest order, a duplicate-free re-ingest and a fixed --as-of never change
// the priors or the playbook, byte for byte.
TEST(DevRunPriors, OrderAndReingestDoNotChangeTheOutput)
{
  TempDir tmp;
  std::vector<std::string> outputs;
  const std::vector<std::vector<std::string>> orders = {
      k_dev_runs, {k_dev_runs[3], k_dev_runs[1], k_dev_runs[0], k_dev_runs[2]}};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const auto db = tmp / ("order" + std::to_string(i) + ".sqlite");
    for (const auto& run : orders[i]) {
      ASSERT_EQ(run_cli({"--db", db.string(), "ingest", (dev_runs_dir() / run).string()}).code, 0);
    }
    if (i == 1) { // re-ingest everything: nothing new, nothing changes
      const auto again = run_cli({"--db", db.string(), "ingest", dev_runs_dir().string()});
      ASSERT_EQ(again.code, 0) << again.err;
    }
    const auto p = run_cli({"--db", db.string(), "priors", "--by", "class,gfx,regime", "--format", "json",
                            "--as-of", "2026-09-01", "--half-life", "90"});
    const auto rep = run_cli({"--db", db.string(), "report", "--as-of", "2026-09-01"});
    ASSERT_EQ(p.code, 0) << p.err;
    ASSERT_EQ(rep.code, 0) << rep.err;
    outputs.push_back(p.out + rep.out);
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

} // namespace
} // namespace rfdb::test

namespace rfdb::test {
namespace {

// D8's ingest sequence: the stage-A roofline first (from the .bak a plain
// ingest ignores), then the shipped stage-B file supersedes it.
TEST(DevRunSequence, StageBSupersedesStageAAndRepredicts)
{
  TempDir tmp;
  const std::string run = k_dev_runs[2];
  const auto dir = tmp / run;
  std::filesystem::copy(dev_runs_dir() / run, dir, std::filesystem::copy_options::recursive);
  const auto roofline = dir / "profile/round_0/profile_roofline.json";
  const std::string stage_b = read_bytes(roofline);
  write_bytes(roofline, read_bytes(dir / "profile/round_0/profile_roofline.stageA.json.bak"));
  const auto db = tmp / "seq.sqlite";
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", dir.string()}).code, 0);
  const auto launcher_pred = [&](const std::string& field) {
    return query_value(db, "SELECT " + field +
                               " FROM attempts WHERE candidate = 'cand__fwd_grouped_kernel_stage1_launcher'");
  };
  // Step 1: the suspect stage-A decode verdict (raw 1.12) predicted A1–A3.
  EXPECT_EQ(launcher_pred("pred_stage"), "A");
  EXPECT_EQ(launcher_pred("pred_suspect"), "1");
  EXPECT_EQ(launcher_pred("pred_headroom_class"), "unknown");
  EXPECT_EQ(
      query_value(db, "SELECT pred_source_kind FROM attempts WHERE candidate = 'cand__fwd_kernel_rebind'"),
      "measured");
  const std::string attempts_before = query_value(db, "SELECT count(*) FROM attempts");
  // Step 2: the stage-B file supersedes; stage A stays queryable.
  write_bytes(roofline, stage_b);
  const auto second = run_cli({"--db", db.string(), "ingest", dir.string(), "--format", "json"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(launcher_pred("pred_stage"), "B");
  EXPECT_EQ(launcher_pred("pred_roofline_pct"), "0.432");
  EXPECT_EQ(launcher_pred("pred_attainable_speedup"), "1.157");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM verdicts WHERE superseded = 1"), "5");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts"), attempts_before);
  const json report = json::parse(second.out);
  EXPECT_EQ(report.at("paths").at(0).at("files").at("superseded"),
            json::array({"profile/round_0/profile_roofline.json"}));
}

} // namespace
} // namespace rfdb::test

namespace rfdb::test {
namespace {

// Inputs a fresh tester designed to break the attempt model (D6 mutated).
class DevRunMutation : public ::testing::Test {
protected:
  void SetUp() override
  {
    dir = tmp / k_dev_runs[0];
    std::filesystem::copy(dev_runs_dir() / k_dev_runs[0], dir, std::filesystem::copy_options::recursive);
  }
  CliResult ingest(const std::vector<std::string>& extra = {})
  {
    std::vector<std::string> args = {"--db", db.string(), "ingest", dir.string(), "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }
  std::string count_attempts() { return query_value(db, "SELECT count(*) FROM attempts"); }
  TempDir tmp;
  std::filesystem::path dir;
  std::filesystem::path db = tmp / "m.sqlite";
};

TEST_F(DevRunMutation, ACandidateCopiedUnderFinalOverlayIsOneAttempt)
{
  std::filesystem::create_directories(dir / "final/overlay");
  std::filesystem::copy(dir / "overlay/cand__w8a8_block_fp8_matmul_triton",
                        dir / "final/overlay/cand__w8a8_block_fp8_matmul_triton",
                        std::filesystem::copy_options::recursive);
  ASSERT_EQ(ingest().code, 0);
  EXPECT_EQ(count_attempts(), "8");
  // The ledger rows and the accepted head still attach to it.
  EXPECT_EQ(query_value(db, "SELECT verdict_raw || ' ' || deployed || ' ' || post_measured FROM attempts "
                            "WHERE candidate = 'cand__w8a8_block_fp8_matmul_triton'"),
            "confirmed 1 1");
}

TEST_F(DevRunMutation, AReferenceMatchingNoCandidateWarnsAndStrictRefusesIt)
{
  // The flydsl integrate result now disagrees with its ledger row on e2e.
  const auto f = dir / "overlay/cand__w8a8_block_fp8_matmul_flydsl/integrate_result.json";
  std::string text = read_bytes(f);
  text.replace(text.find("\"-51.9\""), 7, "\"-41.9\"");
  write_bytes(f, text);
  const auto strict = ingest({"--strict"});
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(strict.err.find("--strict: workflow_return.json /state/history/ledger/2: ledger row for "
                            "_w8a8_block_fp8_matmul matches no measured candidate"),
            std::string::npos)
      << strict.err;
  const auto r = ingest();
  ASSERT_EQ(r.code, 0) << r.err;
  const json warnings = json::parse(r.out).at("paths").at(0).at("warnings");
  bool found = false;
  for (const auto& w : warnings) {
    found = found ||
            (w.at("pointer") == "/state/history/ledger/2" &&
             w.at("message").get<std::string>().find("matches no measured candidate") != std::string::npos);
  }
  EXPECT_TRUE(found) << warnings.dump(1);
  EXPECT_EQ(count_attempts(), "9");
}

TEST_F(DevRunMutation, AnImpossibleE2eDeltaIsBadInput)
{
  const auto f = dir / "overlay/cand__w8a8_block_fp8_matmul_triton/integrate_result.json";
  std::string text = read_bytes(f);
  text.replace(text.find("\"e2e_delta_pct\": 15.81"), 22, "\"e2e_delta_pct\": 1e300");
  write_bytes(f, text);
  const auto r = ingest();
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/e2e_delta_pct: e2e_delta_pct 1e+300 is outside -100–1000"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(db) && query_value(db, "SELECT count(*) FROM runs") != "0");
}

TEST_F(DevRunMutation, GfxSpellingsAreOneKey)
{
  const auto f = dir / "env_report.json";
  std::string text = read_bytes(f);
  text.replace(text.find("\"gfx\": \"gfx950\""), 15, "\"gfx\": \"gfx950:sramecc+:xnack-\"");
  write_bytes(f, text);
  const auto r = ingest();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db, "SELECT gfx FROM runs"), "gfx950");
}

TEST_F(DevRunMutation, ADuplicatedOutputParityIsBadInput)
{
  const auto f = dir / "overlay/cand__w8a8_block_fp8_matmul_triton/integrate_result.json";
  std::string text = read_bytes(f);
  text.replace(text.find("\"output_parity\": \"pass\""), 23,
               "\"output_parity\": \"fail\", \"output_parity\": \"pass\"");
  write_bytes(f, text);
  const auto r = ingest();
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/output_parity: duplicate key 'output_parity' with different values"),
            std::string::npos)
      << r.err;
}

TEST_F(DevRunMutation, RejectWordsAreWholeWordsInAnyCase)
{
  const auto f = dir / "overlay/cand__w8a8_block_fp8_matmul_triton/integrate_result.json";
  const std::string original = read_bytes(f);
  const auto with_reason = [&](const std::string& reason) {
    std::string text = original;
    const auto at = text.find("\"reason\": \"");
    const auto end = text.find("\",\n", at);
    text.replace(at, end + 1 - at, "\"reason\": \"" + reason + "\"");
    write_bytes(f, text);
    std::filesystem::remove(db);
    EXPECT_EQ(ingest().code, 0) << reason;
    return query_value(db, "SELECT reject_reason FROM attempts WHERE candidate = "
                           "'cand__w8a8_block_fp8_matmul_triton'");
  };
  EXPECT_EQ(with_reason("Parity_Regression: greedy outputs diverge"), "parity_regression");
  EXPECT_EQ(with_reason("rejected (parity regression: 9/16 prompts)"), "parity_regression");
  EXPECT_EQ(with_reason("see parity_regression_report.md"), "NULL");
}

} // namespace
} // namespace rfdb::test

namespace rfdb::test {
namespace {

// A run whose rows an older rfdb wrote (derived_by 0, as migration 0006
// leaves every existing run) is re-derived on its next ingest, though no
// file changed; a current run is skipped unchanged.
TEST(DevRunRederive, RowsWrittenByOlderRulesAreRederivedOnTheNextIngest)
{
  TempDir tmp;
  const auto db = tmp / "old.sqlite";
  const auto dir = (dev_runs_dir() / k_dev_runs[3]).string();
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", dir}).code, 0);
  EXPECT_EQ(query_value(db, "SELECT derived_by FROM runs"), std::to_string(ingest::k_derivation_version));
  const auto again = run_cli({"--db", db.string(), "ingest", dir, "--format", "json"});
  EXPECT_EQ(json::parse(again.out).at("paths").at(0).at("status"), "unchanged");
  {
    // What an older rfdb left: one merged attempt row too few, stale version.
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec("DELETE FROM attempts WHERE candidate = 'cand_fused_moe_kernel_gptq_awq'");
    conn.exec("UPDATE runs SET derived_by = 0");
  }
  const auto r = run_cli({"--db", db.string(), "ingest", dir, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json path = json::parse(r.out).at("paths").at(0);
  EXPECT_EQ(path.at("status"), "updated");
  EXPECT_EQ(path.at("files").at("added").size(), 0U);
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM attempts"), "6");
  EXPECT_EQ(query_value(db, "SELECT derived_by FROM runs"), std::to_string(ingest::k_derivation_version));
}

} // namespace
} // namespace rfdb::test
