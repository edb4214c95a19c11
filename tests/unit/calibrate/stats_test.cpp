#include "calibrate/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

namespace rfdb::calibrate {
namespace {

TEST(WeightedQuantile, EqualWeightsPickThirdOfFour)
{
  // W = 4, 0.75·W = 3: cumulative 1, 2, 3 → the third value.
  const auto q = weighted_quantile({{0.95, 1.0}, {0.5, 1.0}, {0.9, 1.0}, {0.7, 1.0}}, 0.75);
  ASSERT_TRUE(q.has_value());
  EXPECT_DOUBLE_EQ(*q, 0.9);
}

TEST(WeightedQuantile, ConfidenceWeightsHandComputed)
{
  // Sorted: 0.6(0.25) 0.7(0.6) 0.8(0.6) 0.9(1.0); W = 2.45.
  // p 0.75: target 1.8375; cumulative 0.25, 0.85, 1.45, 2.45 → 0.9.
  // p 0.50: target 1.225 → 0.8.  p 0.30: target 0.735 → 0.7.
  const std::vector<WeightedValue> sample = {{0.6, 0.25}, {0.8, 0.6}, {0.9, 1.0}, {0.7, 0.6}};
  EXPECT_DOUBLE_EQ(*weighted_quantile(sample, 0.75), 0.9);
  EXPECT_DOUBLE_EQ(*weighted_quantile(sample, 0.50), 0.8);
  EXPECT_DOUBLE_EQ(*weighted_quantile(sample, 0.30), 0.7);
  EXPECT_DOUBLE_EQ(*weighted_quantile(sample, 1.00), 0.9);
}

TEST(WeightedQuantile, ExactBoundarySurvivesFloatRounding)
{
  // Six values of weight 0.6: the float cumulative after three is
  // 1.7999999999999998 while 0.5·W is 1.8. In real arithmetic the target is
  // reached exactly at the third value, so the answer is 0.3, not 0.4.
  const std::vector<WeightedValue> six = {{0.1, 0.6}, {0.2, 0.6}, {0.3, 0.6},
                                          {0.4, 0.6}, {0.5, 0.6}, {0.6, 0.6}};
  EXPECT_DOUBLE_EQ(*weighted_quantile(six, 0.5), 0.3);
  // Sixteen values of weight 0.1 at p 0.75: the twelfth (1.2 vs 1.2000000000000002).
  std::vector<WeightedValue> sixteen;
  for (int i = 1; i <= 16; ++i) {
    sixteen.push_back({static_cast<double>(i), 0.1});
  }
  EXPECT_DOUBLE_EQ(*weighted_quantile(sixteen, 0.75), 12.0);
}

TEST(WeightedQuantile, TiesCountTogether)
{
  // Σ_{e ≤ 0.5} w = 2 ≥ 0.5·3.
  EXPECT_DOUBLE_EQ(*weighted_quantile({{0.9, 1.0}, {0.5, 1.0}, {0.5, 1.0}}, 0.5), 0.5);
}

TEST(WeightedQuantile, EmptyOrWeightlessHasNoValue)
{
  EXPECT_FALSE(weighted_quantile({}, 0.75).has_value());
  EXPECT_FALSE(weighted_quantile({{0.5, 0.0}, {0.7, 0.0}}, 0.75).has_value());
}

TEST(WeightedQuantile, SkipsZeroWeightValues)
{
  // 0.2 carries no weight, so it can never be the quantile.
  EXPECT_DOUBLE_EQ(*weighted_quantile({{0.2, 0.0}, {0.6, 1.0}}, 0.1), 0.6);
}

TEST(WeightedQuantile, OrderOfInputDoesNotMatter)
{
  std::vector<WeightedValue> sample;
  for (int i = 0; i < 40; ++i) {
    sample.push_back({0.3 + 0.017 * (i % 23), 0.25 + 0.05 * (i % 7)});
  }
  const double expected = *weighted_quantile(sample, 0.75);
  std::mt19937 shuffler(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(sample.begin(), sample.end(), shuffler);
    EXPECT_EQ(*weighted_quantile(sample, 0.75), expected);
  }
}

TEST(WeightedMedian, LowerMedianOnEvenSplit)
{
  // W = 4, target 2: cumulative reaches 2 at the second value.
  EXPECT_DOUBLE_EQ(*weighted_median({{4.0, 1.0}, {1.0, 1.0}, {3.0, 1.0}, {2.0, 1.0}}), 2.0);
}

TEST(WeightedMedian, HeavyValueDominates)
{
  // W = 7, target 3.5: 1 → 1, 2 → 2, 10 → 7.
  EXPECT_DOUBLE_EQ(*weighted_median({{1.0, 1.0}, {2.0, 1.0}, {10.0, 5.0}}), 10.0);
}

TEST(WeightedMedian, TinyWeightOutlierCannotDominate)
{
  // Ratios with ceilings as weights: the 40.4 ratio has weight 0.0099.
  // W = 11.0099, target 5.505: −0.5 → 2, 0.5 → 6 → 0.5.
  EXPECT_DOUBLE_EQ(*weighted_median({{40.4, 0.0099}, {0.6, 5.0}, {-0.5, 2.0}, {0.5, 4.0}}), 0.5);
}

TEST(WeightedQuantileCounted, CountsActAsMultiplicity)
{
  const std::vector<WeightedValue> sorted = {{0.2, 1.0}, {0.5, 1.0}, {0.9, 1.0}};
  // Resample {0.2, 0.2, 0.9}: W = 3, target 2.25 → 0.9.
  const std::array<std::uint32_t, 3> counts = {2, 0, 1};
  const auto q = weighted_quantile_counted(sorted, counts, 0.75);
  ASSERT_TRUE(q.has_value());
  EXPECT_DOUBLE_EQ(q->value, 0.9);
  EXPECT_DOUBLE_EQ(q->total_weight, 3.0);
  // Resample {0.2, 0.2, 0.2}: the middle value has count 0 and is never chosen.
  const std::array<std::uint32_t, 3> only_first = {3, 0, 0};
  EXPECT_DOUBLE_EQ(weighted_quantile_counted(sorted, only_first, 0.75)->value, 0.2);
  // Empty counts mean "each once".
  EXPECT_DOUBLE_EQ(weighted_quantile_counted(sorted, {}, 0.75)->value, 0.9);
}

TEST(PercentileSorted, LinearInterpolationType7)
{
  const std::vector<double> v = {1.0, 2.0, 3.0, 4.0, 5.0};
  EXPECT_DOUBLE_EQ(*percentile_sorted(v, 0.05), 1.2); // h = 0.2
  EXPECT_DOUBLE_EQ(*percentile_sorted(v, 0.95), 4.8); // h = 3.8
  EXPECT_DOUBLE_EQ(*percentile_sorted(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(*percentile_sorted(v, 1.0), 5.0);
  EXPECT_DOUBLE_EQ(*percentile_sorted(v, 0.5), 3.0);
  const std::vector<double> one = {0.7};
  EXPECT_DOUBLE_EQ(*percentile_sorted(one, 0.05), 0.7);
  EXPECT_FALSE(percentile_sorted({}, 0.5).has_value());
}

TEST(Prng, SplitMix64ReferenceOutputs)
{
  // Reference values of SplitMix64 from state 0 (computed independently).
  Prng rng(0);
  EXPECT_EQ(rng.next_u64(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.next_u64(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.next_u64(), 0x06C45D188009454FULL);
}

TEST(Prng, BelowStaysInRangeAndIsRoughlyUniform)
{
  Prng rng(42);
  std::array<int, 6> buckets{};
  const int draws = 60000;
  for (int i = 0; i < draws; ++i) {
    const auto x = rng.below(6);
    ASSERT_LT(x, 6U);
    ++buckets[x];
  }
  for (const int b : buckets) {
    EXPECT_NEAR(b, draws / 6, 400); // ≈ 4.5 standard deviations
  }
  EXPECT_EQ(Prng(9).below(1), 0U);
}

TEST(Prng, SameSeedSameStream)
{
  Prng a(123);
  Prng b(123);
  Prng c(124);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differs = differs || x != c.next_u64();
  }
  EXPECT_TRUE(differs);
}

TEST(DeriveSeed, DependsOnLabelAndSeed)
{
  EXPECT_EQ(derive_seed(1, "moe"), derive_seed(1, "moe"));
  EXPECT_NE(derive_seed(1, "moe"), derive_seed(1, "attn"));
  EXPECT_NE(derive_seed(1, "moe"), derive_seed(2, "moe"));
  EXPECT_NE(derive_seed(1, "moe:gfx950"), derive_seed(1, "moe"));
}

TEST(BootstrapInterval, NoSampleNoInterval)
{
  auto stat = [](std::span<const std::uint32_t>) { return 1.0; };
  EXPECT_FALSE(bootstrap_interval(0, 1000, 0.9, 1, stat).has_value());
  EXPECT_FALSE(bootstrap_interval(5, 0, 0.9, 1, stat).has_value());
}

TEST(BootstrapInterval, ConstantStatisticGivesPointInterval)
{
  const auto iv = bootstrap_interval(3, 200, 0.9, 1, [](std::span<const std::uint32_t>) { return 0.42; });
  ASSERT_TRUE(iv.has_value());
  EXPECT_DOUBLE_EQ(iv->lo, 0.42);
  EXPECT_DOUBLE_EQ(iv->hi, 0.42);
}

TEST(BootstrapInterval, MeanOfCoinFlipsIsReproducibleAndCoversTruth)
{
  // 20 values, half 0 and half 1; statistic = resample mean.
  std::vector<double> values(20);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<double>(i % 2);
  }
  auto mean = [&](std::span<const std::uint32_t> counts) {
    double sum = 0.0;
    double n = 0.0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      sum += values[i] * counts[i];
      n += counts[i];
    }
    return sum / n;
  };
  const auto a = bootstrap_interval(values.size(), 1000, 0.9, 77, mean);
  const auto b = bootstrap_interval(values.size(), 1000, 0.9, 77, mean);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->lo, b->lo);
  EXPECT_EQ(a->hi, b->hi);
  // Standard error √(0.25/20) ≈ 0.112: the 90 % interval is about ±0.18.
  EXPECT_LT(a->lo, 0.5);
  EXPECT_GT(a->hi, 0.5);
  EXPECT_GT(a->lo, 0.2);
  EXPECT_LT(a->hi, 0.8);
  // Every resample has exactly n draws.
  std::size_t draws = 0;
  bootstrap_interval(values.size(), 1, 0.9, 5, [&](std::span<const std::uint32_t> counts) {
    for (const auto c : counts) {
      draws += c;
    }
    return 0.0;
  });
  EXPECT_EQ(draws, values.size());
}

} // namespace
} // namespace rfdb::calibrate
