// Unit tests of the priors renderers (calibrate/priors_format.hpp).
#include "unit/calibrate/canonical.hpp"

#include "calibrate/priors_format.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

TEST(RenderPriorsMd, CanonicalRun)
{
  const std::string expected =
      "| op class | target_eff | n | interval | why |\n"
      "|---|---:|---:|---|---|\n"
      "| gemm | 0.9000 | 0 | - | seed 0.90; no observations |\n"
      "| moe | 0.9036 | 1 | one run | seed 0.90; 1 obs (q 0.921, W 0.60) shrunk with k=3 |\n"
      "| elementwise | 0.8750 | 0 | - | seed 0.875; no observations |\n"
      "| attn | 0.4635 | 1 | one run | seed 0.50; 1 obs (q 0.281, W 0.60) shrunk with k=3 |\n";
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
      md2.find("| moe:gfx942:decode | 0.9030 | 0 | - | no observations; parent 0.9030 (seed "
               "shrunk by the "
               "rest of moe:gfx942); nearest with evidence: moe:gfx942:prefill 0.9030, moe:gfx950:decode "
               "0.9036 |\n"),
      std::string::npos)
      << md2;
  // One gfx holds all of moe's evidence: the seed is its parent (moe minus
  // gfx950 is empty), and its value is moe's.
  EXPECT_NE(md.find("| moe:gfx950 | 0.9036 | 1 | one run | parent 0.9000 (seed shrunk by the rest "
                    "of moe); 1 obs (q 0.921, W 0.60) shrunk with k=3; 1 contradiction; 1 infeasible |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| gemm:gfx950 | 0.9000 | 0 | - | no observations; parent 0.9000 (seed shrunk by the "
                    "rest of gemm) |\n"),
            std::string::npos)
      << md;
}

TEST(RenderPriorsPython, CanonicalRun)
{
  const std::string expected =
      "# target_eff priors (fraction of roofline) calibrated by `rfdb priors`, as of 2025-05-20.\n"
      "# Levels: class; prior strength k=3. Regenerate rather than edit.\n"
      "TARGET_EFF = {\"gemm\": 0.9000, \"moe\": 0.9036, \"elementwise\": 0.8750, \"attn\": 0.4635}\n"
      "# Multiply a verdict's expected_e2e_gain_pct by E2E_TRANSFER[(op_class, regime)]; keys with fewer\n"
      "# than 2 runs are absent: use the raw Amdahl ceiling there.\n"
      "E2E_TRANSFER = {}\n";
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
  EXPECT_EQ(top, (std::vector<std::string>{"as_of", "parameters", "priors", "e2e_transfer"}));
  std::vector<std::string> params;
  for (const auto& [k, v] : doc["parameters"].items()) {
    params.push_back(k);
  }
  EXPECT_EQ(params,
            (std::vector<std::string>{"prior_strength", "quantile", "iso_noise_band", "confidence_weights",
                                      "half_life_days", "include_parity_fail"}));
  std::vector<std::string> row;
  for (const auto& [k, v] : doc["priors"][1].items()) {
    row.push_back(k);
  }
  EXPECT_EQ(
      row, (std::vector<std::string>{"op_class", "gfx", "regime", "seed", "target_eff", "n", "runs", "weight",
                                     "statistic", "interval", "interval_reason", "measured", "analytic",
                                     "contradictions", "infeasible", "last_seen", "source", "nearest"}));
  std::vector<std::string> transfer;
  for (const auto& [k, v] : doc["e2e_transfer"][0].items()) {
    transfer.push_back(k);
  }
  EXPECT_EQ(transfer, (std::vector<std::string>{"op_class", "regime", "n", "runs", "attempts", "median_ratio",
                                                "statistic", "source", "interval", "capped", "sign_flips",
                                                "beyond_ceiling"}));
}

TEST(RenderPriorsJson, CanonicalValuesRounded)
{
  const auto doc = nlohmann::json::parse(render_priors_json(compute(canonical())));
  EXPECT_EQ(doc["as_of"], "2025-05-20");
  EXPECT_EQ(doc["parameters"]["prior_strength"], 3.0);
  EXPECT_EQ(doc["parameters"]["iso_noise_band"], 0.034);
  EXPECT_EQ(doc["parameters"]["confidence_weights"]["medium"], 0.6);
  EXPECT_TRUE(doc["parameters"]["half_life_days"].is_null());
  const auto& moe = doc["priors"][1];
  EXPECT_EQ(moe["op_class"], "moe");
  EXPECT_TRUE(moe["gfx"].is_null());
  EXPECT_EQ(moe["target_eff"], 0.9036);
  EXPECT_EQ(moe["statistic"], 0.9214);
  EXPECT_EQ(moe["weight"], 0.6);
  EXPECT_TRUE(moe["interval"].is_null()); // one run: no interval, and why
  EXPECT_EQ(moe["interval_reason"], "one run");
  EXPECT_EQ(moe["measured"], 0);
  EXPECT_EQ(moe["analytic"], 1);
  EXPECT_EQ(moe["source"], "calibrated");
  EXPECT_EQ(moe["last_seen"], "2025-05-20");
  EXPECT_EQ(doc["priors"][3]["target_eff"], 0.4635);
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
      "op_class,gfx,regime,seed,target_eff,n,runs,weight,statistic,interval_lo,interval_hi,contradictions,"
      "infeasible,last_seen,source,nearest\n"
      "gemm,,,0.9000,0.9000,0,0,0.000,,,,0,0,,seed,\n"
      "moe,,,0.9000,0.9036,1,1,0.600,0.9214,,,0,0,2025-05-20,calibrated,\n"
      "elementwise,,,0.8750,0.8750,0,0,0.000,,,,0,0,,seed,\n"
      "attn,,,0.5000,0.4635,1,1,0.600,0.2808,,,0,0,2025-05-20,calibrated,\n");
}

TEST(RenderPriorsTable, AlignedWithTransferAndExclusions)
{
  auto in = canonical();
  Observation unknown = canonical_moe();
  unknown.op_class = "unknown";
  in.push_back(unknown);
  const std::string table = render_priors_table(compute(in));
  EXPECT_NE(table.find("moe          0.9000      0.9036  1     1  0.600  0.9214  one run"), std::string::npos)
      << table;
  EXPECT_NE(table.find("multiply expected_e2e_gain_pct by median_ratio"), std::string::npos);
  EXPECT_NE(table.find("moe       decode     1         1        1.0000  -  -         no               0      "
                       "         0  raw"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("3 attempts, 2 observations; excluded: unknown_class 1\n"), std::string::npos)
      << table;
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
  EXPECT_NE(text.find("    (3*0.9000 + 0.600*0.9214) / (3 + 0.600) = 0.9036\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: moe target_eff 0.9036\n"), std::string::npos);
  // One run: no interval, and the evidence mix.
  EXPECT_NE(text.find("  no interval (one run); last_seen 2025-05-20;"), std::string::npos) << text;
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
  // The path: moe minus gfx942 holds the gfx950 observation (→ 0.9036),
  // and gfx942 itself has none, so it keeps that value.
  EXPECT_NE(text.find("  moe minus gfx942: n=1, runs=1, W=0.600, q=0.9214"), std::string::npos) << text;
  EXPECT_NE(text.find("  moe:gfx942: no observations, 0.9036 unchanged\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: moe:gfx942 target_eff 0.9036\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Contributing observations (0):\n  (none)\n"), std::string::npos);
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
