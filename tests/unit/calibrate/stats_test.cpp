#include "calibrate/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <tuple>
#include <vector>

namespace rfdb::calibrate {
namespace {

// The censoring rule (docs/estimator.md, "Censored observations").
// Exact: 0.5, 0.6, 0.7, 0.8 (weight 1 each): W = 4, 0.75·W = 3 → q = 0.7.
TEST(CensoredQuantile, BoundAboveTheUncensoredQuantileEntersAndRaisesIt)
{
  const std::vector<WeightedValue> exact = {{0.5, 1.0}, {0.6, 1.0}, {0.7, 1.0}, {0.8, 1.0}};
  EXPECT_DOUBLE_EQ(censoring_threshold(exact, 0.75, 0.9), 0.7);
  // 0.91 > 0.7 enters: 0.5 0.6 0.7 0.8 0.91, W = 5, 0.75·W = 3.75 → the 4th value, 0.8.
  EXPECT_DOUBLE_EQ(*censored_weighted_quantile(exact, {{0.91, 1.0}}, 0.75, 0.9), 0.8);
  // Two such bounds: W = 6, 4.5 → the 5th value, 0.91.
  EXPECT_DOUBLE_EQ(*censored_weighted_quantile(exact, {{0.91, 1.0}, {0.95, 1.0}}, 0.75, 0.9), 0.91);
}

TEST(CensoredQuantile, BoundAtOrBelowTheUncensoredQuantileIsLeftOut)
{
  const std::vector<WeightedValue> exact = {{0.5, 1.0}, {0.6, 1.0}, {0.7, 1.0}, {0.8, 1.0}};
  // Entered at L = 0.55 with weight 4 it would lower q: W = 8, 0.75·W = 6, cumulative 1 (0.5),
  // 5 (0.55), 6 (0.6) → 0.6. Left out (0.55 is not above 0.7), q stays 0.7; so at L = 0.7.
  EXPECT_DOUBLE_EQ(*weighted_quantile({{0.5, 1.0}, {0.55, 4.0}, {0.6, 1.0}, {0.7, 1.0}, {0.8, 1.0}}, 0.75),
                   0.6);
  EXPECT_DOUBLE_EQ(*censored_weighted_quantile(exact, {{0.55, 4.0}}, 0.75, 0.9), 0.7);
  EXPECT_DOUBLE_EQ(*censored_weighted_quantile(exact, {{0.7, 1.0}}, 0.75, 0.9), 0.7);
  EXPECT_FALSE(censored_enters(0.7, 0.7));
  EXPECT_TRUE(censored_enters(0.7001, 0.7));
}

TEST(CensoredQuantile, WithoutUncensoredValuesTheFallbackIsTheThreshold)
{
  // No exact values: threshold = fallback 0.9. 0.88 is left out, 0.93 enters alone.
  EXPECT_DOUBLE_EQ(censoring_threshold({}, 0.75, 0.9), 0.9);
  EXPECT_FALSE(censored_weighted_quantile({}, {{0.88, 1.0}}, 0.75, 0.9).has_value());
  EXPECT_DOUBLE_EQ(*censored_weighted_quantile({}, {{0.88, 1.0}, {0.93, 0.6}}, 0.75, 0.9), 0.93);
}

TEST(CensoredQuantile, NonDecreasingInTheBound)
{
  const std::vector<WeightedValue> exact = {{0.3, 0.6}, {0.45, 1.0}, {0.62, 0.25}, {0.7, 0.6}};
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double bound = 0.01 * i;
    const double q = *censored_weighted_quantile(exact, {{bound, 0.6}}, 0.75, 0.9);
    EXPECT_GE(q, last) << bound;
    EXPECT_GE(q, *weighted_quantile(exact, 0.75)) << bound;
    last = q;
  }
}

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

// Monte-Carlo percentile bootstrap of the weighted p-quantile over clusters
// (each drawn cluster brings all its points), the reference the large-sample
// limit is checked against.
Interval monte_carlo_clustered(const std::vector<ClusteredValue>& sorted, std::size_t clusters, double p,
                               int resamples)
{
  std::vector<WeightedValue> sample;
  for (const ClusteredValue& v : sorted) {
    sample.push_back({v.value, v.weight});
  }
  std::vector<std::uint32_t> point_counts(sorted.size());
  const auto iv =
      bootstrap_interval(clusters, resamples, 0.9, 2024, [&](std::span<const std::uint32_t> counts) {
        for (std::size_t i = 0; i < sorted.size(); ++i) {
          point_counts[i] = counts[sorted[i].cluster];
        }
        return weighted_quantile_counted(sample, point_counts, p)->value;
      });
  return *iv;
}

TEST(LargeSampleInterval, AgreesWithMonteCarloBootstrapOfAWeightedQuantile)
{
  // 3000 distinct values in [0.3, 1) with the three confidence weights; each
  // point its own unit. The 90 % interval of the 0.75 quantile is about
  // ±1.645·√(0.75·0.25/3000)/density ≈ ±0.009 wide on each side.
  Prng rng(11);
  const std::array<double, 3> weights = {1.0, 0.6, 0.25};
  std::vector<ClusteredValue> sorted;
  for (std::size_t i = 0; i < 3000; ++i) {
    const double u = static_cast<double>(rng.next_u64() >> 11U) * 0x1.0p-53;
    sorted.push_back({0.3 + 0.7 * u, weights[i % 3], i});
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const ClusteredValue& a, const ClusteredValue& b) { return a.value < b.value; });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    sorted[i].cluster = i;
  }
  const auto limit = large_sample_quantile_interval(sorted, sorted.size(), 0.75, 0.9);
  ASSERT_TRUE(limit.has_value());
  const Interval mc = monte_carlo_clustered(sorted, sorted.size(), 0.75, 2000);
  const double width = mc.hi - mc.lo;
  EXPECT_GT(width, 0.01);
  EXPECT_LT(width, 0.03);
  // Agreement within 10 % of the interval's width at each end (the
  // Monte-Carlo error of a 5th percentile from 2000 resamples is ~2 %).
  EXPECT_NEAR(limit->lo, mc.lo, 0.1 * width);
  EXPECT_NEAR(limit->hi, mc.hi, 0.1 * width);
}

TEST(LargeSampleInterval, AgreesWithMonteCarloBootstrapOverClusters)
{
  // 800 runs of 1 to 4 points each, values shared within a run (clustered,
  // so the run-level bootstrap is wider than the point-level one would be),
  // on a grid of 200 values (ties), weighted median.
  Prng rng(29);
  std::vector<ClusteredValue> points;
  for (std::size_t run = 0; run < 800; ++run) {
    const double centre = static_cast<double>(rng.below(150)) / 100.0 - 0.5;
    const std::uint64_t k = 1 + rng.below(4);
    for (std::uint64_t j = 0; j < k; ++j) {
      const double value = centre + static_cast<double>(rng.below(50)) / 100.0;
      points.push_back({value, 0.5 + static_cast<double>(rng.below(10)), run});
    }
  }
  std::sort(points.begin(), points.end(), [](const ClusteredValue& a, const ClusteredValue& b) {
    return std::tie(a.value, a.weight, a.cluster) < std::tie(b.value, b.weight, b.cluster);
  });
  const auto limit = large_sample_quantile_interval(points, 800, 0.5, 0.9);
  ASSERT_TRUE(limit.has_value());
  const Interval mc = monte_carlo_clustered(points, 800, 0.5, 2000);
  const double width = mc.hi - mc.lo;
  EXPECT_GT(width, 0.05);
  // On a 0.01 grid the ends are grid values: within 10 % of the width or one step.
  EXPECT_NEAR(limit->lo, mc.lo, std::max(0.1 * width, 0.0100001));
  EXPECT_NEAR(limit->hi, mc.hi, std::max(0.1 * width, 0.0100001));
  // Ignoring the clusters (every point its own unit) narrows the interval.
  std::vector<ClusteredValue> unclustered = points;
  for (std::size_t i = 0; i < unclustered.size(); ++i) {
    unclustered[i].cluster = i;
  }
  const auto narrow = large_sample_quantile_interval(unclustered, unclustered.size(), 0.5, 0.9);
  EXPECT_LT(narrow->hi - narrow->lo, limit->hi - limit->lo);
}

TEST(LargeSampleInterval, DegenerateSamples)
{
  EXPECT_FALSE(large_sample_quantile_interval({}, 1, 0.75, 0.9).has_value());
  const std::vector<ClusteredValue> zero = {{0.5, 0.0, 0}, {0.6, 0.0, 1}};
  EXPECT_FALSE(large_sample_quantile_interval(zero, 2, 0.75, 0.9).has_value());
  EXPECT_FALSE(large_sample_quantile_interval(zero, 0, 0.75, 0.9).has_value());
  // One value: every resample's quantile is that value.
  const std::vector<ClusteredValue> same = {{0.7, 1.0, 0}, {0.7, 0.6, 1}, {0.7, 0.25, 2}};
  const auto iv = large_sample_quantile_interval(same, 3, 0.75, 0.9);
  ASSERT_TRUE(iv.has_value());
  EXPECT_EQ(iv->lo, 0.7);
  EXPECT_EQ(iv->hi, 0.7);
  // A weightless top value is never an end; p = 1 ends at the largest weighted value.
  const std::vector<ClusteredValue> tail = {{0.1, 1.0, 0}, {0.2, 1.0, 1}, {0.9, 0.0, 2}};
  const auto top = large_sample_quantile_interval(tail, 3, 1.0, 0.9);
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->hi, 0.2);
}

} // namespace
} // namespace rfdb::calibrate
