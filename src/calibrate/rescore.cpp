// Rescoring stored verdicts under three prior sets (declared in calibrate/rescore.hpp).
#include "calibrate/rescore.hpp"

#include "calibrate/from_store.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "store/evidence.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

namespace rfdb::calibrate {

const char* to_string(PriorSet set)
{
  switch (set) {
  case PriorSet::stored:
    return "stored";
  case PriorSet::today:
    return "today";
  case PriorSet::before:
    return "before";
  }
  return "stored";
}

namespace {

// The priors row of (op_class, gfx, regime) at `level`, else the nearest level above it that
// has a row; nullptr when the class has none (no seed).
const PriorRow* prior_row(const PriorsResult& priors, const std::string& op_class, std::string_view gfx,
                          std::string_view regime, PriorsLevel level)
{
  const PriorRow* class_row = nullptr;
  const PriorRow* gfx_row = nullptr;
  const PriorRow* regime_row = nullptr;
  for (const auto& row : priors.priors) {
    if (row.op_class != op_class) {
      continue;
    }
    if (!row.gfx) {
      class_row = &row;
    } else if (*row.gfx == gfx && !row.regime) {
      gfx_row = &row;
    } else if (*row.gfx == gfx && row.regime && *row.regime == regime) {
      regime_row = &row;
    }
  }
  if (level == PriorsLevel::op_class_gfx_regime && regime_row != nullptr) {
    return regime_row;
  }
  if (level != PriorsLevel::op_class && gfx_row != nullptr) {
    return gfx_row;
  }
  return class_row;
}

// Why a stored verdict carries no band; "" when it does.
std::string no_band_reason(const store::RescoreVerdict& v)
{
  if (v.suspect) {
    return "suspect";
  }
  if (v.dispatch_bound) {
    return "dispatch_bound";
  }
  if (!domain::is_banded(v.headroom_class) || !v.roofline_pct || !(*v.roofline_pct > 0.0)) {
    return "no verdict";
  }
  return "";
}

// The verdict under target_eff `t`: band, attainable speedup, expected gain, skip.
void score(const RescoredVerdict& r, std::optional<double> t, ScoredVerdict& s)
{
  s.available = true;
  s.target_eff = t;
  if (!r.no_band.empty()) {
    return;
  }
  const auto& v = r.verdict;
  s.headroom_class = std::string(domain::band_headroom(v.roofline_pct, t));
  s.attainable_speedup = domain::attainable_speedup(v.roofline_pct, t);
  if (v.pct_gpu_time && s.attainable_speedup) {
    s.expected_e2e_gain_pct = domain::amdahl_gain_pct(*v.pct_gpu_time, *s.attainable_speedup);
  }
  if (r.head && t) {
    s.skip = *v.roofline_pct >= *t;
  }
}

void score_with_priors(RescoredVerdict& r, const PriorsResult& priors, PriorsLevel level, ScoredVerdict& s)
{
  const auto& v = r.verdict;
  const PriorRow* row = prior_row(priors, v.op_class, group_name(priors_gfx_key(v.gfx)),
                                  group_name(priors_regime_key(v.regime)), level);
  if (row == nullptr) {
    score(r, v.target_eff, s);
    s.prior_source = "stored";
    return;
  }
  score(r, row->target_eff, s);
  s.prior_key = row_key(*row);
  s.prior_source = to_string(row->source);
}

// Rank the banded heads of each (run, round) by expected gain under each set.
void rank_heads(std::vector<RescoredVerdict>& all)
{
  std::map<std::pair<std::string, std::string>, std::vector<RescoredVerdict*>> rounds;
  for (auto& r : all) {
    if (r.head && r.no_band.empty()) {
      rounds[{r.verdict.run_id, r.verdict.round}].push_back(&r);
    }
  }
  for (auto& [key, heads] : rounds) {
    for (std::size_t set = 0; set < k_prior_set_count; ++set) {
      std::vector<RescoredVerdict*> ranked;
      for (auto* r : heads) {
        if (r->under[set].available && r->under[set].expected_e2e_gain_pct) {
          ranked.push_back(r);
        }
      }
      std::sort(ranked.begin(), ranked.end(), [set](const RescoredVerdict* a, const RescoredVerdict* b) {
        const double ga = *a->under[set].expected_e2e_gain_pct;
        const double gb = *b->under[set].expected_e2e_gain_pct;
        if (ga != gb) {
          return ga > gb;
        }
        const double pa = a->verdict.pct_gpu_time.value_or(0.0);
        const double pb = b->verdict.pct_gpu_time.value_or(0.0);
        if (pa != pb) {
          return pa > pb;
        }
        return a->verdict.short_name < b->verdict.short_name;
      });
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        ranked[i]->under[set].rank = static_cast<int>(i + 1);
      }
    }
  }
}

std::string skip_word(bool skip)
{
  return skip ? "skip" : "try";
}

void find_changes(RescoredVerdict& r, RescoreResult& out)
{
  const ScoredVerdict& a = r.under[static_cast<std::size_t>(PriorSet::stored)];
  for (const PriorSet set : {PriorSet::today, PriorSet::before}) {
    const ScoredVerdict& x = r.under[static_cast<std::size_t>(set)];
    if (!x.available || !r.no_band.empty()) {
      continue;
    }
    RescoreChangeCounts& counts = set == PriorSet::today ? out.today : out.before;
    if (x.headroom_class != a.headroom_class) {
      const bool saturated = domain::is(a.headroom_class, domain::HeadroomClass::saturated) ||
                             domain::is(x.headroom_class, domain::HeadroomClass::saturated);
      r.changes.push_back({set, "band", a.headroom_class, x.headroom_class, saturated});
      ++counts.band;
      counts.saturated += saturated ? 1 : 0;
    }
    if (a.rank && x.rank && *a.rank != *x.rank) {
      r.changes.push_back({set, "rank", std::to_string(*a.rank), std::to_string(*x.rank), false});
      ++counts.rank;
    }
    if (a.skip && x.skip && *a.skip != *x.skip) {
      r.changes.push_back({set, "skip", skip_word(*a.skip), skip_word(*x.skip), false});
      ++counts.skip;
    }
  }
}

// The as_of of (c) for a run dated `run_date`: the day before; "" when it is not a date.
std::string day_before(const std::string& run_date)
{
  const auto day = util::parse_iso_date(run_date);
  return day ? util::format_iso_date(*day - std::chrono::days{1}) : std::string();
}

} // namespace

RescoreResult rescore(std::span<const store::RescoreVerdict> verdicts, const PriorsResult& today,
                      const std::map<std::string, PriorsResult, std::less<>>& before_by_date,
                      PriorsLevel level)
{
  RescoreResult out;
  out.as_of = today.as_of.value_or("");
  out.level = level;
  std::set<std::string> runs;
  std::set<std::pair<std::string, std::string>> rounds;
  for (const auto& v : verdicts) {
    RescoredVerdict r;
    r.verdict = v;
    r.head = v.pct_gpu_time && *v.pct_gpu_time >= domain::k_head_min_pct;
    r.no_band = no_band_reason(v);
    r.before_as_of = day_before(v.run_date);
    score(r, v.target_eff, r.under[static_cast<std::size_t>(PriorSet::stored)]);
    r.under[static_cast<std::size_t>(PriorSet::stored)].prior_source = "stored";
    score_with_priors(r, today, level, r.under[static_cast<std::size_t>(PriorSet::today)]);
    if (const auto it = before_by_date.find(r.before_as_of);
        !r.before_as_of.empty() && it != before_by_date.end()) {
      score_with_priors(r, it->second, level, r.under[static_cast<std::size_t>(PriorSet::before)]);
    }
    runs.insert(v.run_id);
    rounds.emplace(v.run_id, v.round);
    out.banded += r.no_band.empty() ? 1 : 0;
    out.heads += r.head ? 1 : 0;
    out.verdicts.push_back(std::move(r));
  }
  rank_heads(out.verdicts);
  for (auto& r : out.verdicts) {
    find_changes(r, out);
    out.changed += r.changes.empty() ? 0 : 1;
  }
  out.runs = static_cast<int>(runs.size());
  out.rounds = static_cast<int>(rounds.size());
  return out;
}

namespace {

// An attempt the replay counts as a measured kernel win (before the check that its kernel is a
// banded head): beyond the noise band, parity held, engaged.
bool is_replay_win(const store::Attempt& a)
{
  return a.e2e_delta_pct && domain::is_e2e_gain(*a.e2e_delta_pct) &&
         !domain::parity_failed(a.output_parity.value_or(""), a.reject_reason.value_or("")) &&
         a.reject_reason.value_or("") != "no_engagement";
}

} // namespace

void replay_routing(RescoreResult& result, std::span<const store::Attempt> attempts)
{
  // The ranked (under stored) verdicts of each run's kernel, in load order.
  std::map<std::pair<std::string_view, std::string_view>, std::vector<const RescoredVerdict*>> ranked;
  for (const auto& r : result.verdicts) {
    if (r.under[static_cast<std::size_t>(PriorSet::stored)].rank) {
      ranked[{r.verdict.run_id, r.verdict.short_name}].push_back(&r);
    }
  }
  std::map<std::string_view, const store::Attempt*> best; // run → its best measured kernel win
  for (const auto& a : attempts) {
    if (!is_replay_win(a) || ranked.count({a.run_id, a.short_name}) == 0) {
      continue;
    }
    auto& slot = best[a.run_id];
    if (slot == nullptr || *a.e2e_delta_pct > *slot->e2e_delta_pct) {
      slot = &a;
    }
  }
  std::array<double, k_prior_set_count> sum_error{};
  std::array<int, k_prior_set_count> n_error{};
  std::set<std::string_view> done;
  for (const auto& r : result.verdicts) {
    const auto it = best.find(r.verdict.run_id);
    if (it == best.end() || !done.insert(it->first).second) {
      continue;
    }
    const store::Attempt& a = *it->second;
    // The verdict of the attempt's round, else the kernel's first ranked one.
    const auto& candidates = ranked.at({a.run_id, a.short_name});
    const RescoredVerdict* v = candidates.front();
    if (a.round) {
      for (const auto* c : candidates) {
        if (c->verdict.round == *a.round) {
          v = c;
        }
      }
    }
    ReplayRun run;
    run.run_id = a.run_id;
    run.run_date = v->verdict.run_date;
    run.round = v->verdict.round;
    run.short_name = a.short_name;
    run.realized_e2e_pct = *a.e2e_delta_pct;
    for (std::size_t set = 0; set < k_prior_set_count; ++set) {
      run.rank[set] = v->under[set].rank;
      if (v->under[set].expected_e2e_gain_pct) {
        run.error_pct[set] = *v->under[set].expected_e2e_gain_pct - run.realized_e2e_pct;
        sum_error[set] += std::fabs(*run.error_pct[set]);
        ++n_error[set];
      }
    }
    const auto& ra = run.rank[static_cast<std::size_t>(PriorSet::stored)];
    const auto& rc = run.rank[static_cast<std::size_t>(PriorSet::before)];
    if (ra && rc) {
      result.replay_summary.up += *rc < *ra ? 1 : 0;
      result.replay_summary.down += *rc > *ra ? 1 : 0;
      result.replay_summary.same += *rc == *ra ? 1 : 0;
    }
    result.replay.push_back(std::move(run));
  }
  result.replay_summary.runs = static_cast<int>(result.replay.size());
  for (std::size_t set = 0; set < k_prior_set_count; ++set) {
    if (n_error[set] > 0) {
      result.replay_summary.mean_abs_error_pct[set] = sum_error[set] / n_error[set];
    }
  }
}

Result<RescoreResult> rescore_from_store(store::Database& db, const RescoreParams& params)
{
  std::vector<store::RescoreVerdict> verdicts;
  RFDB_TRY_ASSIGN(verdicts, store::load_rescore_verdicts(db, params.run_id));
  std::vector<std::string> dates{params.priors.as_of};
  for (const auto& v : verdicts) {
    const std::string before = day_before(v.run_date);
    if (!before.empty() && std::find(dates.begin() + 1, dates.end(), before) == dates.end()) {
      dates.push_back(before);
    }
  }
  PriorsParams p = params.priors;
  p.bootstrap_resamples = 0; // values only: intervals change no target_eff
  std::vector<PriorsResult> priors;
  RFDB_TRY_ASSIGN(priors, compute_priors_at_dates(db, store::EvidenceFilter{}, p, dates));
  std::map<std::string, PriorsResult, std::less<>> before;
  for (std::size_t i = 1; i < dates.size(); ++i) {
    before.emplace(dates[i], std::move(priors[i]));
  }
  RescoreResult out = rescore(verdicts, priors.front(), before, p.level);
  out.run_id = params.run_id;
  store::EvidenceFilter runs;
  if (params.run_id) {
    runs.run_ids = std::set<std::string, std::less<>>{*params.run_id};
  }
  store::Evidence evidence;
  RFDB_TRY_ASSIGN(evidence, store::load_evidence(db, runs));
  replay_routing(out, evidence.attempts);
  return out;
}

Result<std::optional<RescoreResult>> playbook_replay(store::Database& db, const PriorsResult& today,
                                                     const PlaybookReplayScope& scope)
{
  std::vector<store::ReplayRunRef> candidates;
  RFDB_TRY_ASSIGN(candidates, store::list_replay_win_runs(db, scope.as_of, scope.since));
  std::string day;
  std::vector<store::Attempt> attempts;
  std::vector<store::RescoreVerdict> verdicts;
  std::size_t read = 0;
  std::size_t runs = 0;
  for (const auto& c : candidates) {
    if ((!day.empty() && c.run_date != day) || runs == k_playbook_replay_runs ||
        read == k_playbook_replay_candidates) {
      break;
    }
    if (scope.gfx_key && domain::gfx_key(c.gfx) != *scope.gfx_key) {
      continue;
    }
    ++read;
    std::vector<store::Attempt> run_attempts;
    RFDB_TRY_ASSIGN(run_attempts, store::load_replay_attempts(db, c.run_id));
    if (std::none_of(run_attempts.begin(), run_attempts.end(), is_replay_win)) {
      continue;
    }
    day = c.run_date;
    ++runs;
    std::vector<store::RescoreVerdict> run_verdicts;
    RFDB_TRY_ASSIGN(run_verdicts, store::load_rescore_verdicts(db, c.run_id));
    attempts.insert(attempts.end(), std::make_move_iterator(run_attempts.begin()),
                    std::make_move_iterator(run_attempts.end()));
    verdicts.insert(verdicts.end(), std::make_move_iterator(run_verdicts.begin()),
                    std::make_move_iterator(run_verdicts.end()));
  }
  if (day.empty()) {
    return std::optional<RescoreResult>{};
  }
  // The verdicts in rescore's load order: (run_date, run_id, …); the candidates came newest first.
  std::stable_sort(
      verdicts.begin(), verdicts.end(),
      [](const store::RescoreVerdict& a, const store::RescoreVerdict& b) { return a.run_id < b.run_id; });
  const std::string before_as_of = day_before(day);
  std::map<std::string, PriorsResult, std::less<>> before;
  if (!before_as_of.empty()) {
    PriorsParams p;
    p.as_of = before_as_of;
    p.level = PriorsLevel::op_class_gfx;
    p.bootstrap_resamples = 0; // values only: intervals change no target_eff
    store::EvidenceFilter filter;
    if (!scope.since.empty()) {
      filter.since = scope.since;
    }
    std::vector<PriorsResult> priors;
    RFDB_TRY_ASSIGN(priors, compute_priors_at_dates(db, filter, p, {before_as_of}));
    before.emplace(before_as_of, std::move(priors.front()));
  }
  RescoreResult out = rescore(verdicts, today, before, PriorsLevel::op_class_gfx);
  out.replay_day = day;
  out.runs = static_cast<int>(runs);
  replay_routing(out, attempts);
  return std::optional<RescoreResult>{std::move(out)};
}

} // namespace rfdb::calibrate
