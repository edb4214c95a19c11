// Roofline rules (domain/roofline.hpp): seeds, headroom bands, attainable
// speedup, the Amdahl gain and the noise bands, with real values.
#include "domain/roofline.hpp"

#include <gtest/gtest.h>

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
