// Robust statistics for the estimator: weighted quantiles, stable sums and the bootstrap (see stats.hpp).
#include "calibrate/stats.hpp"

#include <algorithm>
#include <cmath>

namespace rfdb::calibrate {

namespace {

// Relative slack on the cumulative-weight test: with six weights of 0.6 the
// float sum of three is 1.7999999999999998 and half the total is 1.8, yet the
// median is exactly reached at the third value.
constexpr double k_cumulative_slack = 1e-9;

} // namespace

void sort_canonical(std::vector<WeightedValue>& sample)
{
  std::sort(sample.begin(), sample.end(), [](const WeightedValue& a, const WeightedValue& b) {
    if (a.value != b.value) {
      return a.value < b.value;
    }
    return a.weight < b.weight;
  });
}

double stable_sum(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  double total = 0.0;
  for (const double v : values) {
    total += v;
  }
  return total;
}

std::optional<CountedQuantile> weighted_quantile_counted(std::span<const WeightedValue> sorted,
                                                         std::span<const std::uint32_t> counts, double p)
{
  // Hot loop of the bootstrap: one pass for the total, one up to the target.
  const bool counted = !counts.empty();
  double total = 0.0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    total += counted ? sorted[i].weight * static_cast<double>(counts[i]) : sorted[i].weight;
  }
  if (!(total > 0.0)) {
    return std::nullopt;
  }
  const double target = p * total - k_cumulative_slack * total;
  double cumulative = 0.0;
  std::size_t last_weighted = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double w = counted ? sorted[i].weight * static_cast<double>(counts[i]) : sorted[i].weight;
    cumulative += w;
    // `w > 0` keeps the answer a value actually present, with weight, in the
    // (re)sample; it is tested only once the target is reached (no
    // unpredictable branch per element in the bootstrap).
    if (cumulative >= target && w > 0.0) {
      return CountedQuantile{sorted[i].value, total};
    }
    last_weighted = w > 0.0 ? i : last_weighted;
  }
  // Only reachable through rounding when p is 1: the largest weighted value.
  return CountedQuantile{sorted[last_weighted].value, total};
}

std::optional<double> weighted_quantile(std::vector<WeightedValue> sample, double p)
{
  sort_canonical(sample);
  auto q = weighted_quantile_counted(sample, {}, p);
  if (!q) {
    return std::nullopt;
  }
  return q->value;
}

std::optional<double> weighted_median(std::vector<WeightedValue> sample)
{
  return weighted_quantile(std::move(sample), 0.5);
}

double censoring_threshold(std::vector<WeightedValue> exact, double p, double fallback)
{
  return weighted_quantile(std::move(exact), p).value_or(fallback);
}

std::optional<double> censored_weighted_quantile(const std::vector<WeightedValue>& exact,
                                                 const std::vector<WeightedValue>& censored, double p,
                                                 double fallback)
{
  const double threshold = censoring_threshold(exact, p, fallback);
  std::vector<WeightedValue> sample = exact;
  for (const WeightedValue& c : censored) {
    if (censored_enters(c.value, threshold)) {
      sample.push_back(c);
    }
  }
  return weighted_quantile(std::move(sample), p);
}

std::optional<double> percentile_sorted(std::span<const double> sorted, double p)
{
  if (sorted.empty()) {
    return std::nullopt;
  }
  const double h = static_cast<double>(sorted.size() - 1) * std::clamp(p, 0.0, 1.0);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) {
    return sorted.back();
  }
  const double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

std::uint64_t derive_seed(std::uint64_t seed, std::string_view label)
{
  // FNV-1a over the label, folded into the seed and scrambled once.
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : label) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001B3ULL;
  }
  Prng mix(seed ^ h);
  return mix.next_u64();
}

std::optional<Interval> bootstrap_interval(std::size_t n, int resamples, double level, std::uint64_t seed,
                                           const ResampleStatistic& statistic)
{
  if (n == 0 || resamples < 1) {
    return std::nullopt;
  }
  Prng rng(seed);
  std::vector<std::uint32_t> counts(n);
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    std::fill(counts.begin(), counts.end(), 0U);
    for (std::size_t i = 0; i < n; ++i) {
      ++counts[static_cast<std::size_t>(rng.below(n))];
    }
    values.push_back(statistic(counts));
  }
  std::sort(values.begin(), values.end());
  const double tail = (1.0 - level) / 2.0;
  return Interval{*percentile_sorted(values, tail), *percentile_sorted(values, 1.0 - tail)};
}

std::optional<Interval> large_sample_quantile_interval(std::span<const ClusteredValue> sorted,
                                                       std::size_t clusters, double p, double level)
{
  if (sorted.empty() || clusters == 0) {
    return std::nullopt;
  }
  std::vector<double> unit_total(clusters, 0.0); // C_u
  double total = 0.0;
  for (const ClusteredValue& v : sorted) {
    unit_total[v.cluster] += v.weight;
    total += v.weight;
  }
  if (!(total > 0.0)) {
    return std::nullopt;
  }
  double sum_cc = 0.0; // Σ C_u²
  for (const double c : unit_total) {
    sum_cc += c * c;
  }
  // Swept sums: A_u, Σ A_u², Σ A_u·C_u and Σ A_u (the cumulative weight).
  std::vector<double> unit_below(clusters, 0.0);
  double sum_aa = 0.0;
  double sum_ac = 0.0;
  double cumulative = 0.0;
  const double tail = (1.0 - level) / 2.0;
  const double slack = k_cumulative_slack;
  std::optional<double> lo;
  std::optional<double> hi;
  double last_weighted = sorted.front().value;
  for (std::size_t i = 0; i < sorted.size();) {
    const double x = sorted[i].value;
    double group_weight = 0.0;
    for (; i < sorted.size() && sorted[i].value == x; ++i) {
      const ClusteredValue& v = sorted[i];
      double& a = unit_below[v.cluster];
      sum_aa += (2.0 * a + v.weight) * v.weight;
      sum_ac += v.weight * unit_total[v.cluster];
      a += v.weight;
      cumulative += v.weight;
      group_weight += v.weight;
    }
    if (!(group_weight > 0.0)) {
      continue; // a value without weight is never a resample's quantile
    }
    last_weighted = x;
    const double f = cumulative / total;
    const double variance = std::max(0.0, sum_aa - 2.0 * f * sum_ac + f * f * sum_cc) / (total * total);
    const double sd = std::sqrt(variance);
    // P(F*(x) ≥ p − slack), the rule weighted_quantile_counted applies.
    const double margin = f - (p - slack);
    double prob = 0.0;
    if (sd > 0.0) {
      prob = 0.5 * std::erfc(-margin / (sd * std::sqrt(2.0)));
    } else {
      prob = margin >= 0.0 ? 1.0 : 0.0;
    }
    if (!lo && prob >= tail) {
      lo = x;
    }
    if (!hi && prob >= 1.0 - tail) {
      hi = x;
      break;
    }
  }
  // Rounding can leave F just short of p at the top: the largest weighted value.
  return Interval{lo.value_or(last_weighted), hi.value_or(last_weighted)};
}

} // namespace rfdb::calibrate
