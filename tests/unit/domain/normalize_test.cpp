// Producer-label normalizers and vocabulary rules (domain/normalize.hpp).
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace rfdb::domain;

TEST(NormalizeOpClass, MapsProducerLabels)
{
  const std::vector<std::pair<std::string, std::string>> cases = {{"gemm", "gemm"},
                                                                  {"Dense GEMM", "gemm"},
                                                                  {"library_gemm", "gemm"},
                                                                  {"moe", "moe"},
                                                                  {"grouped_gemm", "moe"},
                                                                  {"MoE grouped-GEMM", "moe"},
                                                                  {"attention", "attn"},
                                                                  {"attn", "attn"},
                                                                  {"paged_attention", "attn"},
                                                                  {"elementwise", "elementwise"},
                                                                  {"norm", "elementwise"},
                                                                  {"quant", "elementwise"},
                                                                  {"quantize / cast", "elementwise"},
                                                                  {"unknown", "unknown"}};
  for (const auto& [raw, expected] : cases) {
    const Normalized n = normalize_op_class(raw);
    EXPECT_EQ(n.value, expected) << raw;
    EXPECT_TRUE(n.recognized) << raw;
  }
  const Normalized conv = normalize_op_class("conv");
  EXPECT_EQ(conv.value, "unknown");
  EXPECT_FALSE(conv.recognized);
}

TEST(OpClassFromTopN, UsesNameThenClassification)
{
  EXPECT_EQ(op_class_from_top_n("triton", "fused_moe_kernel").value, "moe");
  EXPECT_EQ(op_class_from_top_n("library_attn", "kernel_paged_attention_2d").value, "attn");
  EXPECT_EQ(op_class_from_top_n("library_gemm", "Cijk_Alik_Bljk_BBS_BH").value, "gemm");
  EXPECT_EQ(op_class_from_top_n("triton", "_gemm_a8w8_blockscale_kernel").value, "gemm");
  EXPECT_EQ(op_class_from_top_n("reduction_norm", "rms_norm_kernel").value, "elementwise");
  EXPECT_EQ(op_class_from_top_n("library_gemm", "xyz").value, "gemm");
  const Normalized none = op_class_from_top_n("other", "mystery_op");
  EXPECT_EQ(none.value, "unknown");
  EXPECT_FALSE(none.recognized);
}

TEST(NormalizeBoundType, AcceptsSpellingsAndRejectsDispatch)
{
  EXPECT_EQ(normalize_bound_type("memory").value, "memory");
  EXPECT_EQ(normalize_bound_type(" Memory-Bound ").value, "memory");
  EXPECT_EQ(normalize_bound_type("compute_bound").value, "compute");
  EXPECT_EQ(normalize_bound_type("latency").value, "latency");
  const Normalized d = normalize_bound_type("dispatch");
  EXPECT_EQ(d.value, "unknown");
  EXPECT_FALSE(d.recognized);
}

TEST(BoundTypeFromObservedLimit, FollowsTheMeasuredBridgeTable)
{
  const std::vector<std::pair<std::string, std::string>> table = {{"compute", "compute"},
                                                                  {"balanced", "compute"},
                                                                  {"hbm", "memory"},
                                                                  {"cache", "memory"},
                                                                  {"lds", "memory"},
                                                                  {"latency_occupancy", "latency"},
                                                                  {"overhead", "latency"},
                                                                  {"unknown", "unknown"},
                                                                  {"latency_dep", "unknown"},
                                                                  {"latency_issue", "unknown"},
                                                                  {"no_fp_work", "unknown"},
                                                                  {"HBM", "memory"},
                                                                  {"", "unknown"},
                                                                  {"something_new", "unknown"}};
  for (const auto& [limit, bound] : table) {
    EXPECT_EQ(bound_type_from_observed_limit(limit), bound) << limit;
  }
}

TEST(NormalizeClosedSets, HeadroomConfidenceStage)
{
  EXPECT_EQ(normalize_headroom_class("Saturated").value, "saturated");
  EXPECT_EQ(normalize_headroom_class("under-performing").value, "underperforming");
  EXPECT_FALSE(normalize_headroom_class("great").recognized);
  EXPECT_EQ(normalize_confidence("MEDIUM").value, "medium");
  EXPECT_EQ(normalize_confidence("med").value, "medium");
  EXPECT_FALSE(normalize_confidence("certain").recognized);
  EXPECT_EQ(normalize_stage("b").value, "B");
  EXPECT_EQ(normalize_stage("Stage C").value, "C");
  EXPECT_FALSE(normalize_stage("D").recognized);
  EXPECT_EQ(confidence_for_stage("A"), "low");
  EXPECT_EQ(confidence_for_stage("B"), "medium");
  EXPECT_EQ(confidence_for_stage("C"), "high");
}

TEST(BandHeadroom, UsesDesignBands)
{
  EXPECT_EQ(band_headroom(0.88, 0.90), "saturated");
  EXPECT_EQ(band_headroom(0.81, 0.90), "saturated"); // exactly 0.9·target
  EXPECT_EQ(band_headroom(0.80, 0.90), "moderate");
  EXPECT_EQ(band_headroom(0.60, 0.90), "moderate");
  EXPECT_EQ(band_headroom(0.54, 0.90), "moderate"); // exactly 0.6·target
  EXPECT_EQ(band_headroom(0.53, 0.90), "underperforming");
  EXPECT_EQ(band_headroom(0.20, 0.90), "underperforming");
  EXPECT_EQ(band_headroom(0.18, 0.50), "underperforming");
  EXPECT_EQ(band_headroom(std::nullopt, 0.90), "unknown");
  EXPECT_EQ(band_headroom(0.5, std::nullopt), "unknown");
  EXPECT_EQ(band_headroom(0.5, 0.0), "unknown");
}

TEST(SeedTargetEff, SeedPriorsPerClass)
{
  EXPECT_DOUBLE_EQ(*seed_target_eff("gemm"), 0.90);
  EXPECT_DOUBLE_EQ(*seed_target_eff("moe"), 0.90);
  EXPECT_DOUBLE_EQ(*seed_target_eff("elementwise"), 0.875);
  EXPECT_DOUBLE_EQ(*seed_target_eff("attn"), 0.50);
  EXPECT_FALSE(seed_target_eff("unknown").has_value());
}

TEST(ValidationClass, MapsStatusVocabulary)
{
  EXPECT_EQ(validation_class("accepted").value, "win");
  EXPECT_EQ(validation_class("validated_win").value, "win");
  EXPECT_EQ(validation_class("validated_no_win").value, "no_win");
  EXPECT_EQ(validation_class("rejected").value, "no_win");
  EXPECT_EQ(validation_class("flagged").value, "flagged");
  const Normalized carried = validation_class("accepted_no_number_used_carried_ab");
  EXPECT_EQ(carried.value, "unknown");
  EXPECT_TRUE(carried.recognized);
  EXPECT_TRUE(validation_class("phase_partial").recognized);
  const Normalized odd = validation_class("great_success");
  EXPECT_EQ(odd.value, "unknown");
  EXPECT_FALSE(odd.recognized);
}

TEST(AttemptVerdictFromLedger, MapsOrchestratorAndArchitectVerdicts)
{
  const std::vector<std::pair<std::string, std::string>> table = {
      {"confirmed", "confirmed"},         {"confirmed_corrective", "confirmed"},
      {"candidate_passed", "confirmed"},  {"partial", "partial"},
      {"dead_end", "dead_end"},           {"dead-end", "dead_end"},
      {"candidate_rejected", "dead_end"}, {"flagged", "flagged"},
      {"incomplete", "incomplete"},       {"candidate_incomplete", "incomplete"}};
  for (const auto& [raw, verdict] : table) {
    EXPECT_EQ(attempt_verdict_from_ledger(raw).value, verdict) << raw;
  }
  EXPECT_FALSE(attempt_verdict_from_ledger("maybe").recognized);
}

TEST(AttemptVerdictFromGate, ConfirmsOnlyMeasuredGains)
{
  EXPECT_EQ(attempt_verdict_from_gate("accepted", 2.3).value, "confirmed");
  EXPECT_EQ(attempt_verdict_from_gate("stack", 0.3).value, "confirmed");
  EXPECT_EQ(attempt_verdict_from_gate("stack", -0.064).value, "partial");
  EXPECT_EQ(attempt_verdict_from_gate("accepted", std::nullopt).value, "partial");
  EXPECT_EQ(attempt_verdict_from_gate("rejected", 5.0).value, "dead_end");
  EXPECT_EQ(attempt_verdict_from_gate("Incomplete", std::nullopt).value, "incomplete");
  const Normalized bogus = attempt_verdict_from_gate("maybe", 1.0);
  EXPECT_EQ(bogus.value, "unknown");
  EXPECT_FALSE(bogus.recognized);
}

TEST(RoundOrder, SortsRoundsInWorkflowOrder)
{
  EXPECT_EQ(round_order("0"), 0);
  EXPECT_EQ(round_order("config"), 10);
  EXPECT_EQ(round_order("head"), 20);
  EXPECT_EQ(round_order("fusion_capture"), 30);
  EXPECT_EQ(round_order("1"), 100);
  EXPECT_EQ(round_order("2"), 200);
  EXPECT_EQ(round_order("12"), 1200);
  EXPECT_EQ(round_order("round_3"), 300);
  EXPECT_EQ(round_order("weird"), 5000);
  EXPECT_EQ(round_order(""), 5000);
  EXPECT_EQ(round_order("-1"), 5000);
  std::vector<std::string> rounds = {"2", "head", "1", "0", "fusion_capture", "config"};
  std::sort(rounds.begin(), rounds.end(),
            [](const auto& a, const auto& b) { return round_order(a) < round_order(b); });
  EXPECT_EQ(rounds, (std::vector<std::string>{"0", "config", "head", "fusion_capture", "1", "2"}));
}

TEST(LeverKindFor, ClassifiesLevers)
{
  EXPECT_EQ(lever_kind_for({"sweep_results", "", "", "--attention-backend aiter"}), "config");
  EXPECT_EQ(lever_kind_for({"integrate_result", "flag", "", "config: --x"}), "config");
  EXPECT_EQ(lever_kind_for({"integrate_result", "env", "aiter", "backend aiter (env AITER_TUNED_GEMM=1)"}),
            "tuning");
  EXPECT_EQ(lever_kind_for({"integrate_result", "patch", "triton", "authored triton kernel"}), "authored");
  EXPECT_EQ(lever_kind_for({"ledger", "", "hipblaslt", "backend hipblaslt"}), "backend");
  EXPECT_EQ(lever_kind_for({"ledger", "", "", "rmsnorm+quant fusion"}), "fusion");
  EXPECT_EQ(lever_kind_for({"ledger", "", "", "lower precision weights"}), "precision");
  EXPECT_EQ(lever_kind_for({"ledger", "", "", "direction gemm0"}), "other");
}

TEST(NormalizeGfx, TargetsDevicesAndFeatures)
{
  EXPECT_EQ(normalize_gfx("GFX950"), "gfx950");
  EXPECT_EQ(normalize_gfx(" gfx950\t"), "gfx950"); // padded, as env_report.json may hold it
  EXPECT_EQ(normalize_gfx("gfx950:sramecc+:xnack-"), "gfx950");
  EXPECT_EQ(normalize_gfx("MI355X"), "gfx950");
  EXPECT_EQ(normalize_gfx("mi300x_oam"), "gfx942");
  EXPECT_EQ(normalize_gfx("MI250"), "gfx90a");
  EXPECT_EQ(normalize_gfx("gfx"), std::nullopt);
  EXPECT_EQ(normalize_gfx("rtx4090"), std::nullopt);
  EXPECT_EQ(normalize_gfx(""), std::nullopt);
}

TEST(NormalizeGfx, GroupingKey)
{
  EXPECT_EQ(gfx_key(" GFX950 "), "gfx950");
  EXPECT_EQ(gfx_key("MI355X"), "gfx950");
  EXPECT_EQ(gfx_key(""), "unknown");
  EXPECT_EQ(gfx_key(" \n"), "unknown");
  EXPECT_EQ(gfx_key("Some  GPU"), "some gpu");
}

TEST(OpClassKey, LowerCasedOrUnknown)
{
  EXPECT_EQ(op_class_key("gemm"), "gemm");
  EXPECT_EQ(op_class_key(" MoE\n"), "moe");
  EXPECT_EQ(op_class_key("config"), "config");
  EXPECT_EQ(op_class_key(""), "unknown");
  EXPECT_EQ(op_class_key("  "), "unknown");
}

TEST(NormalizeRegime, OneRuleForReuseKeysAndPriors)
{
  EXPECT_EQ(regime_of("decode"), Regime::decode);
  EXPECT_EQ(regime_of("decoding"), Regime::decode);
  EXPECT_EQ(regime_of("prompt"), Regime::prefill);
  EXPECT_EQ(regime_of("Prefill+Decode"), Regime::both);
  EXPECT_EQ(regime_of("mixed"), Regime::both);
  EXPECT_EQ(regime_of("all"), Regime::both);
  EXPECT_EQ(regime_of("any"), Regime::both);
  EXPECT_EQ(regime_of(""), Regime::unknown);
  EXPECT_EQ(regime_of("launch-bound"), Regime::unknown);
  EXPECT_EQ(normalize_regime("all"), "both");
}

TEST(ParityFailed, ParityOrRejectWord)
{
  EXPECT_TRUE(parity_failed("fail", ""));
  EXPECT_TRUE(parity_failed("pass", "parity_regression"));
  EXPECT_TRUE(parity_failed("", "accuracy_regression"));
  EXPECT_TRUE(parity_failed("n/a", "output_corruption"));
  EXPECT_FALSE(parity_failed("pass", "no_engagement"));
  EXPECT_FALSE(parity_failed("FAIL", "")); // stored spelling only: callers lower-case
  EXPECT_FALSE(parity_failed("", ""));
}

TEST(AttemptVerdictFromOpbenchGate, MapsGateWords)
{
  EXPECT_EQ(attempt_verdict_from_opbench_gate("have_winner"), "incomplete");
  EXPECT_EQ(attempt_verdict_from_opbench_gate("NO_WIN"), "dead_end");
  EXPECT_EQ(attempt_verdict_from_opbench_gate("tamper"), "flagged");
  EXPECT_EQ(attempt_verdict_from_opbench_gate("maybe"), "unknown");
}
