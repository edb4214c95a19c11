// The e2e transfer per op_class × regime: median ratio, shrink, cap, bootstrap (see e2e_transfer.hpp).
#include "calibrate/e2e_transfer.hpp"

#include "calibrate/stats.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <tuple>

namespace rfdb::calibrate {

namespace {

// The lower c-weighted median of x over the points whose run occurs
// counts[run] times (all once when counts is empty). `points` are sorted by
// x, so ordering each run of equal x by weight gives sort_canonical's order
// without a full sort per bootstrap resample; `sample` is a reused buffer.
std::optional<double> lower_weighted_median(const std::vector<TransferPoint>& points,
                                            std::span<const std::uint32_t> run_counts,
                                            std::vector<WeightedValue>& sample)
{
  sample.clear();
  for (const TransferPoint& pt : points) {
    const double times = run_counts.empty() ? 1.0 : run_counts[pt.run];
    if (times > 0.0) {
      sample.push_back({pt.x, pt.c * times});
    }
  }
  for (std::size_t i = 0; i < sample.size();) {
    std::size_t j = i + 1;
    while (j < sample.size() && sample[j].value == sample[i].value) {
      ++j;
    }
    if (j - i > 1) {
      std::sort(sample.begin() + static_cast<std::ptrdiff_t>(i),
                sample.begin() + static_cast<std::ptrdiff_t>(j),
                [](const WeightedValue& a, const WeightedValue& b) { return a.weight < b.weight; });
    }
    i = j;
  }
  const auto q = weighted_quantile_counted(sample, {}, 0.5);
  return q ? std::optional<double>(q->value) : std::nullopt;
}

// (k_t + n·m) / (k_t + n): m shrunk toward 1 with strength k_t over n runs.
double shrunk_ratio(double m, int n, double k_t)
{
  return (k_t + n * m) / (k_t + n);
}

// The exported ratio: shrunk_ratio, capped at 1 (the raw Amdahl ceiling)
// below domain::k_transfer_breadth_runs runs. Increasing in m, like shrunk_ratio.
double exported_ratio(double m, int n, double k_t)
{
  const double ratio = shrunk_ratio(m, n, k_t);
  return n < domain::k_transfer_breadth_runs ? std::min(ratio, 1.0) : ratio;
}

// True when an exclusion keeps an attempt out of the e2e transfer too: the
// outcome checks that leave no valid isolated speedup to take a ceiling
// from (outside the date window, unknown class, parity failed, no valid s).
// The later reasons (below the noise band, the prediction's checks, e > 1.05,
// zero weight) do not: the transfer needs only pct_gpu_time, s and d. Named
// one by one, so reordering ExclusionReason changes nothing here.
bool bars_transfer(ExclusionReason reason)
{
  switch (reason) {
  case ExclusionReason::bad_run_date:
  case ExclusionReason::before_since:
  case ExclusionReason::after_as_of:
  case ExclusionReason::unknown_class:
  case ExclusionReason::parity_fail:
  case ExclusionReason::no_speedup:
    return true;
  case ExclusionReason::below_noise:
  case ExclusionReason::suspect:
  case ExclusionReason::dispatch_bound:
  case ExclusionReason::unknown_headroom:
  case ExclusionReason::bad_roofline_pct:
  case ExclusionReason::bad_post_efficiency:
  case ExclusionReason::unknown_confidence:
  case ExclusionReason::biased_profiler: // the transfer reads pct_gpu_time, s and d, not the roofline
  case ExclusionReason::infeasible:
  case ExclusionReason::zero_weight:
  case ExclusionReason::before_shift: // a shift in e says nothing about the transfer
    return false;
  }
  return false;
}

} // namespace

std::optional<TransferPoint> transfer_point(const Observation& a, const AttemptEvaluation& eval)
{
  const auto& ex = eval.excluded;
  if (ex && bars_transfer(*ex)) {
    return std::nullopt; // outside the window, unknown class, parity failed or no valid s
  }
  if (eval.censored || a.censored != domain::CensorReason::none) {
    return std::nullopt; // a head never tried: no speedup, no e2e delta
  }
  if (parity_failed(a) || domain::is(a.reject_reason, domain::RejectReason::no_engagement)) {
    return std::nullopt;
  }
  const double s = *a.isolated_speedup;
  if (s <= 1.0 || !a.e2e_delta_pct || !std::isfinite(*a.e2e_delta_pct) || !a.prediction.pct_gpu_time ||
      !std::isfinite(*a.prediction.pct_gpu_time) || *a.prediction.pct_gpu_time <= 0.0) {
    return std::nullopt;
  }
  const double c = domain::amdahl_gain_pct(*a.prediction.pct_gpu_time, s);
  return TransferPoint{std::clamp(*a.e2e_delta_pct / c, -1.0, 2.0), c, 0};
}

void TransferGroups::add(const Observation& a, std::string_view run_id, std::uint32_t run_key,
                         const AttemptEvaluation& eval, const PriorsParams& p, double decay)
{
  const auto point = transfer_point(a, eval);
  if (!point) {
    return;
  }
  const double s = *a.isolated_speedup;
  const double c = point->c;
  const double d = *a.e2e_delta_pct;
  // Keyed by the class's report rank, so the rows come out in report order.
  Group& g = m_groups[{seeded_rank(a.op_class), std::string(group_name(a.regime))}];
  const auto [run, added] = g.run_index.try_emplace(run_key, g.runs.size());
  if (added) {
    g.runs.push_back(run_id);
  }
  g.points.push_back({point->x, c * decay, run->second});
  g.sign_flips +=
      (domain::is_isolated_win(s, p.iso_noise) && domain::is_e2e_loss(d, p.e2e_noise_pct)) ? 1 : 0;
  g.beyond_ceiling += d > c ? 1 : 0;
}

std::vector<TransferRow> TransferGroups::rows(const PriorsParams& p)
{
  std::vector<TransferRow> rows;
  std::vector<WeightedValue> buffer;
  for (auto& entry : m_groups) {
    auto& g = entry.second; // a reference, not a structured binding: the lambdas below capture it
    // Runs in name order, so the bootstrap does not depend on input order.
    std::vector<std::size_t> order(g.runs.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return g.runs[a] < g.runs[b]; });
    std::vector<std::size_t> rank(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      rank[order[i]] = i;
    }
    for (TransferPoint& pt : g.points) {
      pt.run = rank[pt.run];
    }
    std::sort(g.points.begin(), g.points.end(), [](const TransferPoint& a, const TransferPoint& b) {
      return std::tie(a.x, a.c, a.run) < std::tie(b.x, b.c, b.run);
    });
    TransferRow row;
    row.op_class = std::string(domain::k_seeded_op_classes[entry.first.first]);
    row.regime = entry.first.second;
    row.n = static_cast<int>(g.runs.size());
    row.attempts = static_cast<int>(g.points.size());
    row.sign_flips = g.sign_flips;
    row.beyond_ceiling = g.beyond_ceiling;
    const auto m = lower_weighted_median(g.points, {}, buffer);
    if (row.n >= 2 && m) {
      row.statistic = *m;
      row.median_ratio = exported_ratio(*m, row.n, p.transfer_strength);
      row.capped = row.median_ratio < shrunk_ratio(*m, row.n, p.transfer_strength);
      row.source = TransferSource::calibrated;
      // Where the class's true ratio lies: the bootstrap over runs of m,
      // widened to take in median_ratio (shrunk toward 1, or capped).
      std::optional<Interval> im;
      if (p.bootstrap_resamples > 0 && g.runs.size() >= k_large_sample_units) {
        // The bootstrap over runs in its large-sample limit.
        std::vector<ClusteredValue> points(g.points.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
          points[i] = {g.points[i].x, g.points[i].c, g.points[i].run};
        }
        im = large_sample_quantile_interval(points, g.runs.size(), 0.5, p.interval);
        row.interval_method = IntervalMethod::large_sample;
      } else {
        im = bootstrap_interval(g.runs.size(), p.bootstrap_resamples, p.interval,
                                derive_seed(p.seed, "e2e:" + row.op_class + ":" + row.regime),
                                [&](std::span<const std::uint32_t> counts) {
                                  const auto bm = lower_weighted_median(g.points, counts, buffer);
                                  return bm ? *bm : *m;
                                });
      }
      if (im) {
        row.interval = Interval{std::min(im->lo, row.median_ratio), std::max(im->hi, row.median_ratio)};
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace rfdb::calibrate
