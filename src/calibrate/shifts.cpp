// Change points in a key's run series (calibrate/shifts.hpp, docs/estimator.md "Shifts").
#include "calibrate/shifts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace rfdb::calibrate {

namespace {

// Midranks (1-based) of `values`.
std::vector<double> midranks(std::span<const double> values)
{
  const std::size_t m = values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(m);
  for (std::size_t i = 0; i < m;) {
    std::size_t j = i;
    while (j + 1 < m && values[order[j + 1]] == values[order[i]]) {
      ++j;
    }
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) {
      ranks[order[k]] = rank;
    }
    i = j + 1;
  }
  return ranks;
}

// The centre n1·(m+1)/2 and 1/sd of the rank sum of the first n1 = t runs
// of m, for t in [lo, hi]: the same for every permutation, computed once.
struct RankSumScale {
  std::vector<double> centre;
  std::vector<double> inv_sd;
};

RankSumScale rank_sum_scale(std::size_t m, std::size_t hi)
{
  RankSumScale out;
  out.centre.resize(hi + 1);
  out.inv_sd.resize(hi + 1);
  const auto md = static_cast<double>(m);
  for (std::size_t t = 1; t <= hi; ++t) {
    const auto n1 = static_cast<double>(t);
    out.centre[t] = n1 * (md + 1.0) / 2.0;
    out.inv_sd[t] = 1.0 / std::sqrt(n1 * (md - n1) * (md + 1.0) / 12.0);
  }
  return out;
}

// max |z_t| over t in [lo, hi] of the ranks in their current order.
double max_abs_z(std::span<const double> ranks, std::size_t lo, std::size_t hi, const RankSumScale& scale)
{
  double best = 0.0;
  double rank_sum = 0.0;
  for (std::size_t t = 1; t <= hi; ++t) {
    rank_sum += ranks[t - 1];
    if (t < lo) {
      continue;
    }
    best = std::max(best, std::fabs(rank_sum - scale.centre[t]) * scale.inv_sd[t]);
  }
  return best;
}

// The weighted median of runs [begin, end) and its bootstrap interval over runs.
struct WindowMedian {
  double median = 0.0;
  Interval interval;
};

WindowMedian window_median(std::span<const RunPoint> runs, const ShiftParams& p, std::uint64_t seed)
{
  std::vector<WeightedValue> sample;
  for (const RunPoint& r : runs) {
    sample.push_back({r.value, r.weight});
  }
  sort_canonical(sample);
  WindowMedian out;
  out.median = weighted_quantile_counted(sample, {}, 0.5).value_or(CountedQuantile{}).value;
  const auto interval = bootstrap_interval(sample.size(), p.bootstrap_resamples, p.interval, seed,
                                           [&](std::span<const std::uint32_t> counts) {
                                             const auto q = weighted_quantile_counted(sample, counts, 0.5);
                                             return q ? q->value : out.median;
                                           });
  out.interval = interval.value_or(Interval{out.median, out.median});
  return out;
}

// The best split of series[begin, end) and whether it is a shift.
std::optional<Step> test_segment(std::span<const RunPoint> series, std::size_t begin, std::size_t end,
                                 const ShiftParams& p, std::string_view label)
{
  const auto min_runs = static_cast<std::size_t>(p.min_runs);
  if (end - begin < 2 * min_runs) {
    return std::nullopt;
  }
  std::vector<double> values;
  for (std::size_t i = begin; i < end; ++i) {
    values.push_back(series[i].value);
  }
  const std::vector<double> z = mann_whitney_z(values);
  const std::size_t m = values.size();
  std::size_t split = min_runs;
  for (std::size_t t = min_runs; t <= m - min_runs; ++t) {
    if (std::fabs(z[t]) > std::fabs(z[split]) + 1e-12) {
      split = t;
    }
  }
  Step step;
  step.begin = begin;
  step.split = begin + split;
  step.end = end;
  step.statistic = std::fabs(z[split]);
  // Permutation test of the maximum (the series exchangeable under no change).
  const std::string stream = fmt::format("{}:{}:{}", label, begin, end);
  Prng rng(derive_seed(p.seed, stream));
  std::vector<double> ranks = midranks(values);
  const RankSumScale scale = rank_sum_scale(m, m - min_runs);
  int at_least = 0;
  for (int k = 0; k < p.permutations; ++k) {
    for (std::size_t i = m - 1; i > 0; --i) {
      std::swap(ranks[i], ranks[rng.below(i + 1)]);
    }
    if (max_abs_z(ranks, min_runs, m - min_runs, scale) >= step.statistic - 1e-9) {
      ++at_least;
      // The p-value can only grow: once it is above alpha the segment is not
      // a shift, and its p-value is never reported, so stop. A segment that
      // stays at or below alpha runs every permutation (its p-value exact).
      if ((1.0 + at_least) / (1.0 + p.permutations) > p.alpha) {
        return std::nullopt;
      }
    }
  }
  step.p_value = (1.0 + at_least) / (1.0 + p.permutations);
  const auto before = window_median(series.subspan(begin, split), p, derive_seed(p.seed, stream + ":before"));
  const auto after =
      window_median(series.subspan(begin + split, m - split), p, derive_seed(p.seed, stream + ":after"));
  step.before_median = before.median;
  step.after_median = after.median;
  step.before_interval = before.interval;
  step.after_interval = after.interval;
  const auto outside = [](double v, const Interval& i) { return v < i.lo || v > i.hi; };
  if (step.p_value <= p.alpha && outside(after.median, before.interval) &&
      outside(before.median, after.interval)) {
    return step;
  }
  return std::nullopt;
}

void segment(std::span<const RunPoint> series, std::size_t begin, std::size_t end, const ShiftParams& p,
             std::string_view label, std::vector<Step>& out)
{
  const auto step = test_segment(series, begin, end, p, label);
  if (!step) {
    return;
  }
  out.push_back(*step);
  segment(series, begin, step->split, p, label, out);
  segment(series, step->split, end, p, label, out);
}

} // namespace

std::vector<double> mann_whitney_z(std::span<const double> values)
{
  const std::size_t m = values.size();
  if (m < 2) {
    return {};
  }
  const std::vector<double> ranks = midranks(values);
  std::vector<double> z(m, 0.0);
  double rank_sum = 0.0;
  const auto mm = static_cast<double>(m);
  for (std::size_t t = 1; t < m; ++t) {
    rank_sum += ranks[t - 1];
    const auto n1 = static_cast<double>(t);
    z[t] = (rank_sum - n1 * (mm + 1.0) / 2.0) / std::sqrt(n1 * (mm - n1) * (mm + 1.0) / 12.0);
  }
  return z;
}

std::vector<Step> find_steps(std::span<const RunPoint> series, const ShiftParams& params,
                             std::string_view label)
{
  std::vector<Step> out;
  if (params.min_runs < 1 || params.permutations < 1 || params.bootstrap_resamples < 1) {
    return out;
  }
  segment(series, 0, series.size(), params, label, out);
  std::sort(out.begin(), out.end(), [](const Step& a, const Step& b) { return a.split < b.split; });
  // Each step's windows run to its neighbours.
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].begin = i == 0 ? 0 : out[i - 1].split;
    out[i].end = i + 1 == out.size() ? series.size() : out[i + 1].split;
  }
  return out;
}

std::optional<std::string> stack_change(const RunStack& before, const RunStack& after)
{
  if (before.backend.empty() || after.backend.empty()) {
    return std::nullopt;
  }
  const auto side = [](const RunStack& s) {
    return s.backend_version.empty() ? s.backend : s.backend + " " + s.backend_version;
  };
  if (before.backend != after.backend) {
    return side(before) + " → " + side(after);
  }
  if (before.backend_version.empty() || after.backend_version.empty() ||
      before.backend_version == after.backend_version) {
    return std::nullopt;
  }
  return fmt::format("{} {} → {}", before.backend, before.backend_version, after.backend_version);
}

std::string_view to_string(ShiftMeasure measure)
{
  return measure == ShiftMeasure::e2e_transfer ? "e2e_transfer" : "e";
}

std::string shift_key(const Shift& shift)
{
  if (shift.measure == ShiftMeasure::e2e_transfer) {
    return shift.op_class + ":" + shift.regime.value_or("unknown");
  }
  return shift.gfx ? shift.op_class + ":" + *shift.gfx : shift.op_class;
}

double shift_step(const Shift& shift)
{
  return shift.after_median - shift.before_median;
}

bool before_shift(const Shift& shift, std::string_view run_date, std::string_view run_id)
{
  const std::string_view after_date = shift.after_date;
  const std::string_view after_run = shift.after_run;
  return std::tie(run_date, run_id) < std::tie(after_date, after_run);
}

std::string describe_shift(const Shift& shift)
{
  std::string out =
      fmt::format("{} {} {:.4f} → {:.4f} ({:+.4f}) between run {} ({}) and run {} ({})", shift_key(shift),
                  shift.measure == ShiftMeasure::e2e_transfer ? "e2e transfer" : "e", shift.before_median,
                  shift.after_median, shift_step(shift), shift.before_run, shift.before_date, shift.after_run,
                  shift.after_date);
  if (!shift.attribution.empty()) {
    out += ": " + shift.attribution;
  }
  return out;
}

} // namespace rfdb::calibrate
