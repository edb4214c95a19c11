// domain::classify_knowledge and stated_figures: what an imported finding
// says, read from its own text (issue 27). The record-by-record check on the
// public samples is tests/integration/legacy_truth_test.cpp; these pin each
// rule on short texts of the same shapes.
#include "domain/knowledge_kind.hpp"

#include <gtest/gtest.h>

namespace rfdb::domain {
namespace {

using Metric = StatedFigure::Metric;

KnowledgeClass card(std::string_view effect, std::string_view type = "lever",
                    std::string_view description = "")
{
  KnowledgeText in;
  in.origin = "card";
  in.type = type;
  in.lifecycle = "active";
  in.effect = effect;
  in.description = description;
  return classify_knowledge(in);
}

KnowledgeClass line(std::string_view text)
{
  KnowledgeText in;
  in.origin = "playbook";
  in.lifecycle = "active";
  in.text = text;
  return classify_knowledge(in);
}

TEST(StatedFigures, ReadsSignedPercentagesRangesAndIsolatedSpeedups)
{
  const auto f = stated_figures("+16-18% e2e VERIFIED (iso ~1.6\u00d7); per-round range +10.40%..+11.45%");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].metric, Metric::e2e_pct);
  EXPECT_DOUBLE_EQ(f[0].lo, 16.0);
  EXPECT_DOUBLE_EQ(f[0].hi, 18.0);
  EXPECT_EQ(f[1].metric, Metric::isolated);
  EXPECT_DOUBLE_EQ(f[1].lo, 1.6);
  EXPECT_TRUE(f[1].approx);
  EXPECT_DOUBLE_EQ(f[2].lo, 10.40);
  EXPECT_DOUBLE_EQ(f[2].hi, 11.45);
  EXPECT_EQ(f[2].decimals, 2);
}

TEST(StatedFigures, ReadsUnicodeMinusAndApproximateSigns)
{
  const auto f = stated_figures(
      "returned \u221220.47% / \u221212.41% / flat; attention +~5% e2e; a real e2e lever (~+11%)");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_DOUBLE_EQ(f[0].lo, -20.47);
  EXPECT_DOUBLE_EQ(f[1].lo, -12.41);
  EXPECT_DOUBLE_EQ(f[2].lo, 5.0);
  EXPECT_DOUBLE_EQ(f[3].lo, 11.0);
}

TEST(StatedFigures, LeavesOutSharesCeilingsBandsLatenciesAndThroughputRatios)
{
  EXPECT_TRUE(stated_figures("head ~8-21% GPU; rewrite \u2192 ~+1-4% e2e ceiling").empty());
  EXPECT_TRUE(stated_figures("solo e2e below the 0.5% noise band; (Amdahl ceiling +1.7%)").empty());
  EXPECT_TRUE(stated_figures("TPOT -5.73%, ~50.6% of GPU time").empty());
  EXPECT_TRUE(stated_figures("(133.894\u2192163.401 tok/s, 1.2437\u00d7, non-overlapping)").empty());
  EXPECT_TRUE(stated_figures("on gfx942 with M=8192 and 4x4 tiles").empty());
  const auto f = stated_figures("Unit-side 1.363x, in-adapter graph 39.6 -> 23.9 us/layer");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].lo, 1.363);
}

TEST(ClassifyKnowledge, AnE2eGainBeyondTheBandIsAMeasuredPositiveWithItsOwnFigures)
{
  const auto c =
      card("+2.23% e2e VERIFIED (1548.9\u21921583.5 tok/s, non-overlapping 5-repeat A/B); ~+6% cumulative");
  EXPECT_EQ(c.kind, KnowledgeKind::positive_measured);
  ASSERT_TRUE(c.e2e_min_pct);
  EXPECT_DOUBLE_EQ(*c.e2e_min_pct, 2.23);
  EXPECT_DOUBLE_EQ(*c.e2e_max_pct, 2.23);
  EXPECT_FALSE(c.iso_min);
  EXPECT_EQ(c.reason, "effect states e2e +2.23 % (beyond +0.5 %)");
}

TEST(ClassifyKnowledge, TheDescriptionDecidesButTheEffectLineGivesTheFigures)
{
  // The description rounds (~+11 %); the effect states +10.68 %.
  const auto c =
      card("+10.68% e2e on the revalidate arm; -8.2% for forcing one library globally", "lever",
           "a per-shape table is a real e2e lever (~+11%); forcing one library is a large regression");
  EXPECT_EQ(c.kind, KnowledgeKind::positive_measured);
  EXPECT_DOUBLE_EQ(*c.e2e_min_pct, 10.68);
  // A description with a gain beats an effect headline that is a loss; the
  // loss stays out of the figures.
  const auto m = card("8th confirm CLOSES THE GEMM LANE \u2014 returned \u221220.47% / \u221212.41%",
                      "routing", "author a whole-file Triton replacement; +26.9% to +92.5% e2e, byte-exact");
  EXPECT_EQ(m.kind, KnowledgeKind::positive_measured);
  EXPECT_DOUBLE_EQ(*m.e2e_min_pct, 26.9);
  EXPECT_DOUBLE_EQ(*m.e2e_max_pct, 92.5);
}

TEST(ClassifyKnowledge, NoiseWordsAndSmallDeltasAreInNoise)
{
  EXPECT_EQ(
      card("E2E VERDICT: the overlay alone is SUB-NOISE (+0.19% vs a same-session ref); iso 1.10x").kind,
      KnowledgeKind::in_noise);
  EXPECT_EQ(
      card("a 10.2%-GPU cluster at iso 1.196\u00d7 measured only +0.59% with overlapping distributions").kind,
      KnowledgeKind::in_noise);
  const auto c = card("iso 1.2336x serving-weighted; kernel-only A/B +0.402% (ranges overlap)");
  EXPECT_EQ(c.kind, KnowledgeKind::in_noise);
  EXPECT_DOUBLE_EQ(*c.e2e_min_pct, 0.402);
  EXPECT_DOUBLE_EQ(*c.iso_min, 1.2336);
  // "non-overlapping" is no noise word.
  EXPECT_EQ(card("+6.046% e2e output tok/s, non-overlapping").kind, KnowledgeKind::positive_measured);
}

TEST(ClassifyKnowledge, LossesRejectionsAndAntiPatternsAreNegative)
{
  EXPECT_EQ(card("e2e -4.6% against the incumbent").kind, KnowledgeKind::negative);
  EXPECT_EQ(card("e2e +29.15% but REJECTED on byte-parity").kind, KnowledgeKind::negative);
  EXPECT_EQ(card("0.851x overall vs the incumbent (net regression)", "anti-pattern").kind,
            KnowledgeKind::negative);
  EXPECT_EQ(card("isolated 0.72x geomean on every case").kind, KnowledgeKind::negative);
}

TEST(ClassifyKnowledge, IsolatedOnlyFiguresDecideWithTheIsolatedBand)
{
  EXPECT_EQ(card("isolated **1.615\u00d7** over six pure layout ops covering 12.2% of denoise GPU time").kind,
            KnowledgeKind::positive_measured);
  EXPECT_EQ(card("iso 1.02x serving-weighted").kind, KnowledgeKind::in_noise);
}

TEST(ClassifyKnowledge, MethodsSeamsRoutingAndArchived)
{
  EXPECT_EQ(card("a -0.222% reject became a +1.2249% accept", "method").kind, KnowledgeKind::method);
  KnowledgeText archived;
  archived.origin = "card";
  archived.lifecycle = "active";
  archived.status = "DEPRECATED-FOR-THIS-EVAL";
  archived.effect = "iso ~1.06\u20131.16\u00d7 prefill";
  EXPECT_EQ(classify_knowledge(archived).kind, KnowledgeKind::archived);
  archived.status = "";
  archived.lifecycle = "archived";
  EXPECT_EQ(classify_knowledge(archived).kind, KnowledgeKind::archived);

  EXPECT_EQ(
      line("**MEASUREMENT METHOD: pin PORT and run a tight INTERLEAVED A/B.** (+1.19% vs +0.59% here)").kind,
      KnowledgeKind::method);
  EXPECT_EQ(
      line("**ROUTING: on the FP8 variant the live dense-GEMM dispatcher is the a8w8 path.** iso 1.4x").kind,
      KnowledgeKind::seam_fact);
  EXPECT_EQ(
      line("**ROUTING: spend the head budget on dense GEMM first.** kernels at 1.18x, 1.14x isolated").kind,
      KnowledgeKind::routing_note);
  EXPECT_EQ(
      line("**HEAD LEVER + ROUTING: the fused-MoE GEMM is THE head.** isolated 1.59x; +16.05% e2e").kind,
      KnowledgeKind::positive_measured);
  EXPECT_EQ(
      line("**Editable Triton cluster ~9% GPU \u2014 optimize via kernel_workflow.** ensure the MECHANISM")
          .kind,
      KnowledgeKind::routing_note);
  // No figure at all: never a measured positive.
  EXPECT_EQ(card("head ~5.6% GPU; editable in-tree Triton kernel (e2e transfer TBD)", "lever").kind,
            KnowledgeKind::routing_note);
}

TEST(ClassifyKnowledge, KindSpellingsRoundTrip)
{
  for (const auto k : {KnowledgeKind::positive_measured, KnowledgeKind::in_noise, KnowledgeKind::negative,
                       KnowledgeKind::method, KnowledgeKind::seam_fact, KnowledgeKind::routing_note,
                       KnowledgeKind::archived}) {
    EXPECT_EQ(parse_knowledge_kind(to_string(k)), k);
  }
  EXPECT_FALSE(parse_knowledge_kind("Positive"));
}

} // namespace
} // namespace rfdb::domain
