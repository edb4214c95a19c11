// The target_eff estimator (docs/estimator.md): judge, weight, shrink, bootstrap; it feeds the e2e
// transfer (e2e_transfer.cpp) in the same pass.
#include "calibrate/priors.hpp"

#include "calibrate/e2e_transfer.hpp"
#include "calibrate/observation_table.hpp"
#include "domain/as_of.hpp"
#include "util/time.hpp"

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace rfdb::calibrate {

std::string_view group_name(std::string_view value)
{
  return value.empty() ? std::string_view("unknown") : value;
}

std::size_t seeded_rank(std::string_view op_class)
{
  const auto& classes = domain::k_seeded_op_classes;
  return static_cast<std::size_t>(std::find(classes.begin(), classes.end(), op_class) - classes.begin());
}

namespace {

// Floor of the (0, 1] clamp, so a printed 4-dp value is never 0.
constexpr double k_min_target_eff = 1e-4;

// Dates resolved once per computation.
struct DateWindow {
  std::optional<std::chrono::sys_days> as_of;
  std::optional<std::chrono::sys_days> since;
};

std::optional<double> confidence_weight(std::string_view confidence, const ConfidenceWeights& w)
{
  const auto c = domain::parse<domain::Confidence>(confidence);
  if (!c) {
    return std::nullopt;
  }
  switch (*c) {
  case domain::Confidence::high:
    return w.high;
  case domain::Confidence::medium:
    return w.medium;
  case domain::Confidence::low:
    return w.low;
  }
  return std::nullopt;
}

// The checks that need no prediction: dates, class, speedup, noise band.
std::optional<ExclusionReason> outcome_exclusion(const Observation& a, const PriorsParams& p,
                                                 const DateWindow& window)
{
  const auto day = util::parse_iso_date(a.run_date);
  if (!day) {
    return ExclusionReason::bad_run_date;
  }
  if (window.since && *day < *window.since) {
    return ExclusionReason::before_since;
  }
  if (window.as_of && *day > *window.as_of) {
    return ExclusionReason::after_as_of;
  }
  if (!domain::seed_target_eff(a.op_class)) {
    return ExclusionReason::unknown_class;
  }
  if (a.censored != domain::CensorReason::none) {
    return std::nullopt; // no attempt: no parity, no speedup; its verdict is judged below
  }
  if (!p.include_parity_fail && parity_failed(a)) {
    return ExclusionReason::parity_fail;
  }
  const auto& s = a.isolated_speedup;
  if (!s || !std::isfinite(*s) || *s <= 0.0) {
    return ExclusionReason::no_speedup;
  }
  if (!domain::is_isolated_win(*s, p.iso_noise)) {
    return ExclusionReason::below_noise;
  }
  return std::nullopt;
}

// The checks on the prediction's verdict.
std::optional<ExclusionReason> verdict_exclusion(const Observation& a)
{
  if (a.prediction.suspect.value_or(false)) {
    return ExclusionReason::suspect;
  }
  if (a.prediction.dispatch_bound) {
    return ExclusionReason::dispatch_bound;
  }
  if (!domain::is_banded(a.prediction.headroom_class.value_or(""))) {
    return ExclusionReason::unknown_headroom;
  }
  const auto& r = a.prediction.roofline_pct;
  if (!r || !std::isfinite(*r) || *r <= 0.0 || *r > 1.0) {
    return ExclusionReason::bad_roofline_pct;
  }
  if (a.post_efficiency && (!std::isfinite(*a.post_efficiency) || *a.post_efficiency <= 0.0)) {
    return ExclusionReason::bad_post_efficiency;
  }
  return std::nullopt;
}

// 0.5^(age / half_life), age in days from the run to as_of; 1 without decay.
double decay_of(const Observation& a, const PriorsParams& p, const DateWindow& window)
{
  if (!p.half_life_days || !window.as_of) {
    return 1.0;
  }
  const auto day = util::parse_iso_date(a.run_date);
  if (!day) {
    return 1.0;
  }
  const auto age = static_cast<double>((*window.as_of - *day).count());
  return std::pow(0.5, age / *p.half_life_days);
}

AttemptEvaluation evaluate(const Observation& a, const PriorsParams& p, const DateWindow& window)
{
  AttemptEvaluation out;
  out.excluded = outcome_exclusion(a, p, window);
  if (!out.excluded) {
    out.excluded = verdict_exclusion(a);
  }
  if (out.excluded) {
    return out;
  }
  const auto cw = confidence_weight(a.prediction.confidence.value_or(""), p.confidence_weights);
  if (!cw) {
    out.excluded = ExclusionReason::unknown_confidence;
    return out;
  }
  if (a.profiler_hbm_undercount && !p.include_biased_profiler) {
    out.excluded = ExclusionReason::biased_profiler;
    return out;
  }
  if (a.censored != domain::CensorReason::none) {
    // Right-censored: the head's efficiency was at least its roofline_pct.
    out.censored = true;
    out.e = *a.prediction.roofline_pct;
    out.weight = *cw * decay_of(a, p, window);
    if (!(out.weight > 0.0) || !std::isfinite(out.weight)) {
      out.excluded = ExclusionReason::zero_weight;
      return out;
    }
    if (!p.shifts.empty() && applying_shift(p.shifts, a.op_class, group_name(a.gfx), a.run_date, a.run_id)) {
      out.before_shift = true;
      if (p.shift_weighting == ShiftWeighting::since_shift) {
        out.excluded = ExclusionReason::before_shift;
        return out;
      }
      out.weight *= p.before_shift_weight;
      if (!(out.weight > 0.0)) {
        out.excluded = ExclusionReason::zero_weight;
      }
    }
    return out;
  }
  const double s = *a.isolated_speedup;
  out.e_from_post = a.post_efficiency.has_value();
  const double raw_e = out.e_from_post ? *a.post_efficiency : *a.prediction.roofline_pct * s;
  if (raw_e > domain::k_infeasible_e) {
    out.excluded = ExclusionReason::infeasible;
    out.e = raw_e; // shown unclamped by --explain
    out.contradiction = true;
    return out;
  }
  out.e = std::min(1.0, raw_e);
  out.weight = *cw * decay_of(a, p, window);
  if (!(out.weight > 0.0) || !std::isfinite(out.weight)) {
    out.excluded = ExclusionReason::zero_weight;
    return out;
  }
  const auto& attainable = a.prediction.attainable_speedup;
  out.contradiction =
      attainable && std::isfinite(*attainable) && domain::beats_prediction(s, *attainable, p.iso_noise);
  if (!p.shifts.empty() && applying_shift(p.shifts, a.op_class, group_name(a.gfx), a.run_date, a.run_id)) {
    out.before_shift = true;
    if (p.shift_weighting == ShiftWeighting::since_shift) {
      out.excluded = ExclusionReason::before_shift;
      return out;
    }
    out.weight *= p.before_shift_weight;
    if (!(out.weight > 0.0)) {
      out.excluded = ExclusionReason::zero_weight;
    }
  }
  return out;
}

// Observations that rest on one prediction: the same run, class, gfx,
// regime, kernel (short_name) and prediction snapshot (source_kind, headroom_class,
// confidence, roofline_pct, attainable_speedup, pct_gpu_time, suspect,
// dispatch_bound). Candidates of one kernel tried on one verdict are one
// piece of evidence about the ceiling, however many of them there are: each
// of a group's k observations weighs w / k (docs/estimator.md).
// An observation without a kernel name is a group of its own.
class PredictionGroups {
public:
  // The group of an observation of run `run_id`.
  std::uint32_t operator()(std::string_view run_id, const Observation& a)
  {
    if (a.short_name.empty()) {
      return add_group();
    }
    const auto& pr = a.prediction;
    m_key.clear();
    const auto text = [&](std::string_view t) {
      m_key.append(t);
      m_key.push_back('\x1f');
    };
    const auto opt_text = [&](const std::optional<std::string>& t) { text(t ? "+" + *t : std::string("-")); };
    const auto number = [&](const std::optional<double>& x) { text(x ? fmt::format("{:a}", *x) : "-"); };
    text(run_id);
    text(a.op_class);
    text(group_name(a.gfx));
    text(group_name(a.regime));
    text(a.short_name);
    opt_text(pr.source_kind);
    opt_text(pr.headroom_class);
    opt_text(pr.confidence);
    number(pr.roofline_pct);
    number(pr.attainable_speedup);
    number(pr.pct_gpu_time);
    text(pr.suspect ? (*pr.suspect ? "1" : "0") : "-");
    text(pr.dispatch_bound ? "1" : "0");
    const auto [it, added] = m_index.try_emplace(m_key, static_cast<std::uint32_t>(m_size.size()));
    if (added) {
      m_size.push_back(0);
    }
    ++m_size[it->second];
    return it->second;
  }
  // Observations in `group` (≥ 1 for a group handed out).
  [[nodiscard]] std::uint32_t size_of(std::uint32_t group) const { return m_size[group]; }

private:
  std::uint32_t add_group()
  {
    m_size.push_back(1);
    return static_cast<std::uint32_t>(m_size.size() - 1);
  }
  std::unordered_map<std::string, std::uint32_t> m_index;
  std::vector<std::uint32_t> m_size;
  std::string m_key; // reused
};

bool is_measured(const Observation& a)
{
  return a.prediction.source_kind.value_or("") == "measured";
}

// An attempt that counts for a key: an observation or an infeasible one.
// The views point into the caller's rows, which outlive the computation.
// 96 bytes: a history has 10⁵ of them.
struct Scored {
  struct Evaluation {
    double e = 0.0;
    double weight = 0.0;
  };
  std::string_view run_id;
  std::string_view run_date;
  const Observation* attempt = nullptr; // the full row, for --explain's text (may be null otherwise)
  std::string_view gfx;                 // grouped name (into the caller's rows, or a literal)
  std::string_view regime;              // grouped name
  Evaluation evaluation;                // of the AttemptEvaluation
  std::uint32_t run = 0;                // dense index of run_id within the computation (RunIndex)
  bool is_infeasible = false;
  bool contradiction = false;
  bool measured = false; // the prediction's source_kind is measured
  bool censored = false; // right-censored: e is a lower bound
  [[nodiscard]] bool infeasible() const { return is_infeasible; }

  Scored(std::string_view run_id_, std::string_view run_date_, std::uint32_t run_,
         const Observation* attempt_, const AttemptEvaluation& eval, std::string_view gfx_,
         std::string_view regime_, bool measured_)
      : run_id(run_id_), run_date(run_date_), attempt(attempt_), gfx(gfx_),
        regime(regime_), evaluation{eval.e, eval.weight}, run(run_),
        is_infeasible(eval.excluded == ExclusionReason::infeasible), contradiction(eval.contradiction),
        measured(measured_), censored(eval.censored)
  {
  }
};

static_assert(sizeof(Scored) <= 96);

double shrink(double parent, double total_weight, double q, double k)
{
  if (!(k + total_weight > 0.0)) {
    return parent;
  }
  const double t = (k * parent + total_weight * q) / (k + total_weight);
  return std::clamp(t, k_min_target_eff, 1.0);
}

// The threshold of the censoring rule for a set (docs/estimator.md, "Censored
// observations"): the weighted quantile of its uncensored observations, else
// `parent`, the value the set is shrunk toward.
double censor_threshold_of(const std::vector<const Scored*>& members, double parent, const PriorsParams& p)
{
  std::vector<WeightedValue> exact;
  for (const Scored* m : members) {
    if (!m->infeasible() && !m->censored) {
      exact.push_back({m->evaluation.e, m->evaluation.weight});
    }
  }
  return censoring_threshold(std::move(exact), p.quantile, parent);
}

// `members` without the censored observations that do not enter the set's
// quantile (bound ≤ censor_threshold_of): the set the estimate is made of.
std::vector<const Scored*> with_censoring(const std::vector<const Scored*>& members, double parent,
                                          const PriorsParams& p)
{
  const bool any = std::any_of(members.begin(), members.end(), [](const Scored* m) { return m->censored; });
  if (!any) {
    return members;
  }
  const double threshold = censor_threshold_of(members, parent, p);
  std::vector<const Scored*> out;
  for (const Scored* m : members) {
    if (!m->censored || censored_enters(m->evaluation.e, threshold)) {
      out.push_back(m);
    }
  }
  return out;
}

// Dense indices of run ids (0, 1, … in first-seen order), so counting
// distinct runs needs no hashing of the ids.
class RunIndex {
public:
  std::uint32_t operator()(std::string_view run_id)
  {
    // Consecutive attempts of a table share one run_id string: skip the lookup then.
    if (m_any && run_id.data() == m_last.data() && run_id.size() == m_last.size()) {
      return m_last_index;
    }
    const auto it = m_index.try_emplace(run_id, static_cast<std::uint32_t>(m_index.size())).first;
    m_any = true;
    m_last = run_id;
    m_last_index = it->second;
    return it->second;
  }

private:
  std::unordered_map<std::string_view, std::uint32_t> m_index; // views into the caller's rows
  std::string_view m_last;
  std::uint32_t m_last_index = 0;
  bool m_any = false;
};

// Distinct runs among the observations (infeasible attempts excluded).
int distinct_runs(const std::vector<const Scored*>& members)
{
  std::uint32_t top = 0;
  for (const Scored* m : members) {
    top = std::max(top, m->run);
  }
  std::vector<bool> seen(static_cast<std::size_t>(top) + 1);
  int runs = 0;
  for (const Scored* m : members) {
    if (!m->infeasible() && !seen[m->run]) {
      seen[m->run] = true;
      ++runs;
    }
  }
  return runs;
}

// One observation of a key with its run's rank among the key's runs (by
// run_id, so the bootstrap does not depend on input order).
struct RankedValue {
  double value = 0.0;
  double weight = 0.0;
  std::uint32_t run = 0;
};

// Fill the estimate of `row` (identity, seed and parent already set) from the
// attempts that count for its key.
void estimate_row(PriorRow& row, const std::vector<const Scored*>& all_members, const PriorsParams& p,
                  PriorSource empty_source)
{
  const std::vector<const Scored*> members = with_censoring(all_members, row.parent, p);
  std::vector<std::string_view> run_ids;
  for (const Scored* m : members) {
    if (m->infeasible()) {
      ++row.infeasible;
      ++row.contradictions;
      continue;
    }
    row.censored += m->censored ? 1 : 0;
    run_ids.push_back(m->run_id);
    row.contradictions += m->contradiction ? 1 : 0;
    (m->measured ? row.measured : row.analytic) += 1;
    if (!row.last_seen || m->run_date > *row.last_seen) {
      row.last_seen = std::string(m->run_date);
    }
  }
  row.n = static_cast<int>(run_ids.size());
  std::sort(run_ids.begin(), run_ids.end());
  run_ids.erase(std::unique(run_ids.begin(), run_ids.end()), run_ids.end());
  row.runs = static_cast<int>(run_ids.size());
  // Canonical order (value, weight, then run rank): ties resolve the same way
  // whatever the input order, so every sum below is bit-reproducible.
  std::vector<RankedValue> ranked;
  ranked.reserve(static_cast<std::size_t>(row.n));
  for (const Scored* m : members) {
    if (!m->infeasible()) {
      const auto rank = std::lower_bound(run_ids.begin(), run_ids.end(), m->run_id) - run_ids.begin();
      ranked.push_back({m->evaluation.e, m->evaluation.weight, static_cast<std::uint32_t>(rank)});
    }
  }
  std::sort(ranked.begin(), ranked.end(), [](const RankedValue& a, const RankedValue& b) {
    return std::tie(a.value, a.weight, a.run) < std::tie(b.value, b.weight, b.run);
  });
  std::vector<WeightedValue> sample(ranked.size());
  std::vector<std::uint32_t> run_of(ranked.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    sample[i] = {ranked[i].value, ranked[i].weight};
    run_of[i] = ranked[i].run;
  }
  const auto q = weighted_quantile_counted(sample, {}, p.quantile);
  if (!q) {
    row.target_eff = row.parent;
    row.source = empty_source;
    row.interval_reason = "no observations";
    return;
  }
  // W from the weights alone, so raising an e_j (which reorders the sample)
  // cannot move W by a rounding bit and t stays exactly monotone in e.
  std::vector<double> weights;
  for (const WeightedValue& v : sample) {
    weights.push_back(v.weight);
  }
  row.weight = stable_sum(std::move(weights));
  row.statistic = q->value;
  row.target_eff = shrink(row.parent, row.weight, q->value, p.prior_strength);
  row.source = PriorSource::calibrated;
  if (row.runs < 2) {
    // Observations of one run share its build, its profiler and its
    // engineer: they say nothing about how the next run will differ.
    row.interval_reason = "one run";
    return;
  }
  if (p.bootstrap_resamples == 0) {
    row.interval_reason = "not computed";
    return;
  }
  // The interval is where the key's own ceiling lies: the percentile
  // bootstrap of q over the key's RUNS (a drawn run brings all its
  // observations), widened to take in target_eff. The shrink pulls
  // target_eff toward the parent; an interval of the shrunk value with the
  // parent held fixed would miss the key's ceiling whenever the parent is
  // off (tools/bench/planted_truth: 63 % coverage at 60 runs).
  const auto runs = run_ids.size();
  std::optional<Interval> iq;
  if (runs >= k_large_sample_units) {
    // The bootstrap's large-sample limit, computed without resampling.
    std::vector<ClusteredValue> points(sample.size());
    for (std::size_t i = 0; i < sample.size(); ++i) {
      points[i] = {sample[i].value, sample[i].weight, run_of[i]};
    }
    iq = large_sample_quantile_interval(points, runs, p.quantile, p.interval);
    row.interval_method = IntervalMethod::large_sample;
  } else {
    std::vector<std::uint32_t> counts(sample.size());
    iq = bootstrap_interval(runs, p.bootstrap_resamples, p.interval, derive_seed(p.seed, row_key(row)),
                            [&](std::span<const std::uint32_t> run_counts) {
                              for (std::size_t i = 0; i < counts.size(); ++i) {
                                counts[i] = run_counts[run_of[i]];
                              }
                              const auto cq = weighted_quantile_counted(sample, counts, p.quantile);
                              return cq ? cq->value : q->value;
                            });
  }
  if (iq) {
    row.interval = Interval{std::min(iq->lo, row.target_eff), std::max(iq->hi, row.target_eff)};
  }
}

// A set of the class's scored attempts: those of gfx/regime, minus those of
// not_gfx/not_regime.
struct KeyFilter {
  std::optional<std::string> gfx;
  std::optional<std::string> regime;
  std::optional<std::string> not_gfx;
  std::optional<std::string> not_regime;
};

std::vector<const Scored*> members_of(const std::vector<Scored>& scored, const KeyFilter& f)
{
  std::vector<const Scored*> out;
  for (const Scored& s : scored) {
    if ((!f.gfx || s.gfx == *f.gfx) && (!f.regime || s.regime == *f.regime) &&
        (!f.not_gfx || s.gfx != *f.not_gfx) && (!f.not_regime || s.regime != *f.not_regime)) {
      out.push_back(&s);
    }
  }
  return out;
}

// One step of the path: shrink `from` by the observations of `members`;
// with `with_text`, each observation is also listed (--explain; the members
// then carry their attempt).
ShrinkStep shrink_step(std::string set, double from, const std::vector<const Scored*>& all_members,
                       const PriorsParams& p, bool with_text)
{
  const std::vector<const Scored*> members = with_censoring(all_members, from, p);
  ShrinkStep step;
  step.set = std::move(set);
  step.from = from;
  step.to = from;
  std::vector<WeightedValue> sample;
  for (const Scored* m : members) {
    if (m->infeasible()) {
      continue;
    }
    sample.push_back({m->evaluation.e, m->evaluation.weight});
    if (with_text) {
      step.observations.push_back(fmt::format(
          "{} {} {} e{}{:.4f} w={:.3f}", m->run_id, m->attempt != nullptr ? m->attempt->short_name : "",
          m->attempt != nullptr ? m->attempt->lever : "", m->censored ? ">=" : "=", m->evaluation.e,
          m->evaluation.weight));
    }
  }
  std::sort(step.observations.begin(), step.observations.end());
  step.n = static_cast<int>(sample.size());
  step.runs = distinct_runs(members);
  sort_canonical(sample);
  const auto q = weighted_quantile_counted(sample, {}, p.quantile);
  if (!q) {
    return step;
  }
  std::vector<double> weights;
  for (const WeightedValue& v : sample) {
    weights.push_back(v.weight);
  }
  step.weight = stable_sum(std::move(weights));
  step.statistic = q->value;
  step.to = shrink(from, step.weight, q->value, p.prior_strength);
  return step;
}

// The path from the seed to a key, each observation counted once: the class
// minus the key's gfx, the gfx minus the key's regime, then the key's own.
std::vector<ShrinkStep> path_to(const std::string& op_class, const std::optional<std::string>& gfx,
                                const std::optional<std::string>& regime, const std::vector<Scored>& scored,
                                const PriorsParams& p, bool with_text)
{
  std::vector<ShrinkStep> steps;
  double v = *domain::seed_target_eff(op_class);
  if (gfx) {
    steps.push_back(shrink_step(fmt::format("{} minus {}", op_class, *gfx), v,
                                members_of(scored, {std::nullopt, std::nullopt, gfx, std::nullopt}), p,
                                with_text));
    v = steps.back().to;
  }
  if (gfx && regime) {
    steps.push_back(shrink_step(fmt::format("{}:{} minus {}", op_class, *gfx, *regime), v,
                                members_of(scored, {gfx, std::nullopt, std::nullopt, regime}), p, with_text));
    v = steps.back().to;
  }
  PriorRow key;
  key.op_class = op_class;
  key.gfx = gfx;
  key.regime = gfx ? regime : std::nullopt;
  steps.push_back(shrink_step(
      row_key(key), v, members_of(scored, {gfx, key.regime, std::nullopt, std::nullopt}), p, with_text));
  return steps;
}

// The row of a key whose parent value (the last step's `from` on its path) is known.
PriorRow make_row_under(const std::string& op_class, const KeyFilter& f, PriorSource empty_source,
                        const std::vector<Scored>& scored_in_class, const PriorsParams& p, double parent)
{
  PriorRow row;
  row.op_class = op_class;
  row.gfx = f.gfx;
  row.regime = f.regime;
  row.seed = *domain::seed_target_eff(op_class);
  row.parent = parent;
  estimate_row(row, members_of(scored_in_class, f), p, empty_source);
  return row;
}

PriorRow make_row(const std::string& op_class, const KeyFilter& f, PriorSource empty_source,
                  const std::vector<Scored>& scored_in_class, const PriorsParams& p)
{
  return make_row_under(op_class, f, empty_source, scored_in_class, p,
                        path_to(op_class, f.gfx, f.regime, scored_in_class, p, false).back().from);
}

Result<void> validate(const PriorsParams& p)
{
  auto bad = [](std::string msg) { return fail(ErrorCode::invalid_input, std::move(msg)); };
  if (!std::isfinite(p.prior_strength) || p.prior_strength < 0.0) {
    return bad(fmt::format("prior strength must be >= 0 (got {})", p.prior_strength));
  }
  if (!std::isfinite(p.transfer_strength) || p.transfer_strength < 0.0) {
    return bad(fmt::format("transfer strength must be >= 0 (got {})", p.transfer_strength));
  }
  if (!(p.quantile > 0.0 && p.quantile <= 1.0)) {
    return bad(fmt::format("quantile must be in (0, 1] (got {})", p.quantile));
  }
  if (!std::isfinite(p.iso_noise) || p.iso_noise < 0.0 || !std::isfinite(p.e2e_noise_pct) ||
      p.e2e_noise_pct < 0.0) {
    return bad("noise bands must be finite and >= 0");
  }
  const auto& w = p.confidence_weights;
  for (const double v : {w.high, w.medium, w.low}) {
    if (!std::isfinite(v) || v < 0.0) {
      return bad(fmt::format("confidence weights must be finite and >= 0 (got {})", v));
    }
  }
  if (p.half_life_days && !(std::isfinite(*p.half_life_days) && *p.half_life_days > 0.0)) {
    return bad(fmt::format("half-life must be > 0 days (got {})", *p.half_life_days));
  }
  if (!p.as_of.empty() && !util::parse_iso_date(p.as_of)) {
    return bad(fmt::format("as-of date '{}' is not YYYY-MM-DD", p.as_of));
  }
  if (p.since && !util::parse_iso_date(*p.since)) {
    return bad(fmt::format("since date '{}' is not YYYY-MM-DD", *p.since));
  }
  if (!(p.before_shift_weight >= 0.0 && p.before_shift_weight <= 1.0)) {
    return bad(fmt::format("before-shift weight must be in [0, 1] (got {})", p.before_shift_weight));
  }
  if (p.bootstrap_resamples < 0) {
    return bad("bootstrap resamples must be >= 0");
  }
  if (!(p.interval > 0.0 && p.interval < 1.0)) {
    return bad(fmt::format("interval must be in (0, 1) (got {})", p.interval));
  }
  return {};
}

// Validate and fill as_of (newest valid run_date of `rows` when not given).
template <typename Rows>
Result<std::pair<PriorsParams, DateWindow>> resolve(const Rows& rows, const PriorsParams& params)
{
  RFDB_TRY(validate(params));
  PriorsParams p = params;
  if (p.as_of.empty()) {
    domain::NewestDate newest;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      newest.see(rows.run_date(i));
    }
    p.as_of = newest.value();
  }
  DateWindow window;
  if (!p.as_of.empty()) {
    window.as_of = util::parse_iso_date(p.as_of);
  }
  if (p.since) {
    window.since = util::parse_iso_date(*p.since);
  }
  return std::make_pair(p, window);
}

// Each observation's weight split among the observations of its prediction
// group (PredictionGroups), as compute_with does.
void split_weights(std::span<const Observation> attempts, std::vector<AttemptEvaluation>& evals)
{
  PredictionGroups groups;
  std::vector<std::uint32_t> group_of(attempts.size());
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    if (!evals[i].excluded) {
      group_of[i] = groups(attempts[i].run_id, attempts[i]);
    }
  }
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    if (!evals[i].excluded) {
      evals[i].weight /= static_cast<double>(groups.size_of(group_of[i]));
    }
  }
}

// Observations and infeasible attempts of one class, with grouped gfx/regime.
std::vector<Scored> scored_of_class(std::span<const Observation> attempts,
                                    const std::vector<AttemptEvaluation>& evals, std::string_view op_class)
{
  std::vector<Scored> out;
  RunIndex run_index;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    const auto& ex = evals[i].excluded;
    if (attempts[i].op_class == op_class && (!ex || *ex == ExclusionReason::infeasible)) {
      out.emplace_back(attempts[i].run_id, attempts[i].run_date, run_index(attempts[i].run_id), &attempts[i],
                       evals[i], group_name(attempts[i].gfx), group_name(attempts[i].regime),
                       is_measured(attempts[i]));
    }
  }
  return out;
}

// Sorted distinct gfx, and regimes per gfx, over every class's counted attempts.
using KeyNames = std::map<std::string, std::set<std::string, std::less<>>, std::less<>>;

KeyNames key_names(const std::vector<std::vector<Scored>>& by_class)
{
  KeyNames names;
  for (const auto& scored : by_class) {
    for (const Scored& s : scored) {
      auto gfx = names.find(s.gfx);
      if (gfx == names.end()) {
        gfx = names.try_emplace(std::string(s.gfx)).first;
      }
      if (!gfx->second.contains(s.regime)) {
        gfx->second.emplace(s.regime);
      }
    }
  }
  return names;
}

// Keys at `row`'s level with evidence that differ from it in one field, the
// gfx or the regime (another op class has another ceiling: never "near").
std::vector<std::pair<std::string, double>> nearest_to(const PriorRow& row, const std::vector<PriorRow>& rows)
{
  std::vector<std::pair<std::string, double>> out;
  for (const PriorRow& other : rows) {
    if (other.n == 0 || other.op_class != row.op_class || other.gfx.has_value() != row.gfx.has_value() ||
        other.regime.has_value() != row.regime.has_value()) {
      continue;
    }
    const int differ =
        (other.op_class != row.op_class) + (other.gfx != row.gfx) + (other.regime != row.regime);
    if (differ == 1) {
      out.emplace_back(row_key(other), other.target_eff);
    }
  }
  return out;
}

} // namespace

AttemptEvaluation evaluate_attempt(const Observation& attempt, const PriorsParams& params)
{
  DateWindow window;
  window.as_of = util::parse_iso_date(params.as_of);
  if (params.since) {
    window.since = util::parse_iso_date(*params.since);
  }
  return evaluate(attempt, params, window);
}

namespace {

// The caller's attempts, as compute_with reads them.
struct SpanRows {
  std::span<const Observation> attempts;
  [[nodiscard]] std::size_t size() const { return attempts.size(); }
  const Observation& row(std::size_t i, Observation& /*buffer*/) const { return attempts[i]; }
  [[nodiscard]] std::string_view run_id(std::size_t i) const { return attempts[i].run_id; }
  [[nodiscard]] std::string_view run_date(std::size_t i) const { return attempts[i].run_date; }
  [[nodiscard]] std::string_view op_class(std::size_t i) const { return attempts[i].op_class; }
  [[nodiscard]] std::string_view gfx(std::size_t i) const { return attempts[i].gfx; }
  [[nodiscard]] std::string_view regime(std::size_t i) const { return attempts[i].regime; }
  [[nodiscard]] const Observation* kept(std::size_t i) const { return &attempts[i]; }
};

// A compact table's rows, unpacked one at a time into a reused buffer.
struct TableRows {
  const ObservationTable& table;
  [[nodiscard]] std::size_t size() const { return table.size(); }
  const Observation& row(std::size_t i, Observation& buffer) const
  {
    table.fill(i, buffer);
    return buffer;
  }
  [[nodiscard]] std::string_view run_id(std::size_t i) const { return table.run_id(i); }
  [[nodiscard]] std::string_view run_date(std::size_t i) const { return table.run_date(i); }
  [[nodiscard]] std::string_view op_class(std::size_t i) const { return table.op_class(i); }
  [[nodiscard]] std::string_view gfx(std::size_t i) const { return table.gfx(i); }
  [[nodiscard]] std::string_view regime(std::size_t i) const { return table.regime(i); }
  [[nodiscard]] const Observation* kept(std::size_t /*i*/) const { return nullptr; }
};

// Room in each class's vector for all its rows: allocated once, so growing
// never copies the attempts into fresh (page-faulting) memory.
template <typename Rows> void reserve_by_class(const Rows& rows, std::vector<std::vector<Scored>>& by_class)
{
  std::vector<std::size_t> counts(by_class.size() + 1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ++counts[std::min(seeded_rank(rows.op_class(i)), by_class.size())];
  }
  for (std::size_t c = 0; c < by_class.size(); ++c) {
    by_class[c].reserve(counts[c]);
  }
}

// compute_priors over either form of input: one pass judges every attempt,
// keeps the observations (and infeasible attempts) per class and feeds the
// e2e transfer, in input order.
template <typename Rows> Result<PriorsResult> compute_with(const Rows& rows, const PriorsParams& params)
{
  std::pair<PriorsParams, DateWindow> resolved;
  RFDB_TRY_ASSIGN(resolved, resolve(rows, params));
  const auto& [p, window] = resolved;

  PriorsResult result;
  result.params = p;
  if (!p.as_of.empty()) {
    result.as_of = p.as_of;
  }
  int censored_rows = 0;
  std::array<int, k_exclusion_reason_count> counts{};
  std::vector<std::vector<Scored>> by_class(domain::k_seeded_op_classes.size());
  reserve_by_class(rows, by_class);
  TransferGroups transfer;
  RunIndex run_index;
  PredictionGroups groups;
  std::vector<std::vector<std::uint32_t>> group_of(by_class.size()); // parallel to by_class
  constexpr std::uint32_t k_no_group = std::numeric_limits<std::uint32_t>::max();
  Observation buffer;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Observation& a = rows.row(i, buffer);
    const AttemptEvaluation eval = evaluate(a, p, window);
    const std::uint32_t run = run_index(rows.run_id(i));
    if (a.censored != domain::CensorReason::none) {
      ++censored_rows; // a head never tried: no attempt, and not in the exclusion counts
      result.censored += eval.excluded ? 0 : 1;
    } else if (eval.excluded) {
      ++counts[static_cast<std::size_t>(*eval.excluded)];
    } else {
      ++result.observations;
    }
    if (!eval.excluded || *eval.excluded == ExclusionReason::infeasible) {
      const std::size_t cls = seeded_rank(a.op_class);
      if (cls < by_class.size()) {
        by_class[cls].emplace_back(rows.run_id(i), rows.run_date(i), run, rows.kept(i), eval,
                                   group_name(rows.gfx(i)), group_name(rows.regime(i)), is_measured(a));
        group_of[cls].push_back(eval.excluded ? k_no_group : groups(rows.run_id(i), a));
      }
    }
    transfer.add(a, rows.run_id(i), run, eval, p, decay_of(a, p, window));
  }
  result.attempts = static_cast<int>(rows.size()) - censored_rows;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] > 0) {
      result.excluded.push_back({static_cast<ExclusionReason>(r), counts[r]});
    }
  }
  for (std::size_t c = 0; c < by_class.size(); ++c) {
    for (std::size_t i = 0; i < by_class[c].size(); ++i) {
      if (group_of[c][i] != k_no_group) {
        by_class[c][i].evaluation.weight /= static_cast<double>(groups.size_of(group_of[c][i]));
      }
    }
  }

  // Each path step is computed once and shared by the keys below it (as
  // path_to would compute it for each of them).
  const KeyNames names = key_names(by_class);
  for (std::size_t c = 0; c < domain::k_seeded_op_classes.size(); ++c) {
    const std::string op_class(domain::k_seeded_op_classes[c]);
    const std::vector<Scored>& scored = by_class[c];
    const double seed = *domain::seed_target_eff(op_class);
    result.priors.push_back(make_row_under(op_class, {}, PriorSource::seed, scored, p, seed));
    if (p.level == PriorsLevel::op_class) {
      continue;
    }
    for (const auto& [gfx, regimes] : names) {
      const std::optional<std::string> g = gfx;
      // seed shrunk by the class minus this gfx: the gfx row's parent.
      const double gfx_parent =
          shrink_step({}, seed, members_of(scored, {std::nullopt, std::nullopt, g, std::nullopt}), p, false)
              .to;
      result.priors.push_back(make_row_under(op_class, {g, std::nullopt, std::nullopt, std::nullopt},
                                             PriorSource::parent, scored, p, gfx_parent));
      if (p.level != PriorsLevel::op_class_gfx_regime) {
        continue;
      }
      for (const auto& regime : regimes) {
        const std::optional<std::string> r = regime;
        // then by the gfx minus this regime: the regime row's parent.
        const double regime_parent =
            shrink_step({}, gfx_parent, members_of(scored, {g, std::nullopt, std::nullopt, r}), p, false).to;
        result.priors.push_back(make_row_under(op_class, {g, r, std::nullopt, std::nullopt},
                                               PriorSource::parent, scored, p, regime_parent));
      }
    }
  }
  for (PriorRow& row : result.priors) {
    if (row.n == 0 && row.gfx) {
      row.nearest = nearest_to(row, result.priors);
    }
  }
  result.e2e_transfer = transfer.rows(p);
  return result;
}

} // namespace

namespace {

// detect_shifts over either form of input.
template <typename Rows>
Result<std::vector<Shift>> shifts_with(const Rows& rows, const PriorsParams& params, const ShiftParams& sp)
{
  PriorsParams base = params;
  base.half_life_days.reset();
  base.shifts.clear();
  std::pair<PriorsParams, DateWindow> resolved;
  RFDB_TRY_ASSIGN(resolved, resolve(rows, base));
  const auto& [p, window] = resolved;
  // Per class: the observations (e, split weight) of each run, by key.
  struct Sample {
    std::string run_date;
    std::vector<WeightedValue> e;
  };
  using RunSamples = std::map<std::string, Sample, std::less<>>; // run_id → sample
  std::vector<RunSamples> class_runs(domain::k_seeded_op_classes.size());
  std::vector<std::map<std::string, RunSamples, std::less<>>> gfx_runs(domain::k_seeded_op_classes.size());
  PredictionGroups groups;
  struct Kept {
    std::size_t cls;
    std::string gfx, run_id, run_date;
    double e, weight;
    std::uint32_t group;
  };
  std::vector<Kept> kept;
  // The e2e transfer ratio's points (x, c) per class × regime, by run.
  std::vector<std::map<std::string, RunSamples, std::less<>>> transfer_runs(
      domain::k_seeded_op_classes.size());
  Observation buffer;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Observation& a = rows.row(i, buffer);
    const AttemptEvaluation eval = evaluate(a, p, window);
    const std::size_t cls = seeded_rank(a.op_class);
    if (cls >= class_runs.size()) {
      continue;
    }
    if (const auto point = transfer_point(a, eval)) {
      auto& sample = transfer_runs[cls][std::string(group_name(a.regime))][std::string(rows.run_id(i))];
      sample.run_date = rows.run_date(i);
      sample.e.push_back({point->x, point->c});
    }
    if (eval.excluded || eval.censored) {
      continue; // a censored bound is no run value
    }
    kept.push_back({cls, std::string(group_name(rows.gfx(i))), std::string(rows.run_id(i)),
                    std::string(rows.run_date(i)), eval.e, eval.weight, groups(rows.run_id(i), a)});
  }
  for (const Kept& k : kept) {
    const WeightedValue v{k.e, k.weight / static_cast<double>(groups.size_of(k.group))};
    for (RunSamples* runs : {&class_runs[k.cls], &gfx_runs[k.cls][k.gfx]}) {
      auto& sample = (*runs)[k.run_id];
      sample.run_date = k.run_date;
      sample.e.push_back(v);
    }
  }
  std::vector<Shift> out;
  const auto detect = [&](const RunSamples& runs, const std::string& op_class,
                          const std::optional<std::string>& gfx, const std::optional<std::string>& regime) {
    std::vector<RunPoint> series;
    for (const auto& [run_id, sample] : runs) {
      double total = 0.0;
      for (const auto& v : sample.e) {
        total += v.weight;
      }
      series.push_back({run_id, sample.run_date, weighted_median(sample.e).value_or(0.0), total});
    }
    std::sort(series.begin(), series.end(), [](const RunPoint& a, const RunPoint& b) {
      return std::tie(a.run_date, a.run_id) < std::tie(b.run_date, b.run_id);
    });
    const std::string label =
        regime ? "e2e_transfer:" + op_class + ":" + *regime : (gfx ? op_class + ":" + *gfx : op_class);
    for (const Step& step : find_steps(series, sp, label)) {
      Shift shift;
      shift.measure = regime ? ShiftMeasure::e2e_transfer : ShiftMeasure::efficiency;
      shift.op_class = op_class;
      shift.gfx = gfx;
      shift.regime = regime;
      shift.before_run = series[step.split - 1].run_id;
      shift.before_date = series[step.split - 1].run_date;
      shift.after_run = series[step.split].run_id;
      shift.after_date = series[step.split].run_date;
      shift.before_runs = static_cast<int>(step.split - step.begin);
      shift.after_runs = static_cast<int>(step.end - step.split);
      shift.before_median = step.before_median;
      shift.after_median = step.after_median;
      shift.before_interval = step.before_interval;
      shift.after_interval = step.after_interval;
      shift.p_value = step.p_value;
      out.push_back(std::move(shift));
    }
  };
  for (std::size_t c = 0; c < class_runs.size(); ++c) {
    const std::string op_class(domain::k_seeded_op_classes[c]);
    detect(class_runs[c], op_class, std::nullopt, std::nullopt);
    if (gfx_runs[c].size() >= 2) { // one GPU: its series is the class's
      for (const auto& [gfx, runs] : gfx_runs[c]) {
        detect(runs, op_class, gfx, std::nullopt);
      }
    }
    for (const auto& [regime, runs] : transfer_runs[c]) {
      detect(runs, op_class, std::nullopt, regime);
    }
  }
  return out;
}

} // namespace

const Shift* applying_shift(std::span<const Shift> shifts, std::string_view op_class, std::string_view gfx,
                            std::string_view run_date, std::string_view run_id)
{
  const Shift* newest = nullptr;
  for (const Shift& s : shifts) {
    if (s.measure != ShiftMeasure::efficiency || s.op_class != op_class || (s.gfx && *s.gfx != gfx) ||
        !before_shift(s, run_date, run_id)) {
      continue;
    }
    if (newest == nullptr ||
        std::tie(newest->after_date, newest->after_run) < std::tie(s.after_date, s.after_run)) {
      newest = &s;
    }
  }
  return newest;
}

Result<std::vector<Shift>> detect_shifts(std::span<const Observation> attempts, const PriorsParams& params,
                                         const ShiftParams& shift_params)
{
  return shifts_with(SpanRows{attempts}, params, shift_params);
}

Result<std::vector<Shift>> detect_shifts_from_table(const ObservationTable& attempts,
                                                    const PriorsParams& params,
                                                    const ShiftParams& shift_params)
{
  return shifts_with(TableRows{attempts}, params, shift_params);
}

Result<PriorsResult> compute_priors(std::span<const Observation> attempts, const PriorsParams& params)
{
  return compute_with(SpanRows{attempts}, params);
}

Result<PriorsResult> compute_priors_from_table(const ObservationTable& attempts, const PriorsParams& params)
{
  return compute_with(TableRows{attempts}, params);
}

namespace {

// --explain's notes on the shifts behind a key: each detected shift of its
// class or class × gfx its evidence straddles, and what the weights did about it.
void add_shift_notes(const PriorsKey& key, const PriorsParams& p, KeyExplanation& out)
{
  int before = 0;
  int dropped = 0;
  for (const auto* list : {&out.observations, &out.excluded}) {
    for (const ExplainedAttempt& x : *list) {
      before += x.evaluation.before_shift && !x.evaluation.excluded ? 1 : 0;
      dropped += x.evaluation.excluded == ExclusionReason::before_shift ? 1 : 0;
    }
  }
  bool straddled = false;
  for (const Shift& shift : p.shifts) {
    if (shift.measure != ShiftMeasure::efficiency || shift.op_class != key.op_class ||
        (shift.gfx && (!key.gfx || *shift.gfx != *key.gfx))) {
      continue;
    }
    int earlier = 0;
    int later = 0;
    for (const auto* list : {&out.observations, &out.excluded}) {
      for (const ExplainedAttempt& x : *list) {
        if (x.evaluation.excluded && *x.evaluation.excluded != ExclusionReason::before_shift) {
          continue;
        }
        (before_shift(shift, x.attempt.run_date, x.attempt.run_id) ? earlier : later) += 1;
      }
    }
    if (earlier > 0 && later > 0) {
      straddled = true;
      out.notes.push_back(fmt::format("evidence straddles a shift: {} ({} observations before it, {} after)",
                                      describe_shift(shift), earlier, later));
    }
  }
  if (!straddled) {
    return;
  }
  if (p.shift_weighting == ShiftWeighting::since_shift) {
    out.notes.push_back(fmt::format("--since-shift: the {} observations before the newest shift are left out "
                                    "(before_shift)",
                                    dropped));
  } else {
    out.notes.push_back(fmt::format("the {} observations before the newest shift weigh × {:g} (before-shift "
                                    "weight); --since-shift leaves them out",
                                    before, p.before_shift_weight));
  }
}

} // namespace

Result<KeyExplanation> explain_priors(std::span<const Observation> attempts, const PriorsParams& params,
                                      const PriorsKey& key)
{
  if (!domain::seed_target_eff(key.op_class)) {
    return fail(ErrorCode::usage, fmt::format("unknown op class '{}'", key.op_class));
  }
  std::pair<PriorsParams, DateWindow> resolved;
  RFDB_TRY_ASSIGN(resolved, resolve(SpanRows{attempts}, params));
  const auto& [p, window] = resolved;

  KeyExplanation out;
  out.key = key;
  out.params = p;
  if (!p.as_of.empty()) {
    out.as_of = p.as_of;
  }
  std::vector<AttemptEvaluation> evals;
  for (const Observation& a : attempts) {
    evals.push_back(evaluate(a, p, window));
  }
  split_weights(attempts, evals);
  const auto scored = scored_of_class(attempts, evals, key.op_class);
  out.chain.push_back(make_row(key.op_class, {}, PriorSource::seed, scored, p));
  if (key.gfx) {
    out.chain.push_back(make_row(key.op_class, {key.gfx, std::nullopt, std::nullopt, std::nullopt},
                                 PriorSource::parent, scored, p));
  }
  if (key.gfx && key.regime) {
    out.chain.push_back(make_row(key.op_class, {key.gfx, key.regime, std::nullopt, std::nullopt},
                                 PriorSource::parent, scored, p));
  }
  out.steps = path_to(key.op_class, key.gfx, key.gfx ? key.regime : std::nullopt, scored, p, true);
  if (out.chain.back().n == 0) {
    PriorsParams level = p;
    level.level = !key.gfx ? PriorsLevel::op_class
                           : (key.regime ? PriorsLevel::op_class_gfx_regime : PriorsLevel::op_class_gfx);
    level.bootstrap_resamples = 0;
    PriorsResult all;
    RFDB_TRY_ASSIGN(all, compute_priors(attempts, level));
    out.nearest = nearest_to(out.chain.back(), all.priors);
    std::set<std::string> gfx_with_evidence;
    for (const PriorRow& r : all.priors) {
      if (r.gfx && r.n > 0) {
        gfx_with_evidence.insert(*r.gfx);
      }
    }
    if (key.gfx && !gfx_with_evidence.contains(*key.gfx)) {
      std::string names;
      for (const auto& g : gfx_with_evidence) {
        names += (names.empty() ? "" : ", ") + g;
      }
      out.notes.push_back(fmt::format("no observations on {}: answered from the {} class level; GPUs with "
                                      "evidence: {}",
                                      *key.gfx, key.op_class, names.empty() ? "none" : names));
    }
  }

  for (std::size_t i = 0; i < attempts.size(); ++i) {
    const Observation& a = attempts[i];
    if (a.op_class != key.op_class || (key.gfx && group_name(a.gfx) != *key.gfx) ||
        (key.regime && group_name(a.regime) != *key.regime)) {
      continue;
    }
    auto& list = evals[i].excluded ? out.excluded : (evals[i].censored ? out.censored : out.observations);
    list.push_back({a, evals[i]});
  }
  auto chronological = [](const ExplainedAttempt& x, const ExplainedAttempt& y) {
    auto tie = [](const ExplainedAttempt& v) {
      const Observation& a = v.attempt;
      return std::make_tuple(std::cref(a.run_date), std::cref(a.run_id), std::cref(a.round),
                             std::cref(a.short_name), std::cref(a.lever), std::cref(a.gfx),
                             std::cref(a.regime), a.isolated_speedup.value_or(-1.0), v.evaluation.e,
                             v.evaluation.weight);
    };
    return tie(x) < tie(y);
  };
  std::sort(out.observations.begin(), out.observations.end(), chronological);
  std::sort(out.excluded.begin(), out.excluded.end(), chronological);
  std::sort(out.censored.begin(), out.censored.end(), chronological);
  {
    const ShrinkStep& own = out.steps.back();
    out.censor_threshold = censor_threshold_of(
        members_of(scored, {key.gfx, key.gfx ? key.regime : std::nullopt, std::nullopt, std::nullopt}),
        own.from, p);
  }
  add_shift_notes(key, p, out);
  return out;
}

} // namespace rfdb::calibrate
