// roofline-v1 measured documents through the docs/artifacts.md, "Measured rooflines" bridge.
#include "ingest/evaldir/artifacts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace rfdb::ingest;

namespace {

constexpr std::string_view k_path = "kernels/gemm_a8w8_task/roofline/baseline_roofline.json";

// A roofline-v1 baseline whose dominant case matches the contract-test
// numbers of docs/artifacts.md, "Measured rooflines" (efficiency 80 %, headroom 1.25×, hbm-limited).
std::string measured_doc(std::string_view schema, std::string_view status, std::string_view limit,
                         std::string_view headroom)
{
  return std::string(R"json({"schema_version": ")json") + std::string(schema) +
         R"json(", "source": "rocprof-compute", "phase": "baseline", "status": "ok",
    "target": {"logical_name": "gemm_a8w8", "op_kind": "gemm", "kernel_patterns": ["gemm"]},
    "dominant_case_id": "down_proj_decode_M64",
    "cases": [
      {"case_id": "prefill_s512", "status": "matched", "regime": "prefill",
       "metrics": {"roofline_efficiency_pct": 40.0, "headroom_ratio": 2.5}},
      {"case_id": "down_proj_decode_M64", "status": ")json" +
         std::string(status) + R"json(", "regime": "decode",
       "matched_kernel_name": "_gemm_a8w8_blockscale_kernel_BLOCK_M64",
       "metrics": {"ai_hbm": 31.5, "ai_ridge_empirical": 200.0,
                   "hbm_utilization_pct": 78.0, "compute_utilization_pct": 12.5,
                   "roofline_efficiency_pct": 80.0, "headroom_ratio": )json" +
         std::string(headroom) + R"json(},
       "classification": {"observed_limit": ")json" +
         std::string(limit) + R"json(", "confidence": "high"}}],
    "summary": {"dominant_case_id": "down_proj_decode_M64"}})json";
}

// Replace the first `from` in `s` (which must contain it).
void replace_once(std::string& s, std::string_view from, std::string_view to)
{
  const auto at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
}

RooflineDoc parse_ok(const std::string& text, std::vector<Warning>& warnings, std::string_view path = k_path)
{
  auto doc = parse_json_text(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  auto r = parse_measured_roofline(doc ? *doc : json(), path, warnings);
  EXPECT_TRUE(r) << (r ? "" : r.error().describe());
  return r ? *r : RooflineDoc{};
}

} // namespace

TEST(ParseMeasuredRoofline, BridgesTheDominantCase)
{
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_ok(measured_doc("roofline-v1", "matched", "hbm", "1.25"), warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(d.source_kind, "measured");
  EXPECT_EQ(d.stage, "C");
  EXPECT_EQ(*d.phase, "baseline");
  EXPECT_EQ(*d.task, "gemm_a8w8_task");
  ASSERT_EQ(d.verdicts.size(), 1U);
  const Verdict& v = d.verdicts[0];
  EXPECT_EQ(v.short_name, "gemm_a8w8");
  EXPECT_EQ(*v.name, "_gemm_a8w8_blockscale_kernel_BLOCK_M64");
  EXPECT_EQ(*v.case_id, "down_proj_decode_M64");
  EXPECT_EQ(*v.regime, "decode");
  EXPECT_DOUBLE_EQ(*v.roofline_efficiency_pct, 80.0);
  EXPECT_DOUBLE_EQ(*v.roofline_pct, 0.80);
  EXPECT_DOUBLE_EQ(*v.headroom_ratio, 1.25);      // against 100 % of peak, kept raw
  EXPECT_DOUBLE_EQ(*v.attainable_speedup, 1.125); // max(1, 0.90 / 0.80): agrees with the band
  EXPECT_EQ(*v.observed_limit, "hbm");
  EXPECT_EQ(v.bound_type, "memory");
  EXPECT_EQ(v.op_class, "gemm");
  EXPECT_DOUBLE_EQ(*v.target_eff, 0.90);
  EXPECT_EQ(v.headroom_class, "moderate"); // 0.80 < 0.9·0.90
  EXPECT_EQ(v.confidence, "high");
  EXPECT_EQ(v.stage, "C");
  EXPECT_EQ(v.source_kind, "measured");
  EXPECT_EQ(*v.phase, "baseline");
  EXPECT_DOUBLE_EQ(*v.hbm_util, 0.78);
  EXPECT_DOUBLE_EQ(*v.compute_util, 0.125);
  EXPECT_DOUBLE_EQ(*v.arithmetic_intensity, 31.5);
  EXPECT_DOUBLE_EQ(*v.ridge_point, 200.0);
  EXPECT_FALSE(v.suspect);
  EXPECT_EQ(v.json_pointer, "/cases/1");
}

TEST(ParseMeasuredRoofline, AttainableFollowsTargetEffNotTheHeadroomRatio)
{
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_ok(measured_doc("roofline-v1", "matched", "compute", "0.8"), warnings);
  ASSERT_EQ(d.verdicts.size(), 1U);
  EXPECT_DOUBLE_EQ(*d.verdicts[0].headroom_ratio, 0.8);
  EXPECT_DOUBLE_EQ(*d.verdicts[0].attainable_speedup, 0.90 / 0.80);
  EXPECT_EQ(d.verdicts[0].bound_type, "compute");
  // Efficiency at the target: saturated, and nothing left to win.
  std::string at_target = measured_doc("roofline-v1", "matched", "hbm", "1.1");
  replace_once(at_target, "\"roofline_efficiency_pct\": 80.0", "\"roofline_efficiency_pct\": 95.0");
  const RooflineDoc t = parse_ok(at_target, warnings);
  ASSERT_EQ(t.verdicts.size(), 1U);
  EXPECT_DOUBLE_EQ(*t.verdicts[0].attainable_speedup, 1.0);
  EXPECT_EQ(t.verdicts[0].headroom_class, "saturated");
}

TEST(ParseMeasuredRoofline, KeepsTheConfidenceTheFileStates)
{
  std::vector<Warning> warnings;
  std::string medium = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  replace_once(medium, "\"confidence\": \"high\"", "\"confidence\": \"medium\"");
  EXPECT_EQ(parse_ok(medium, warnings).verdicts.at(0).confidence, "medium");
  // None stated: stage C's default.
  std::string none = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  replace_once(none, ", \"confidence\": \"high\"", "");
  EXPECT_EQ(parse_ok(none, warnings).verdicts.at(0).confidence, "high");
  EXPECT_TRUE(warnings.empty());
  // Out of the set: the default, with a warning naming the pointer.
  std::string odd = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  replace_once(odd, "\"confidence\": \"high\"", "\"confidence\": \"sure\"");
  EXPECT_EQ(parse_ok(odd, warnings).verdicts.at(0).confidence, "high");
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/cases/1/classification/confidence");
}

TEST(ParseMeasuredRoofline, UnmappedObservedLimitIsUnknown)
{
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_ok(measured_doc("roofline-v1", "matched", "latency_dep", "1.25"), warnings);
  EXPECT_EQ(d.verdicts.at(0).bound_type, "unknown");
  EXPECT_EQ(*d.verdicts.at(0).observed_limit, "latency_dep");
}

TEST(ParseMeasuredRoofline, WrongSchemaOrUnmatchedCaseWarnsWithoutVerdict)
{
  std::vector<Warning> warnings;
  const RooflineDoc wrong = parse_ok(measured_doc("roofline-v2", "matched", "hbm", "1.25"), warnings);
  EXPECT_TRUE(wrong.verdicts.empty());
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/schema_version");
  EXPECT_EQ(warnings[0].file, k_path);
  warnings.clear();
  const RooflineDoc skipped = parse_ok(measured_doc("roofline-v1", "skipped", "hbm", "1.25"), warnings);
  EXPECT_TRUE(skipped.verdicts.empty());
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].pointer, "/cases/1/status");
  warnings.clear();
  const RooflineDoc garbled = parse_ok(measured_doc("roofline-v1", "matched", "hbm", "\"lots\""), warnings);
  EXPECT_TRUE(garbled.verdicts.empty());
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].message.find("/cases/1/metrics/headroom_ratio"), std::string::npos);
}

TEST(ParseMeasuredRoofline, CasesOfTheWrongTypeAreNamedNotCalledMissing)
{
  const auto warned = [](std::string text) {
    std::vector<Warning> warnings;
    const RooflineDoc d = parse_ok(text, warnings);
    EXPECT_TRUE(d.verdicts.empty());
    std::string all;
    for (const auto& w : warnings) {
      all += w.pointer + " " + w.message + "\n";
    }
    return all;
  };
  std::string text = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  const auto cases = text.find("\"cases\": [");
  const auto summary = text.find(",\n    \"summary\"");
  ASSERT_NE(cases, std::string::npos);
  ASSERT_NE(summary, std::string::npos);
  const std::string head = text.substr(0, cases);
  const std::string tail = text.substr(summary);
  EXPECT_NE(warned(head + "\"cases\": \"oops\"" + tail).find("cases is string, not an array"),
            std::string::npos);
  EXPECT_NE(warned(head + "\"cases\": []" + tail).find("cases is empty"), std::string::npos);
}

TEST(ParseMeasuredRoofline, KernelLayerPathAndPostPhase)
{
  std::vector<Warning> warnings;
  std::string text = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  text.replace(text.find("\"phase\": \"baseline\""), 19, "\"phase\": null");
  const RooflineDoc d =
      parse_ok(text, warnings, "kernels/_exp/team0/moe_task/roofline/post/post_roofline.json");
  EXPECT_EQ(*d.task, "moe_task");
  EXPECT_EQ(*d.phase, "post");
  EXPECT_EQ(d.verdicts.at(0).short_name, "moe");
}

// Issue 28: the engine's own guidance beside rfdb's band, and the disputed
// flag when the band says saturated but the engine says headroom is left.
TEST(ParseMeasuredRoofline, KeepsTheEngineGuidanceAndFlagsADisputedBand)
{
  // An attention head at 0.612 of its empirical roofline: 0.612 / 0.50 ≥ 0.9
  // is saturated on rfdb's band, while the engine says 1.634× and actionable.
  std::string attn = measured_doc("roofline-v1", "matched", "compute", "1.634");
  replace_once(attn, "\"op_kind\": \"gemm\"", "\"op_kind\": \"attn\"");
  replace_once(attn, "\"roofline_efficiency_pct\": 80.0", "\"roofline_efficiency_pct\": 61.2");
  replace_once(
      attn, "\"summary\":",
      "\"guidance\": {\"valid\": true, \"reason\": \"actionable_cases_present\", \"cases\": ["
      "{\"case_id\": \"down_proj_decode_M64\", \"reason\": \"Actionable\", \"headroom_ratio\": 1.634}]},"
      " \"summary\":");
  std::vector<Warning> warnings;
  const RooflineDoc d = parse_ok(attn, warnings);
  ASSERT_EQ(d.verdicts.size(), 1U);
  const Verdict& v = d.verdicts[0];
  EXPECT_EQ(v.headroom_class, "saturated");
  EXPECT_DOUBLE_EQ(*v.attainable_speedup, 1.0); // rfdb's band: nothing left against 0.50
  EXPECT_DOUBLE_EQ(*v.headroom_ratio, 1.634);   // the engine's figure, kept beside it
  EXPECT_EQ(*v.guidance, "actionable");
  EXPECT_EQ(*v.observed_limit, "compute");
  EXPECT_TRUE(v.disputed);
  // No case weights: no mix, the single-case verdict as before.
  EXPECT_TRUE(v.case_mix.empty());

  // The same band with the engine agreeing (1.10×, low_headroom) is not disputed.
  std::string agreed = attn;
  replace_once(agreed, "\"headroom_ratio\": 1.634}", "\"headroom_ratio\": 1.10}");
  replace_once(agreed, "\"reason\": \"Actionable\"", "\"reason\": \"low_headroom\"");
  replace_once(agreed, "\"headroom_ratio\": 1.634", "\"headroom_ratio\": 1.10");
  const RooflineDoc e = parse_ok(agreed, warnings);
  ASSERT_EQ(e.verdicts.size(), 1U);
  EXPECT_EQ(*e.verdicts[0].guidance, "low_headroom");
  EXPECT_FALSE(e.verdicts[0].disputed);
  // A moderate band is never disputed, whatever the engine says (0.80 / 0.90 on the gemm doc).
  const RooflineDoc g = parse_ok(measured_doc("roofline-v1", "matched", "hbm", "3.0"), warnings);
  ASSERT_EQ(g.verdicts.size(), 1U);
  EXPECT_FALSE(g.verdicts[0].disputed);
  EXPECT_FALSE(g.verdicts[0].guidance);
}

// Issue 28: two matched cases with time weights → the attainable is the
// Amdahl mix, the regime the mix's, the band and case_id the dominant case's.
// Time weights the mix cannot read leave the single-case verdict, with a
// warning naming the pointer: never a silent fallback to another reading.
TEST(ParseMeasuredRoofline, UnreadableTimeWeightsWarnAndLeaveTheDominantCaseAlone)
{
  auto with_weights = [](const std::string& prefill_weight, const std::string& decode_weight) {
    std::string doc = measured_doc("roofline-v1", "matched", "hbm", "1.25");
    replace_once(doc, "\"regime\": \"prefill\",", "\"regime\": \"prefill\", " + prefill_weight);
    replace_once(doc, "\"regime\": \"decode\",", "\"regime\": \"decode\", " + decode_weight);
    return doc;
  };
  auto parse_with = [&](const std::string& prefill_weight, const std::string& decode_weight,
                        std::vector<Warning>& warnings) {
    const RooflineDoc d = parse_ok(with_weights(prefill_weight, decode_weight), warnings);
    EXPECT_EQ(d.verdicts.size(), 1U);
    return d.verdicts.empty() ? Verdict{} : d.verdicts[0];
  };
  auto mix_warning = [](const std::vector<Warning>& warnings) -> std::string {
    for (const auto& w : warnings) {
      if (w.message.find("case mix ignored") != std::string::npos) {
        return w.pointer + " " + w.message;
      }
    }
    return "";
  };
  {
    std::vector<Warning> warnings; // a negative weight
    const Verdict v = parse_with("\"weight\": -0.4,", "\"weight\": 0.6,", warnings);
    EXPECT_TRUE(v.case_mix.empty());
    EXPECT_DOUBLE_EQ(*v.attainable_speedup, 0.90 / 0.80);
    EXPECT_NE(mix_warning(warnings).find("has time weight -0.4"), std::string::npos) << mix_warning(warnings);
  }
  {
    std::vector<Warning> warnings; // a weight that is not a number
    const Verdict v = parse_with("\"weight\": \"lots\",", "\"weight\": 0.6,", warnings);
    EXPECT_TRUE(v.case_mix.empty());
    EXPECT_NE(mix_warning(warnings).find("/cases/"), std::string::npos) << mix_warning(warnings);
  }
  {
    std::vector<Warning> warnings; // one case states a weight, the other none
    const Verdict v = parse_with("\"weight\": 0.4,", "", warnings);
    EXPECT_TRUE(v.case_mix.empty());
    EXPECT_NE(mix_warning(warnings).find("do not all state"), std::string::npos) << mix_warning(warnings);
  }
  {
    std::vector<Warning> warnings; // no case states a weight: the single-case verdict, silently
    const Verdict v = parse_with("", "", warnings);
    EXPECT_TRUE(v.case_mix.empty());
    EXPECT_EQ(mix_warning(warnings), "");
  }
  {
    std::vector<Warning> warnings; // the decode case holds no time: the mix is the prefill case's 2.25×
    const Verdict v = parse_with("\"weight\": 1.0,", "\"weight\": 0,", warnings);
    ASSERT_EQ(v.case_mix.size(), 2U);
    EXPECT_NEAR(*v.attainable_speedup, 2.25, 1e-12);
    EXPECT_EQ(*v.regime, "prefill");
    EXPECT_EQ(mix_warning(warnings), "");
  }
  {
    std::vector<Warning> warnings; // a class without a seed target_eff: no attainable, so no mix either
    std::string doc = with_weights("\"weight\": 0.4,", "\"weight\": 0.6,");
    replace_once(doc, "\"op_kind\": \"gemm\"", "\"op_kind\": \"sampling\"");
    const RooflineDoc d = parse_ok(doc, warnings);
    ASSERT_EQ(d.verdicts.size(), 1U);
    EXPECT_FALSE(d.verdicts[0].target_eff);
    EXPECT_FALSE(d.verdicts[0].attainable_speedup);
    EXPECT_TRUE(d.verdicts[0].case_mix.empty());
  }
  {
    std::vector<Warning> warnings; // two cases under one case_id
    std::string doc = with_weights("\"weight\": 0.4,", "\"weight\": 0.6,");
    replace_once(doc, "\"case_id\": \"prefill_s512\"", "\"case_id\": \"down_proj_decode_M64\"");
    const RooflineDoc d = parse_ok(doc, warnings);
    ASSERT_EQ(d.verdicts.size(), 1U);
    EXPECT_TRUE(d.verdicts[0].case_mix.empty());
    EXPECT_NE(mix_warning(warnings).find("stated twice"), std::string::npos) << mix_warning(warnings);
  }
}

TEST(ParseMeasuredRoofline, TwoWeightedCasesGiveTheAmdahlMixAndItsRegime)
{
  std::string two = measured_doc("roofline-v1", "matched", "hbm", "1.25");
  // prefill_s512 at 40 % (0.9 / 0.40 = 2.25×) and the dominant decode case at
  // 80 % (0.9 / 0.80 = 1.125×); weights 0.4 / 0.6, but the guidance's
  // time_share (0.7 prefill, 0.3 decode) is what the mix reads.
  replace_once(two, "\"regime\": \"prefill\",", "\"regime\": \"prefill\", \"weight\": 0.4,");
  replace_once(two, "\"regime\": \"decode\",", "\"regime\": \"decode\", \"weight\": 0.6,");
  std::vector<Warning> warnings;
  const RooflineDoc w = parse_ok(two, warnings);
  ASSERT_EQ(w.verdicts.size(), 1U);
  // Weights alone: 1 / (0.4 / 2.25 + 0.6 / 1.125) = 1 / (0.177778 + 0.533333) = 1.40625.
  EXPECT_NEAR(*w.verdicts[0].attainable_speedup, 1.40625, 1e-9);
  EXPECT_EQ(*w.verdicts[0].regime, "decode"); // 0.6 of the time
  replace_once(two, "\"summary\":",
               "\"guidance\": {\"cases\": [{\"case_id\": \"prefill_s512\", \"time_share\": 0.7},"
               " {\"case_id\": \"down_proj_decode_M64\", \"time_share\": 0.3}]}, \"summary\":");
  const RooflineDoc d = parse_ok(two, warnings);
  ASSERT_EQ(d.verdicts.size(), 1U);
  const Verdict& v = d.verdicts[0];
  // 1 / (0.7 / 2.25 + 0.3 / 1.125) = 1 / (0.311111 + 0.266667) = 1.730769.
  EXPECT_NEAR(*v.attainable_speedup, 1.730769, 1e-6);
  EXPECT_EQ(*v.regime, "prefill"); // 0.7 of the time: not keyed decode
  EXPECT_EQ(*v.case_id, "down_proj_decode_M64");
  EXPECT_DOUBLE_EQ(*v.roofline_pct, 0.80);
  EXPECT_EQ(v.headroom_class, "moderate");
  ASSERT_EQ(v.case_mix.size(), 2U);
  EXPECT_EQ(v.case_mix[0].case_id, "prefill_s512");
  EXPECT_DOUBLE_EQ(v.case_mix[0].time_share, 0.7);
  EXPECT_DOUBLE_EQ(v.case_mix[0].attainable_speedup, 2.25);
  EXPECT_FALSE(v.case_mix[0].dominant);
  EXPECT_TRUE(v.case_mix[1].dominant);
  // The other case unmatched: a single case again, bit for bit the old verdict.
  replace_once(two, "\"case_id\": \"prefill_s512\", \"status\": \"matched\"",
               "\"case_id\": \"prefill_s512\", \"status\": \"failed\"");
  const RooflineDoc one = parse_ok(two, warnings);
  ASSERT_EQ(one.verdicts.size(), 1U);
  EXPECT_DOUBLE_EQ(*one.verdicts[0].attainable_speedup, 0.90 / 0.80);
  EXPECT_EQ(*one.verdicts[0].regime, "decode");
  EXPECT_TRUE(one.verdicts[0].case_mix.empty());
}
