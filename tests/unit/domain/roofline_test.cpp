// Roofline rules (domain/roofline.hpp): seeds, headroom bands, attainable
// speedup, the Amdahl gain and the noise bands, with real values.
#include "domain/roofline.hpp"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

using namespace rfdb::domain;

TEST(Roofline, SeedTargetEffByEnumAndText)
{
  EXPECT_DOUBLE_EQ(*seed_target_eff(OpClass::gemm), 0.90);
  EXPECT_DOUBLE_EQ(*seed_target_eff(OpClass::moe), 0.90);
  EXPECT_DOUBLE_EQ(*seed_target_eff(OpClass::elementwise), 0.875);
  EXPECT_DOUBLE_EQ(*seed_target_eff(OpClass::attn), 0.50);
  EXPECT_FALSE(seed_target_eff(OpClass::unknown));
  for (const auto op : k_seeded_op_classes) {
    EXPECT_TRUE(seed_target_eff(op)) << op;
  }
  EXPECT_FALSE(seed_target_eff(""));
  EXPECT_FALSE(seed_target_eff("GEMM")); // canonical spelling only
}

TEST(Roofline, HeadroomBandEnumMatchesText)
{
  EXPECT_EQ(headroom_band(0.81, 0.90), HeadroomClass::saturated);
  EXPECT_EQ(headroom_band(0.54, 0.90), HeadroomClass::moderate);
  EXPECT_EQ(headroom_band(0.53, 0.90), HeadroomClass::underperforming);
  EXPECT_EQ(headroom_band(std::nullopt, 0.90), HeadroomClass::unknown);
  EXPECT_EQ(headroom_band(0.5, 0.0), HeadroomClass::unknown);
  EXPECT_EQ(headroom_band(-0.1, 0.9), HeadroomClass::unknown);
  EXPECT_EQ(band_headroom(0.20, 0.90), "underperforming");
  EXPECT_TRUE(is_banded("saturated"));
  EXPECT_TRUE(is_banded("moderate"));
  EXPECT_TRUE(is_banded("underperforming"));
  EXPECT_FALSE(is_banded("unknown"));
  EXPECT_FALSE(is_banded(""));
  EXPECT_FALSE(is_banded("Saturated"));
}

TEST(Roofline, AttainableSpeedupIsAtLeastOne)
{
  EXPECT_DOUBLE_EQ(*attainable_speedup(0.45, 0.90), 2.0);
  EXPECT_DOUBLE_EQ(*attainable_speedup(0.95, 0.90), 1.0); // already past the target
  EXPECT_FALSE(attainable_speedup(0.0, 0.90));
  EXPECT_FALSE(attainable_speedup(std::nullopt, 0.90));
  EXPECT_FALSE(attainable_speedup(0.5, std::nullopt));
}

TEST(Roofline, AmdahlGain)
{
  EXPECT_DOUBLE_EQ(amdahl_gain_pct(20.0, 2.0), 10.0);
  EXPECT_NEAR(amdahl_gain_pct(26.45, 1.023), 0.5946725317693025, 1e-12);
  EXPECT_DOUBLE_EQ(amdahl_gain_pct(10.0, 1.0), 0.0);
}

TEST(Roofline, NoiseBands)
{
  EXPECT_DOUBLE_EQ(k_iso_noise, 0.034);
  EXPECT_DOUBLE_EQ(k_e2e_noise_pct, 0.5);
  EXPECT_FALSE(is_isolated_win(1.034)); // on the edge: noise
  EXPECT_TRUE(is_isolated_win(1.035));
  EXPECT_TRUE(is_isolated_win(1.02, 0.01));
  EXPECT_FALSE(is_e2e_gain(0.5));
  EXPECT_TRUE(is_e2e_gain(0.51));
  EXPECT_TRUE(is_e2e_loss(-0.5));
  EXPECT_FALSE(is_e2e_loss(-0.49));
  // 1.047 ≤ 1.023 × 1.034 = 1.057782: within the band of the prediction.
  EXPECT_FALSE(beats_prediction(1.047, 1.023));
  EXPECT_TRUE(beats_prediction(1.06, 1.023));
}

// Issue 28: a saturated measured band the engine disputes.
TEST(Roofline, DisputedNeedsASaturatedBandAndTheEngineSayingHeadroomIsLeft)
{
  // The heads: 0.48 / 0.50 with headroom_ratio 2.08, 0.612 / 0.50 with 1.634.
  EXPECT_TRUE(is_disputed(band_headroom(0.48, 0.50), 2.08, std::string("actionable")));
  EXPECT_TRUE(is_disputed(band_headroom(0.612, 0.50), 1.634, std::nullopt));
  EXPECT_TRUE(is_disputed("saturated", 1.25, std::nullopt)); // 25 % left: the edge counts
  EXPECT_FALSE(is_disputed("saturated", 1.2499, std::nullopt));
  EXPECT_TRUE(is_disputed("saturated", 1.10, std::string("actionable"))); // guidance alone
  EXPECT_FALSE(is_disputed("saturated", 1.10, std::string("low_headroom")));
  EXPECT_FALSE(is_disputed("saturated", std::nullopt, std::nullopt)); // an analytic verdict
  EXPECT_FALSE(is_disputed("moderate", 2.08, std::string("actionable")));
  EXPECT_FALSE(is_disputed("unknown", 2.08, std::string("actionable")));
}

namespace {

// The miss: decode at 0.476 (0.9 / 0.476 = 1.890756×, 26 % of the
// time, dominant) and prefill at 0.331 (0.9 / 0.331 = 2.719033×, 74 %).
std::vector<CaseShare> prefill_heavy_mix()
{
  CaseShare decode{"decode_M16", "decode", 0.26, 0.476, 0.9 / 0.476, true};
  CaseShare prefill{"prefill_M8192", "prefill", 0.74, 0.331, 0.9 / 0.331, false};
  return {decode, prefill};
}

} // namespace

TEST(Roofline, CaseMixAttainableIsAmdahlOverTheCases)
{
  const auto mix = prefill_heavy_mix();
  // 1 / (0.26 / 1.890756 + 0.74 / 2.719033) = 1 / (0.137511 + 0.272156) = 2.441009.
  EXPECT_NEAR(*case_mix_attainable(mix), 2.441009, 1e-6);
  // Shares are normalised: 13 / 37 is the same mix as 0.26 / 0.74.
  auto scaled = mix;
  scaled[0].time_share = 13.0;
  scaled[1].time_share = 37.0;
  EXPECT_NEAR(*case_mix_attainable(scaled), 2.441009, 1e-6);
  // One case is its own attainable; nothing, a negative share or no time at all gives none.
  EXPECT_DOUBLE_EQ(*case_mix_attainable(std::span(mix).first(1)), 0.9 / 0.476);
  EXPECT_FALSE(case_mix_attainable({}));
  // A case holding no time adds nothing: all the time in the first case is its attainable.
  scaled[1].time_share = 0.0;
  EXPECT_NEAR(*case_mix_attainable(scaled), 1.890756, 1e-6);
  scaled[0].time_share = 0.0;
  EXPECT_FALSE(case_mix_attainable(scaled));
  scaled[0].time_share = -0.26;
  scaled[1].time_share = 1.26;
  EXPECT_FALSE(case_mix_attainable(scaled));
}

TEST(Roofline, CaseMixRegimeFollowsTheTime)
{
  auto mix = prefill_heavy_mix();
  EXPECT_EQ(case_mix_regime(mix), "prefill"); // 0.74 of the time, though decode is dominant
  mix[1].time_share = 0.26;
  mix[0].time_share = 0.74;
  EXPECT_EQ(case_mix_regime(mix), "decode");
  mix[0].time_share = 0.5;
  mix[1].time_share = 0.5;
  EXPECT_EQ(case_mix_regime(mix), "decode"); // a tie goes to the dominant case
  mix[0].regime.clear();
  mix[1].regime.clear();
  EXPECT_EQ(case_mix_regime(mix), "");
}

TEST(Roofline, CaseMixSourceNamesTheCaseAWinCameFrom)
{
  const auto mix = prefill_heavy_mix();
  // 2.687 beats the mix (2.441 × 1.034 = 2.524) and the dominant case
  // (1.891 × 1.034 = 1.955) but not prefill (2.719 × 1.034 = 2.811).
  const CaseShare* c = case_mix_source(mix, 2.687);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->case_id, "prefill_M8192");
  // Within the mix's band but beyond the dominant case's (a prediction made
  // on the dominant case alone): still the prefill case's win.
  ASSERT_NE(case_mix_source(mix, 2.50), nullptr);
  EXPECT_EQ(case_mix_source(mix, 2.50)->case_id, "prefill_M8192");
  // Within both: no miss to diagnose.
  EXPECT_EQ(case_mix_source(mix, 1.95), nullptr);
  // Beyond every case: the byte/FLOP counts are the suspect.
  EXPECT_EQ(case_mix_source(mix, 2.90), nullptr);
  EXPECT_EQ(case_mix_source({}, 2.687), nullptr);
  // D6's GEMM: decode 0.474 (1.898734×, 86 %, dominant), prefill 0.589
  // (1.528014×, 14 %) mix to 1.836360×; the authored 1.899× beats the mix
  // (× 1.034 = 1.898797) but sits at the dominant case's own attainable.
  const std::vector<CaseShare> d6{{"decode_M64", "decode", 0.86, 0.474, 0.9 / 0.474, true},
                                  {"prefill_M2048", "prefill", 0.14, 0.589, 0.9 / 0.589, false}};
  EXPECT_NEAR(*case_mix_attainable(d6), 1.836360, 1e-6);
  const CaseShare* from = case_mix_source(d6, 1.899);
  ASSERT_NE(from, nullptr);
  EXPECT_EQ(from->case_id, "decode_M64");
}
