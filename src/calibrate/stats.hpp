// Small, deterministic statistics for the calibration engine (docs/estimator.md):
// weighted quantile/median, a type-7 percentile, a portable seeded PRNG and a
// percentile bootstrap.
//
// Everything here is reproducible bit for bit across compilers and standard
// libraries: samples are sorted into a canonical order before any sum, and the
// PRNG is SplitMix64 with indices derived from raw 64-bit draws by rejection
// (std::uniform_*_distribution is implementation-defined, so it is not used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace rfdb::calibrate {

// One sample point with a non-negative weight.
struct WeightedValue {
  double value = 0.0;
  double weight = 0.0;
};

// Closed interval [lo, hi] of a statistic.
struct Interval {
  double lo = 0.0;
  double hi = 0.0;
};

// Sort into the canonical order (value, then weight, ascending). Every
// estimator below works on this order, so a shuffled input gives the same
// floating-point result.
void sort_canonical(std::vector<WeightedValue>& sample);

// Sum in ascending order, so the result depends only on the multiset of
// values (not on the order they arrive in or on what they are attached to).
double stable_sum(std::vector<double> values);

// Weighted p-quantile, p in (0, 1]: the smallest value v with
// Σ_{value_i ≤ v} w_i ≥ p·W (W = Σ w_i), ties at v all counted. A relative
// slack of 1e-9·W absorbs rounding in the sums. nullopt when the sample is
// empty or W ≤ 0. The input need not be sorted.
std::optional<double> weighted_quantile(std::vector<WeightedValue> sample, double p);

// Right-censored observations (docs/estimator.md, "Censored observations"):
// each is known only to be at least its `value` (a lower bound L). The rule
// is one deterministic pass: the threshold is the weighted p-quantile of the
// exact (uncensored) sample, or `fallback` (the value the set is shrunk
// toward) when that sample is empty or weighs nothing; a censored value
// enters at its bound L when L > threshold, and is left out otherwise (it
// cannot raise the quantile, and its true value may lie anywhere above L).
// Entering values all lie above the exact quantile, so the result is never
// below it, and it is non-decreasing in every L.
double censoring_threshold(std::vector<WeightedValue> exact, double p, double fallback);
// True when a censored bound enters the quantile (bound > threshold).
inline bool censored_enters(double bound, double threshold)
{
  return bound > threshold;
}
// The weighted p-quantile of `exact` plus the censored bounds that enter
// (censored_enters against censoring_threshold). nullopt when nothing
// enters and `exact` is empty.
std::optional<double> censored_weighted_quantile(const std::vector<WeightedValue>& exact,
                                                 const std::vector<WeightedValue>& censored, double p,
                                                 double fallback);

// Weighted median = weighted_quantile(sample, 0.5): the lower weighted median.
std::optional<double> weighted_median(std::vector<WeightedValue> sample);

// Weighted p-quantile of a canonically sorted sample in which element i occurs
// counts[i] times (a bootstrap resample); counts.size() == sorted.size().
// Also returns the resample's total weight. nullopt when the total is ≤ 0.
struct CountedQuantile {
  double value = 0.0;
  double total_weight = 0.0;
};
std::optional<CountedQuantile> weighted_quantile_counted(std::span<const WeightedValue> sorted,
                                                         std::span<const std::uint32_t> counts, double p);

// Percentile of an ascending-sorted sample by linear interpolation between
// order statistics (Hyndman–Fan type 7, the R/NumPy default); p in [0, 1].
// nullopt when empty.
std::optional<double> percentile_sorted(std::span<const double> sorted, double p);

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit generator whose output is
// fully specified by its seed, on every platform.
class Prng {
public:
  explicit Prng(std::uint64_t seed) : m_state(seed) {}

  // Next raw 64-bit draw.
  std::uint64_t next_u64();
  // Uniform integer in [0, n) without modulo bias: Lemire's multiply-shift
  // with rejection (ACM TOMACS 2019); n > 0.
  std::uint64_t below(std::uint64_t n);

private:
  std::uint64_t m_state;
};

// Seed for one named stream ("moe:gfx950"), so each key's bootstrap depends
// only on its own observations and not on which other keys exist.
std::uint64_t derive_seed(std::uint64_t seed, std::string_view label);

// Statistic of a bootstrap resample given as per-element counts (see
// weighted_quantile_counted).
using ResampleStatistic = std::function<double(std::span<const std::uint32_t> counts)>;

// Percentile bootstrap: `resamples` times draw n indices with replacement
// from [0, n), call `statistic` on the counts, and return the central
// `level` interval (level 0.90 → 5th and 95th percentiles, type 7).
// nullopt when n == 0 or resamples < 1.
std::optional<Interval> bootstrap_interval(std::size_t n, int resamples, double level, std::uint64_t seed,
                                           const ResampleStatistic& statistic);

// Below this many resampled units (observations of a key, runs of an e2e
// transfer) the intervals come from bootstrap_interval's Monte-Carlo
// resamples; from it on, from large_sample_quantile_interval (the same
// percentile bootstrap's large-sample limit, in O(n) after the sort instead
// of O(resamples × n)). Small samples, where the normal limit is poor, keep
// their Monte-Carlo intervals bit for bit.
inline constexpr std::size_t k_large_sample_units = 500;

// One point of a clustered sample for large_sample_quantile_interval.
struct ClusteredValue {
  double value = 0.0;
  double weight = 0.0;     // ≥ 0
  std::size_t cluster = 0; // resampled unit, in [0, clusters)
};

// The large-sample limit of the percentile bootstrap interval of the
// weighted p-quantile (weighted_quantile_counted's rule) when `clusters`
// units are resampled with replacement and every point of a drawn unit comes
// with it (each point its own unit: the ordinary bootstrap of the sample).
//
// For a candidate value x let F(x) = Σ_{value ≤ x} w / Σ w. A resample's
// quantile q* is ≤ x exactly when its F*(x) ≥ p, and to first order (delta
// method on the ratio of two resampled sums) F*(x) is normal with mean F(x)
// and variance σ²(x) = Σ_u (A_u(x) − F(x)·C_u)² / (Σ w)², with A_u(x) unit u's
// weight at values ≤ x and C_u its total weight. So P(q* ≤ x) ≈
// Φ((F(x) − p) / σ(x)) (a step at F(x) = p when σ(x) = 0), and each end of the
// central `level` interval is the smallest value present (with weight) at
// which that probability reaches (1 − level)/2, resp. (1 + level)/2: the
// percentiles of the bootstrap distribution that bootstrap_interval samples
// 1000 times. No randomness; O(n) with the sums updated as x sweeps the
// sorted points.
//
// `sorted` must be in ascending value order (ties in any order). nullopt
// when it is empty, clusters == 0 or the total weight is ≤ 0.
std::optional<Interval> large_sample_quantile_interval(std::span<const ClusteredValue> sorted,
                                                       std::size_t clusters, double p, double level);

// Inline: the bootstrap draws millions of indices.

inline std::uint64_t Prng::next_u64()
{
  m_state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = m_state;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

namespace detail {

// High 64 bits of a·b; the low 64 bits go to `lo`. Same result on every
// platform; the 128-bit builtin is only a faster route to it.
inline std::uint64_t mul_hi_lo(std::uint64_t a, std::uint64_t b, std::uint64_t& lo)
{
#if defined(__SIZEOF_INT128__)
  __extension__ using U128 = unsigned __int128;
  const U128 product = static_cast<U128>(a) * b;
  lo = static_cast<std::uint64_t>(product);
  return static_cast<std::uint64_t>(product >> 64U);
#else
  const std::uint64_t a_lo = a & 0xFFFFFFFFULL;
  const std::uint64_t a_hi = a >> 32U;
  const std::uint64_t b_lo = b & 0xFFFFFFFFULL;
  const std::uint64_t b_hi = b >> 32U;
  const std::uint64_t ll = a_lo * b_lo;
  const std::uint64_t lh = a_lo * b_hi;
  const std::uint64_t hl = a_hi * b_lo;
  const std::uint64_t mid = (ll >> 32U) + (lh & 0xFFFFFFFFULL) + (hl & 0xFFFFFFFFULL);
  lo = (mid << 32U) | (ll & 0xFFFFFFFFULL);
  return a_hi * b_hi + (lh >> 32U) + (hl >> 32U) + (mid >> 32U);
#endif
}

} // namespace detail

inline std::uint64_t Prng::below(std::uint64_t n)
{
  // The high word of x·n is uniform on [0, n) once draws whose low word falls
  // under 2^64 mod n are rejected; the modulo is computed only when needed.
  std::uint64_t lo = 0;
  std::uint64_t hi = detail::mul_hi_lo(next_u64(), n, lo);
  if (lo < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (lo < threshold) {
      hi = detail::mul_hi_lo(next_u64(), n, lo);
    }
  }
  return hi;
}

} // namespace rfdb::calibrate
