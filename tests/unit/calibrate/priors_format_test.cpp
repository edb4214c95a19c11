// Unit tests of the priors renderers (calibrate/priors_format.hpp).
#include "support/helpers.hpp"
#include "unit/calibrate/canonical.hpp"

#include "calibrate/priors_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rfdb::calibrate {
namespace {

using test::canonical;
using test::canonical_attn;
using test::canonical_moe;

PriorsResult compute(const std::vector<Observation>& in, PriorsParams p = {})
{
  auto r = compute_priors(in, p);
  EXPECT_TRUE(r.has_value());
  return *r;
}

PriorRow prior(std::string op_class, std::optional<std::string> gfx, double target_eff, int n, int runs,
               PriorSource source, std::optional<Interval> interval = std::nullopt, std::string reason = "")
{
  PriorRow r;
  r.op_class = std::move(op_class);
  r.gfx = std::move(gfx);
  r.seed = *domain::seed_target_eff(r.op_class);
  r.parent = r.seed;
  r.target_eff = target_eff;
  r.n = n;
  r.runs = runs;
  r.weight = n * 0.6;
  if (n > 0) {
    r.statistic = target_eff;
    r.last_seen = "2026-08-24";
  }
  r.interval = interval;
  r.interval_reason = std::move(reason);
  r.source = source;
  return r;
}

TransferRow transfer(std::string op_class, std::string regime, int runs, int attempts, double ratio,
                     TransferSource source, std::optional<Interval> interval, bool capped, int beyond_ceiling)
{
  TransferRow t;
  t.op_class = std::move(op_class);
  t.regime = std::move(regime);
  t.n = runs;
  t.attempts = attempts;
  t.median_ratio = ratio;
  t.source = source;
  t.interval = interval;
  t.capped = capped;
  t.beyond_ceiling = beyond_ceiling;
  if (runs >= 2) {
    t.statistic = capped ? 1.4 : ratio;
  }
  return t;
}

// Rows as the issue-28 estimator fills them, built by hand so the renderers
// are checked independently of its arithmetic: gemm from 5 observations of 2
// runs, moe from 2 observations of one run (no interval: "one run"), attn
// without observations (seed), moe:gfx942 copied from moe; a transfer ratio
// of 1.4 from 2 runs capped at 1.0, and a raw one-run transfer.
PriorsResult evidence_result()
{
  PriorsResult r;
  r.as_of = "2026-08-24";
  r.params.level = PriorsLevel::op_class_gfx;
  r.priors = {prior("gemm", std::nullopt, 0.8788, 5, 2, PriorSource::calibrated, Interval{0.8123, 0.8991}),
              prior("gemm", "gfx950", 0.8788, 5, 2, PriorSource::calibrated, Interval{0.8123, 0.8991}),
              prior("moe", std::nullopt, 0.8257, 2, 1, PriorSource::calibrated, std::nullopt, "one run"),
              prior("moe", "gfx942", 0.8257, 0, 0, PriorSource::parent, std::nullopt, "no observations"),
              prior("moe", "gfx950", 0.8257, 2, 1, PriorSource::calibrated, std::nullopt, "one run"),
              prior("attn", std::nullopt, 0.5, 0, 0, PriorSource::seed, std::nullopt, "no observations")};
  r.priors[0].measured = 1;
  r.priors[0].analytic = 4;
  r.e2e_transfer = {
      transfer("moe", "decode", 2, 3, 1.0, TransferSource::calibrated, Interval{1.0, 1.0}, true, 2),
      transfer("gemm", "decode", 6, 9, 0.7826, TransferSource::calibrated, Interval{0.61, 0.93}, false, 1),
      transfer("attn", "prefill", 1, 1, 1.0, TransferSource::raw, std::nullopt, false, 0)};
  return r;
}

TEST(RenderPriorsMd, CanonicalRun)
{
  const std::string expected =
      "| op class | target_eff | n | runs | interval | source | why |\n"
      "|---|---:|---:|---:|---|---|---|\n"
      "| gemm | 0.9000 | 0 | 0 | no observations | seed | seed 0.90; no observations |\n"
      "| moe | 0.9049 | 1 | 1 | one run | calibrated | seed 0.90; 1 obs (q 0.921, W 0.60) shrunk "
      "with k=2 "
      "|\n"
      "| elementwise | 0.8750 | 0 | 0 | no observations | seed | seed 0.875; no observations |\n"
      "| attn | 0.4494 | 1 | 1 | one run | calibrated | seed 0.50; 1 obs (q 0.281, W 0.60) shrunk "
      "with k=2 "
      "|\n"
      "\n"
      "e2e transfer: multiply expected_e2e_gain_pct by median_ratio (raw: fewer than 2 runs, the raw Amdahl "
      "ceiling).\n"
      "\n"
      "| op class | regime | median_ratio | runs | attempts | interval | source | why |\n"
      "|---|---|---:|---:|---:|---|---|---|\n"
      "| moe | decode | 1.0000 | 1 | 1 | one run | raw | fewer than 2 runs: use the raw Amdahl ceiling |\n";
  EXPECT_EQ(render_priors_md(compute(canonical())), expected);
}

TEST(RenderPriorsMd, ChildRowsNameTheirParent)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx;
  auto in = canonical();
  in.push_back(canonical_moe());
  in.back().prediction.roofline_pct = 0.95; // e = 0.95 × 1.2 = 1.14 > 1.05: infeasible,
  in.back().isolated_speedup = 1.2;         // counted once as a contradiction
  const std::string md = render_priors_md(compute(in, p));
  // A key without evidence names the nearest keys of its class that have some.
  PriorsParams fine;
  fine.level = PriorsLevel::op_class_gfx_regime;
  auto two_regimes = canonical();
  Observation prefill = canonical_moe(); // gfx942 prefill: e = 0.5 × 1.8 = 0.90, weight 0.6
  prefill.gfx = "gfx942";
  prefill.regime = "prefill";
  prefill.prediction.roofline_pct = 0.5;
  prefill.isolated_speedup = 1.8;
  prefill.prediction.attainable_speedup = 2.0;
  two_regimes.push_back(prefill);
  Observation attn_gfx942 = canonical_attn(); // makes the gfx942:decode keys exist
  attn_gfx942.gfx = "gfx942";
  two_regimes.push_back(attn_gfx942);
  // moe:gfx942:decode: moe minus gfx942 = {0.92136}: (2.7 + 0.6·0.92136)/3.6 = 0.90356;
  // gfx942 minus decode = {0.90}: (3·0.90356 + 0.54)/3.6 = 0.90297; no own evidence.
  // moe:gfx950:decode: (3·0.90 + 0.6·0.92136)/3.6 = 0.90356.
  const std::string md2 = render_priors_md(compute(two_regimes, fine));
  EXPECT_NE(
      md2.find("| moe:gfx942:decode | 0.9038 | 0 | 0 | no observations | parent | no observations; parent "
               "0.9038 (seed shrunk by the "
               "rest of moe:gfx942); nearest with evidence: moe:gfx942:prefill 0.9038, moe:gfx950:decode "
               "0.9049 |\n"),
      std::string::npos)
      << md2;
  // One gfx holds all of moe's evidence: the seed is its parent (moe minus
  // gfx950 is empty), and its value is moe's.
  EXPECT_NE(md.find("| moe:gfx950 | 0.9049 | 1 | 1 | one run | calibrated | parent 0.9000 (seed "
                    "shrunk by the rest "
                    "of moe); 1 obs (q 0.921, W 0.60) shrunk with k=2; 1 contradiction; 1 infeasible |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| gemm:gfx950 | 0.9000 | 0 | 0 | no observations | parent | no observations; parent "
                    "0.9000 (seed shrunk by the "
                    "rest of gemm) |\n"),
            std::string::npos)
      << md;
}

TEST(RenderPriorsPython, CanonicalRun)
{
  const std::string expected =
      "# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2025-05-20.\n"
      "# Levels: class; prior strength k=2. Regenerate rather than edit.\n"
      "# *_EVIDENCE: per value, n observations, runs (distinct runs), source (calibrated: its own\n"
      "# observations; parent: copied from its parent key; seed: no observations in the class) and\n"
      "# the 90 % interval [lo, hi] (None: fewer than 2 runs, or no observations).\n"
      "# gemm: seed, no observations\n"
      "# elementwise: seed, no observations\n"
      "TARGET_EFF = {\"gemm\": 0.9000, \"moe\": 0.9049, \"elementwise\": 0.8750, \"attn\": 0.4494}\n"
      "TARGET_EFF_EVIDENCE = {\n"
      "    \"gemm\": {\"n\": 0, \"runs\": 0, \"source\": \"seed\", \"interval\": None},\n"
      "    \"moe\": {\"n\": 1, \"runs\": 1, \"source\": \"calibrated\", \"interval\": None},\n"
      "    \"elementwise\": {\"n\": 0, \"runs\": 0, \"source\": \"seed\", \"interval\": None},\n"
      "    \"attn\": {\"n\": 1, \"runs\": 1, \"source\": \"calibrated\", \"interval\": None},\n"
      "}\n"
      "# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer\n"
      "# than 2 runs are absent: use the raw Amdahl ceiling there. A ratio above 1 from fewer than\n"
      "# 5 runs is capped at 1.0 (capped: True in E2E_TRANSFER_EVIDENCE).\n"
      "# (\"moe\", \"decode\"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)\n"
      "E2E_TRANSFER = {}\n"
      "E2E_TRANSFER_EVIDENCE = {\n"
      "    (\"moe\", \"decode\"): {\"runs\": 1, \"attempts\": 1, \"source\": \"raw\", \"interval\": None, "
      "\"capped\": False, \"beyond_ceiling\": 0},\n"
      "}\n";
  EXPECT_EQ(render_priors_python(compute(canonical())), expected);
}

TEST(RenderPriorsPython, FollowsByAndExportsOnlyCalibratedTransfer)
{
  PriorsParams p;
  p.level = PriorsLevel::op_class_gfx_regime;
  auto in = canonical();
  Observation second = canonical_moe(); // a second run: the moe/decode transfer calibrates
  second.run_id = "run_2";
  second.run_date = "2025-05-21";
  in.push_back(second);
  const std::string py = render_priors_python(compute(in, p));
  EXPECT_NE(py.find("# Levels: class,gfx,regime;"), std::string::npos) << py;
  EXPECT_NE(py.find("TARGET_EFF_BY_GFX = {\n    \"gfx950\": {\"gemm\": 0.9000, \"moe\": "), std::string::npos)
      << py;
  EXPECT_NE(py.find("TARGET_EFF_BY_GFX_REGIME = {\n    \"gfx950\": {\n        \"decode\": {\"gemm\": 0.9000"),
            std::string::npos)
      << py;
  // Both runs: x = −0.064 / 1.187345 = −0.0539 → (3 + 2·(−0.0539))/5 = 0.5784.
  EXPECT_NE(py.find("E2E_TRANSFER = {(\"moe\", \"decode\"): 0.5784}\n"), std::string::npos) << py;
}

TEST(RenderPriorsJson, ContractKeysInOrder)
{
  const auto doc = nlohmann::ordered_json::parse(render_priors_json(compute(canonical())));
  std::vector<std::string> top;
  for (const auto& [k, v] : doc.items()) {
    top.push_back(k);
  }
  EXPECT_EQ(top, (std::vector<std::string>{"as_of", "parameters", "shifts", "priors", "e2e_transfer"}));
  std::vector<std::string> params;
  for (const auto& [k, v] : doc["parameters"].items()) {
    params.push_back(k);
  }
  EXPECT_EQ(params,
            (std::vector<std::string>{"prior_strength", "transfer_strength", "quantile", "iso_noise_band",
                                      "confidence_weights", "half_life_days", "include_parity_fail",
                                      "include_biased_profiler", "shift_weighting", "before_shift_weight"}));
  std::vector<std::string> row;
  for (const auto& [k, v] : doc["priors"][1].items()) {
    row.push_back(k);
  }
  EXPECT_EQ(row, (std::vector<std::string>{"op_class", "gfx", "regime", "seed", "target_eff", "n", "runs",
                                           "measured", "analytic", "weight", "statistic", "interval",
                                           "interval_reason", "contradictions", "infeasible", "last_seen",
                                           "source", "nearest"}));
  std::vector<std::string> transfer;
  for (const auto& [k, v] : doc["e2e_transfer"][0].items()) {
    transfer.push_back(k);
  }
  EXPECT_EQ(transfer, (std::vector<std::string>{"op_class", "regime", "n", "runs", "attempts", "median_ratio",
                                                "capped", "statistic", "source", "interval",
                                                "interval_reason", "sign_flips", "beyond_ceiling"}));
}

TEST(RenderPriorsJson, CanonicalValuesRounded)
{
  const auto doc = nlohmann::json::parse(render_priors_json(compute(canonical())));
  EXPECT_EQ(doc["as_of"], "2025-05-20");
  EXPECT_EQ(doc["parameters"]["prior_strength"], 2.0);
  EXPECT_EQ(doc["parameters"]["transfer_strength"], 3.0);
  EXPECT_EQ(doc["parameters"]["iso_noise_band"], 0.034);
  EXPECT_EQ(doc["parameters"]["confidence_weights"]["medium"], 0.6);
  EXPECT_TRUE(doc["parameters"]["half_life_days"].is_null());
  const auto& moe = doc["priors"][1];
  EXPECT_EQ(moe["op_class"], "moe");
  EXPECT_TRUE(moe["gfx"].is_null());
  EXPECT_EQ(moe["target_eff"], 0.9049);
  EXPECT_EQ(moe["statistic"], 0.9214);
  EXPECT_EQ(moe["weight"], 0.6);
  EXPECT_TRUE(moe["interval"].is_null()); // one run: no interval, and why
  EXPECT_EQ(moe["interval_reason"], "one run");
  EXPECT_EQ(moe["measured"], 0);
  EXPECT_EQ(moe["analytic"], 1);
  EXPECT_EQ(moe["source"], "calibrated");
  EXPECT_EQ(moe["last_seen"], "2025-05-20");
  EXPECT_EQ(doc["priors"][3]["target_eff"], 0.4494);
  EXPECT_TRUE(doc["priors"][0]["statistic"].is_null());
  EXPECT_TRUE(doc["priors"][0]["interval"].is_null());
  EXPECT_EQ(doc["priors"][0]["interval_reason"], "no observations");
  EXPECT_EQ(doc["e2e_transfer"][0]["capped"], false);
  // One run: the raw ceiling (ratio 1), not the run's own −0.0539.
  EXPECT_EQ(doc["e2e_transfer"][0]["median_ratio"], 1.0);
  EXPECT_EQ(doc["e2e_transfer"][0]["source"], "raw");
  EXPECT_TRUE(doc["e2e_transfer"][0]["statistic"].is_null());
  EXPECT_EQ(doc["priors"][1]["runs"], 1);
}

TEST(RenderPriorsJson, EmptyDatabaseIsTheSeeds)
{
  const std::string json = render_priors_json(compute({}));
  const auto doc = nlohmann::json::parse(json);
  EXPECT_TRUE(doc["as_of"].is_null());
  ASSERT_EQ(doc["priors"].size(), 4U);
  EXPECT_EQ(doc["priors"][2]["op_class"], "elementwise");
  EXPECT_EQ(doc["priors"][2]["target_eff"], 0.875);
  EXPECT_EQ(doc["priors"][2]["source"], "seed");
  EXPECT_TRUE(doc["e2e_transfer"].empty());
  // Two-space indent, one key per line, trailing newline.
  EXPECT_EQ(json.substr(0, 36), "{\n  \"as_of\": null,\n  \"parameters\": {");
  EXPECT_EQ(json.back(), '\n');
}

TEST(RenderPriorsJson, NegativeZeroNeverPrinted)
{
  Observation o = canonical_moe();
  o.e2e_delta_pct = -0.00001; // x ≈ −8e-6 in both runs, rounds to 0
  Observation o2 = o;
  o2.run_id = "run_2";
  const std::string json = render_priors_json(compute({o, o2}));
  EXPECT_NE(json.find("\"statistic\": 0.0"), std::string::npos) << json;
  EXPECT_EQ(json.find("-0.0"), std::string::npos);
}

TEST(RenderPriorsCsv, HeaderAndRows)
{
  const std::string csv = render_priors_csv(compute(canonical()));
  EXPECT_EQ(
      csv,
      "kind,op_class,gfx,regime,seed,target_eff,median_ratio,n,runs,attempts,weight,statistic,interval_lo,"
      "interval_hi,interval_reason,measured,analytic,contradictions,infeasible,sign_flips,beyond_ceiling,"
      "capped,"
      "last_seen,source,nearest\n"
      "target_eff,gemm,,,0.9000,0.9000,,0,0,,0.000,,,,no observations,0,0,0,0,,,,,seed,\n"
      "target_eff,moe,,,0.9000,0.9049,,1,1,,0.600,0.9214,,,one run,0,1,0,0,,,,2025-05-20,calibrated,\n"
      "target_eff,elementwise,,,0.8750,0.8750,,0,0,,0.000,,,,no observations,0,0,0,0,,,,,seed,\n"
      "target_eff,attn,,,0.5000,0.4494,,1,1,,0.600,0.2808,,,one run,0,1,0,0,,,,2025-05-20,calibrated,\n"
      "e2e_transfer,moe,,decode,,,1.0000,1,1,1,,,,,one run,,,,,0,0,false,,raw,\n");
}

TEST(RenderPriorsTable, AlignedWithTransferAndExclusions)
{
  auto in = canonical();
  Observation unknown = canonical_moe();
  unknown.op_class = "unknown";
  in.push_back(unknown);
  const std::string table = render_priors_table(compute(in));
  EXPECT_NE(table.find("moe          0.9000      0.9049  1     1  0.600  0.9214  one run"), std::string::npos)
      << table;
  EXPECT_NE(table.find("multiply expected_e2e_gain_pct by median_ratio"), std::string::npos);
  EXPECT_NE(table.find("moe       decode     1         1        1.0000  -  one run   no               0      "
                       "         0  raw"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("3 attempts, 2 observations; excluded: unknown_class 1\n"), std::string::npos)
      << table;
}

TEST(RenderPriorsPython, EvidenceBesideEachDictAndACommentPerValueNotCalibrated)
{
  const std::string py = render_priors_python(evidence_result());
  RFDB_EXPECT_GOLDEN("priors/evidence.py", py);
  EXPECT_NE(
      py.find("    \"moe\": {\"n\": 2, \"runs\": 1, \"source\": \"calibrated\", \"interval\": None},\n"),
      std::string::npos)
      << py;
  EXPECT_NE(py.find("# moe:gfx942 copied from its parent (n 0)\n"), std::string::npos) << py;
  EXPECT_NE(py.find("# attn: seed, no observations\n"), std::string::npos) << py;
  EXPECT_NE(py.find("# (\"moe\", \"decode\"): capped at 1.0 (2 runs, beyond ceiling 2)\n"), std::string::npos)
      << py;
  EXPECT_NE(py.find("# (\"attn\", \"prefill\"): raw Amdahl ceiling, 1 run (absent from E2E_TRANSFER)\n"),
            std::string::npos)
      << py;
  // Calibrated values carry no comment.
  EXPECT_EQ(py.find("# gemm"), std::string::npos) << py;
}

// The export is Python: run it and read every dict back as JSON.
TEST(RenderPriorsPython, EvidenceExportRunsAsPython)
{
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 not available";
  }
  rfdb::test::TempDir tmp;
  const auto script = tmp / "target_eff.py";
  const auto out = tmp / "out.json";
  rfdb::test::write_bytes(
      script, render_priors_python(evidence_result()) +
                  "import json, sys\n"
                  "t = lambda d: {'|'.join(k): v for k, v in d.items()}\n"
                  "json.dump({'eff': TARGET_EFF, 'ev': TARGET_EFF_EVIDENCE, 'gfx': TARGET_EFF_BY_GFX,\n"
                  "           'gfx_ev': TARGET_EFF_BY_GFX_EVIDENCE, 'tr': t(E2E_TRANSFER),\n"
                  "           'tr_ev': t(E2E_TRANSFER_EVIDENCE)}, open(sys.argv[1], 'w'))\n");
  const std::string cmd = "python3 " + script.string() + " " + out.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << rfdb::test::read_bytes(script);
  const auto doc = nlohmann::json::parse(rfdb::test::read_bytes(out));
  EXPECT_EQ(doc["eff"]["moe"], 0.8257);
  EXPECT_EQ(
      doc["ev"]["gemm"],
      nlohmann::json::parse(R"({"n": 5, "runs": 2, "source": "calibrated", "interval": [0.8123, 0.8991]})"));
  EXPECT_TRUE(doc["ev"]["moe"]["interval"].is_null());
  EXPECT_EQ(doc["ev"]["attn"]["source"], "seed");
  EXPECT_EQ(doc["gfx"]["gfx942"]["moe"], 0.8257);
  EXPECT_EQ(doc["gfx_ev"]["gfx942"]["moe"]["source"], "parent");
  EXPECT_EQ(doc["gfx_ev"]["gfx950"]["gemm"]["runs"], 2);
  // The capped ratio is exported at 1.0 and says so; the raw one only in the evidence.
  EXPECT_EQ(doc["tr"], nlohmann::json::parse(R"({"moe|decode": 1.0, "gemm|decode": 0.7826})"));
  EXPECT_EQ(
      doc["tr_ev"]["moe|decode"],
      nlohmann::json::parse(R"({"runs": 2, "attempts": 3, "source": "calibrated", "interval": [1.0, 1.0],
                                      "capped": true, "beyond_ceiling": 2})"));
  EXPECT_TRUE(doc["tr_ev"]["attn|prefill"]["interval"].is_null());
  EXPECT_EQ(doc["tr_ev"]["attn|prefill"]["source"], "raw");
}

TEST(RenderPriorsMd, RunsSourceAndIntervalOrItsReason)
{
  const std::string md = render_priors_md(evidence_result());
  EXPECT_EQ(md.substr(0, md.find('\n')), "| op class | target_eff | n | runs | interval | source | why |");
  EXPECT_NE(md.find("| gemm | 0.8788 | 5 | 2 | [0.8123, 0.8991] | calibrated | seed 0.90; 5 obs"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| moe | 0.8257 | 2 | 1 | one run | calibrated | "), std::string::npos) << md;
  EXPECT_NE(md.find("| moe:gfx942 | 0.8257 | 0 | 0 | no observations | parent | "), std::string::npos) << md;
  EXPECT_NE(md.find("| op class | regime | median_ratio | runs | attempts | interval | source | why |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find("| moe | decode | 1.0000 | 2 | 3 | [1.0000, 1.0000] | calibrated | capped at 1.0: a ratio "
              "above 1 needs 5 runs; m 1.4000; 2 beyond ceiling |\n"),
      std::string::npos)
      << md;
  EXPECT_NE(
      md.find("| attn | prefill | 1.0000 | 1 | 1 | one run | raw | fewer than 2 runs: use the raw Amdahl "
              "ceiling |\n"),
      std::string::npos)
      << md;
}

TEST(RenderPriorsCsv, TransferRowsAndIntervalReasons)
{
  const std::string csv = render_priors_csv(evidence_result());
  EXPECT_NE(csv.find("target_eff,moe,,,0.9000,0.8257,,2,1,,1.200,0.8257,,,one run,0,0,0,0,,,,2026-08-24,"
                     "calibrated,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(
      csv.find("target_eff,gemm,,,0.9000,0.8788,,5,2,,3.000,0.8788,0.8123,0.8991,,1,4,0,0,,,,2026-08-24,"
               "calibrated,\n"),
      std::string::npos)
      << csv;
  EXPECT_NE(
      csv.find("e2e_transfer,moe,,decode,,,1.0000,2,2,3,,1.4000,1.0000,1.0000,,,,,,0,2,true,,calibrated,\n"),
      std::string::npos)
      << csv;
  EXPECT_NE(csv.find("e2e_transfer,attn,,prefill,,,1.0000,1,1,1,,,,,one run,,,,,0,0,false,,raw,\n"),
            std::string::npos)
      << csv;
}

TEST(RenderPriorsJson, IntervalReasonCountsBySourceAndCapped)
{
  const auto doc = nlohmann::json::parse(render_priors_json(evidence_result()));
  EXPECT_TRUE(doc["priors"][0]["interval_reason"].is_null());
  EXPECT_EQ(doc["priors"][0]["measured"], 1);
  EXPECT_EQ(doc["priors"][0]["analytic"], 4);
  EXPECT_EQ(doc["priors"][2]["interval_reason"], "one run");
  EXPECT_TRUE(doc["priors"][2]["interval"].is_null());
  EXPECT_EQ(doc["priors"][5]["interval_reason"], "no observations");
  EXPECT_EQ(doc["e2e_transfer"][0]["capped"], true);
  EXPECT_EQ(doc["e2e_transfer"][0]["median_ratio"], 1.0);
  EXPECT_EQ(doc["e2e_transfer"][0]["statistic"], 1.4);
  EXPECT_EQ(doc["e2e_transfer"][1]["capped"], false);
  EXPECT_EQ(doc["e2e_transfer"][2]["interval_reason"], "one run");
  // The table says the same: the reason in the interval column, the cap beside the source.
  const std::string table = render_priors_table(evidence_result());
  EXPECT_NE(table.find("moe:gfx942   0.9000      0.8257  0     0  0.000       -  no observations"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  calibrated (capped at 1.0)\n"), std::string::npos) << table;
  // A row the estimator left without a reason gets the one its counts imply.
  PriorsResult bare = evidence_result();
  bare.priors[2].interval_reason.clear();
  EXPECT_EQ(nlohmann::json::parse(render_priors_json(bare))["priors"][2]["interval_reason"], "one run");
}

TEST(RenderExplain, ListsObservationsExclusionsAndArithmetic)
{
  auto in = canonical();
  Observation suspect = canonical_moe();
  suspect.round = "2";
  suspect.prediction.suspect = true;
  in.push_back(suspect);
  const auto ex = explain_priors(in, {}, *parse_priors_key("moe"));
  ASSERT_TRUE(ex.has_value());
  const std::string text = render_explain(*ex);
  EXPECT_NE(text.find("Contributing observations (1):"), std::string::npos) << text;
  EXPECT_NE(
      text.find("e2e_qwen35_a3b_fp8_gfx950  2025-05-20      1  fused_moe_kernel  moe_tuning_db  gfx950  "
                "decode        0.8800  1.047  0.9214   0.600"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("Excluded attempts (1):"), std::string::npos);
  EXPECT_NE(text.find("suspect\n"), std::string::npos);
  EXPECT_NE(text.find("  seed moe 0.9000\n  moe: n=1, runs=1, W=0.600, q=0.9214"), std::string::npos) << text;
  EXPECT_NE(text.find("    (2*0.9000 + 0.600*0.9214) / (2 + 0.600) = 0.9049\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: moe target_eff 0.9049\n"), std::string::npos);
  // One run: no interval, and the evidence mix.
  EXPECT_NE(text.find("  no 90% interval (one run); last_seen 2025-05-20;"), std::string::npos) << text;
  EXPECT_NE(text.find("  evidence: 0 observations from measured predictions, 1 from analytic ones\n"),
            std::string::npos)
      << text;
  // The attention attempt belongs to another class and is not listed.
  EXPECT_EQ(text.find("kernel_paged_attention_2d"), std::string::npos);
}

TEST(RenderExplain, EmptyKeyShowsParentValue)
{
  const auto ex = explain_priors(canonical(), {}, *parse_priors_key("moe:gfx942"));
  ASSERT_TRUE(ex.has_value());
  const std::string text = render_explain(*ex);
  // The path: moe minus gfx942 holds the gfx950 observation (→ 0.9049),
  // and gfx942 itself has none, so it keeps that value.
  EXPECT_NE(text.find("  moe minus gfx942: n=1, runs=1, W=0.600, q=0.9214"), std::string::npos) << text;
  EXPECT_NE(text.find("  moe:gfx942: no observations, 0.9049 unchanged\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: moe:gfx942 target_eff 0.9049\n"), std::string::npos) << text;
  // No interval: the line says why instead of printing "-".
  EXPECT_NE(text.find("  no 90% interval (no observations); last_seen -; contradictions 0, infeasible 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Contributing observations (0):\n  (none)\n"), std::string::npos);
}

TEST(RenderExplainJson, EveryStepObservationAndExclusion)
{
  auto in = canonical();
  Observation suspect = canonical_moe();
  suspect.round = "2";
  suspect.prediction.suspect = true;
  in.push_back(suspect);
  Observation measured = canonical_moe(); // a second run on gfx942, measured prediction: e = 0.5 × 1.8 = 0.90
  measured.run_id = "run_2";
  measured.run_date = "2025-05-21";
  measured.gfx = "gfx942";
  measured.prediction.source_kind = "measured";
  measured.prediction.roofline_pct = 0.5;
  measured.prediction.attainable_speedup = 2.0;
  measured.isolated_speedup = 1.8;
  in.push_back(measured);
  const auto ex = explain_priors(in, {}, *parse_priors_key("moe:gfx942"));
  ASSERT_TRUE(ex.has_value());
  const auto doc = nlohmann::ordered_json::parse(render_explain_json(*ex));
  std::vector<std::string> top;
  for (const auto& [k, v] : doc.items()) {
    top.push_back(k);
  }
  EXPECT_EQ(top,
            (std::vector<std::string>{"key", "as_of", "parameters", "target_eff", "seed", "chain", "steps",
                                      "nearest", "notes", "observations", "excluded", "children"}));
  EXPECT_EQ(doc["key"], "moe:gfx942");
  EXPECT_EQ(doc["as_of"], "2025-05-21");
  EXPECT_EQ(doc["parameters"]["prior_strength"], 2.0);
  ASSERT_EQ(doc["chain"].size(), 2U);
  EXPECT_EQ(doc["chain"][0]["op_class"], "moe");
  EXPECT_EQ(doc["chain"][1]["gfx"], "gfx942");
  // k = 2: moe minus gfx942 = {0.92136, w 0.6}: (1.8 + 0.552816) / 2.6 = 0.904929;
  // moe:gfx942 = {0.90, w 0.6}: (2·0.904929 + 0.54) / 2.6 = 0.903792.
  ASSERT_EQ(doc["steps"].size(), 2U);
  EXPECT_EQ(doc["steps"][0]["set"], "moe minus gfx942");
  EXPECT_EQ(doc["steps"][0]["from"], 0.9);
  EXPECT_EQ(doc["steps"][0]["n"], 1);
  EXPECT_EQ(doc["steps"][0]["weight"], 0.6);
  EXPECT_EQ(doc["steps"][0]["statistic"], 0.9214);
  EXPECT_EQ(doc["steps"][0]["to"], 0.9049);
  EXPECT_EQ(doc["steps"][1]["to"], 0.9038);
  EXPECT_EQ(doc["target_eff"], 0.9038);
  ASSERT_EQ(doc["steps"][1]["observations"].size(), 1U);
  EXPECT_EQ(doc["steps"][1]["observations"][0], "run_2 fused_moe_kernel moe_tuning_db e=0.9000 w=0.600");
  ASSERT_EQ(doc["observations"].size(), 1U);
  const auto& o = doc["observations"][0];
  EXPECT_EQ(o["run"], "run_2");
  EXPECT_EQ(o["date"], "2025-05-21");
  EXPECT_EQ(o["kernel"], "fused_moe_kernel");
  EXPECT_EQ(o["lever"], "moe_tuning_db");
  EXPECT_EQ(o["e"], 0.9);
  EXPECT_EQ(o["weight"], 0.6);
  EXPECT_EQ(o["e_from_post"], false);
  EXPECT_EQ(o["contradiction"], false); // 1.8 against an attainable 2.0
  EXPECT_EQ(o["prediction_source"], "measured");
  EXPECT_TRUE(doc["excluded"].empty()) << "the suspect attempt is on gfx950, not this key";
  EXPECT_TRUE(doc["children"].is_null());

  const auto moe = explain_priors(in, {}, *parse_priors_key("moe"));
  ASSERT_TRUE(moe.has_value());
  const auto all = nlohmann::json::parse(render_explain_json(*moe));
  ASSERT_EQ(all["excluded"].size(), 1U);
  EXPECT_EQ(all["excluded"][0]["reason"], "suspect");
  EXPECT_EQ(all["excluded"][0]["round"], "2");
  EXPECT_TRUE(all["excluded"][0]["e"].is_null());
  EXPECT_TRUE(all["observations"][0]["prediction_source"].is_null()) << "canonical_moe has no source_kind";
}

TEST(SharedPath, SharesOfTheSeedAndEachQuantileAddUpToTheValue)
{
  // k = 3, passed explicitly (the shares' arithmetic for a given k, not the default k = 2);
  // gemm minus gfx942: W 1.25, q 0.85; gemm:gfx942: W 1.0, q 0.80.
  // Last step: 1.0 / 4 = 0.25 of the value; 0.75 left. First: 0.75 · 1.25 / 4.25 = 0.220588;
  // seed 0.75 · 3 / 4.25 = 0.529412.
  ShrinkStep other{"gemm minus gfx942", 0.9, 5, 2, 1.25, 0.85, (3 * 0.9 + 1.25 * 0.85) / 4.25, {"x"}};
  ShrinkStep own{"gemm:gfx942", other.to, 4, 1, 1.0, 0.80, (3 * other.to + 0.80) / 4.0, {}};
  ShrinkStep empty{"gemm:gfx942 minus decode", own.to, 0, 0, 0.0, std::nullopt, own.to, {}};
  const SharedPath path = shared_path("gemm:gfx942", own.to, {other, empty, own}, 3.0);
  EXPECT_NEAR(path.steps[2].share, 0.25, 1e-12);
  EXPECT_NEAR(path.steps[1].share, 0.0, 1e-12);
  EXPECT_NEAR(path.steps[0].share, 0.220588235, 1e-9);
  EXPECT_NEAR(path.seed_share, 0.529411765, 1e-9);
  EXPECT_NEAR(path.seed_share * 0.9 + path.steps[0].share * 0.85 + path.steps[2].share * 0.80, own.to, 1e-12);
  EXPECT_TRUE(path.steps[0].step.observations.empty()) << "the text of the observations is dropped";
}

// Two gemm runs, one per gfx, each one high-confidence observation at e = 0.80 (k = 2):
//   gemm (pooled, W 2, q 0.80): (2·0.90 + 2·0.80) / 4 = 0.85; the seed keeps 2/4.
//   gemm:gfx942: the other gfx first, (2·0.90 + 0.80) / 3 = 0.866667, then its own,
//   (2·0.866667 + 0.80) / 3 = 0.844444; the seed keeps 2/3 · 2/3 = 44.4 %. Likewise gfx950.
// So gemm 0.8500 lies above both children 0.8444.
std::vector<Observation> two_gfx_gemm()
{
  std::vector<Observation> in;
  for (const char* gfx : {"gfx942", "gfx950"}) {
    Observation o = canonical_moe();
    o.run_id = std::string("run_") + gfx;
    o.op_class = "gemm";
    o.short_name = "gemm_kernel";
    o.lever = "tuned_gemm";
    o.gfx = gfx;
    o.prediction.confidence = "high";
    o.prediction.roofline_pct = 0.5;
    o.prediction.attainable_speedup = 1.8;
    o.isolated_speedup = 1.6; // e = 0.5 × 1.6 = 0.80
    o.e2e_delta_pct.reset();
    in.push_back(o);
  }
  return in;
}

TEST(ExplainChildren, AClassAboveBothChildrenSaysWhyWithTheNumbers)
{
  const auto in = two_gfx_gemm();
  const auto ex = explain_priors(in, {}, *parse_priors_key("gemm"));
  ASSERT_TRUE(ex.has_value());
  const auto children = explain_children(in, *ex);
  ASSERT_TRUE(children.has_value());
  ASSERT_TRUE(children->has_value());
  const ChildrenCoherence& c = **children;
  EXPECT_TRUE(c.above);
  EXPECT_NEAR(c.key.target_eff, 0.85, 1e-12);
  EXPECT_NEAR(c.key.seed_share, 0.5, 1e-12);
  ASSERT_EQ(c.children.size(), 2U);
  EXPECT_EQ(c.children[0].key, "gemm:gfx942");
  EXPECT_NEAR(c.children[0].target_eff, 7.6 / 9.0, 1e-12);
  EXPECT_NEAR(c.children[0].seed_share, 4.0 / 9.0, 1e-12);
  EXPECT_NEAR(c.children[0].steps[0].share, 2.0 / 9.0, 1e-12); // 1/3 of the 2/3 left by its own step
  EXPECT_NEAR(c.children[0].steps[1].share, 1.0 / 3.0, 1e-12);
  const std::string text = render_explain(*ex, *children);
  const auto from = text.find("Why gemm");
  ASSERT_NE(from, std::string::npos) << text;
  RFDB_EXPECT_GOLDEN("priors/explain_children.txt", text.substr(from, text.find("Result:") - from));
  const auto doc = nlohmann::json::parse(render_explain_json(*ex, *children));
  EXPECT_EQ(doc["children"]["position"], "above");
  EXPECT_EQ(doc["children"]["key"]["seed_share"], 0.5);
  EXPECT_EQ(doc["children"]["children"][1]["key"], "gemm:gfx950");
  EXPECT_EQ(doc["children"]["children"][1]["target_eff"], 0.8444);
  EXPECT_EQ(doc["children"]["children"][1]["steps"][0]["set"], "gemm minus gfx950");
  EXPECT_EQ(doc["children"]["children"][1]["steps"][0]["share"], 0.2222);
}

TEST(ExplainChildren, AClassBelowBothChildren)
{
  // gfx942: four runs at e = 0.60; gfx950: one at 0.95. k = 2: gemm pools them
  // (q 0.60, W 5): (1.8 + 3.0) / 7 = 0.685714. gemm:gfx942: (1.8 + 0.95) / 3 =
  // 0.916667, then (2·0.916667 + 2.4) / 6 = 0.705556; gemm:gfx950: (1.8 + 2.4) / 6 =
  // 0.70, then (2·0.70 + 0.95) / 3 = 0.783333. The seed is above every
  // child here, so it is not what holds the class below them.
  auto in = two_gfx_gemm();
  in[1].isolated_speedup = 1.9; // gfx950: e = 0.95
  in[0].isolated_speedup = 1.2; // gfx942: e = 0.60
  for (int i = 2; i <= 4; ++i) {
    Observation more = in[0];
    more.run_id = fmt::format("run_gfx942_{}", i);
    in.push_back(more);
  }
  const auto ex = explain_priors(in, {}, *parse_priors_key("gemm"));
  ASSERT_TRUE(ex.has_value());
  const auto children = explain_children(in, *ex);
  ASSERT_TRUE(children.has_value());
  ASSERT_TRUE(children->has_value());
  EXPECT_FALSE((*children)->above);
  EXPECT_NEAR((*children)->key.target_eff, 4.8 / 7.0, 1e-12);
  EXPECT_NEAR((*children)->children[0].target_eff, 0.705555556, 1e-9);
  EXPECT_NEAR((*children)->children[1].target_eff, 0.783333333, 1e-9);
  const std::string text = render_explain(*ex, *children);
  EXPECT_NE(text.find("Why gemm lies below all of its children (gemm:gfx942 0.7056, gemm:gfx950 0.7833):\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("  The pooled quantile lies between the children's own, but the mixes of seed and quantiles "
                "differ, so gemm need not lie between its children.\n"),
      std::string::npos)
      << text;
}

TEST(ExplainChildren, NothingToSayInsideTheRangeOrBelowTheClassLevel)
{
  // With k = 0 every value is its own set's quantile, and a pooled quantile
  // lies between its parts' quantiles: gemm is inside its children's range.
  PriorsParams no_prior;
  no_prior.prior_strength = 0.0;
  auto in = two_gfx_gemm();
  in[1].isolated_speedup = 1.9; // gfx950: e = 0.95
  const auto ex = explain_priors(in, no_prior, *parse_priors_key("gemm"));
  ASSERT_TRUE(ex.has_value());
  const auto inside = explain_children(in, *ex);
  ASSERT_TRUE(inside.has_value());
  EXPECT_FALSE(inside->has_value()) << render_explain(*ex);
  // One child with evidence: nothing to compare.
  const std::vector<Observation> one = {two_gfx_gemm()[0]};
  const auto ex1 = explain_priors(one, {}, *parse_priors_key("gemm"));
  EXPECT_FALSE(explain_children(one, *ex1)->has_value());
  // A regime key has no children.
  const auto ex2 = explain_priors(two_gfx_gemm(), {}, *parse_priors_key("gemm:gfx942:decode"));
  EXPECT_FALSE(explain_children(two_gfx_gemm(), *ex2)->has_value());
  EXPECT_EQ(render_explain(*ex2).find("Why "), std::string::npos);
}

TEST(ParsePriorsFormat, KnownNames)
{
  EXPECT_EQ(*parse_priors_format("json"), PriorsFormat::json);
  EXPECT_EQ(*parse_priors_format("md"), PriorsFormat::md);
  EXPECT_EQ(*parse_priors_format("python"), PriorsFormat::python);
  EXPECT_EQ(parse_priors_format("yaml").error().code, ErrorCode::usage);
}

} // namespace
} // namespace rfdb::calibrate
