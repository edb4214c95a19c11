// Scope rules, saturated heads, routing quality and the newest run's heads
// (see analysis.hpp; rules in report/findings.hpp).
#include "report/analysis.hpp"

#include "domain/as_of.hpp"
#include "domain/normalize.hpp"
#include "report/digest.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace rfdb::report {

namespace {

// as_of if it is a date, else the newest run date, else the newest imported
// date (a database of imported knowledge only), else "". Imported knowledge
// never moves as_of past the runs.
std::string resolve_as_of(const ReportInput& in, const domain::NewestDate& folded)
{
  domain::NewestDate newest;
  newest.see(folded.value());
  for (const auto& r : in.runs) {
    newest.see(r.run_date);
  }
  for (const auto& a : in.attempts) {
    newest.see(a.run_date);
  }
  if (newest.value().empty()) {
    for (const auto& f : in.imported) {
      newest.see(f.last_seen);
    }
  }
  return domain::resolve_as_of(in.as_of, newest);
}

struct Scope {
  const ReportInput& in;
  const std::string& as_of;

  bool date_ok(const std::string& date) const { return in_scope(date, "", as_of, in.since, std::nullopt); }
  bool gfx_ok(const std::string& gfx) const { return in_scope("", gfx, "", std::nullopt, in.gfx_filter); }
  bool ok(const std::string& date, const std::string& gfx) const
  {
    return in_scope(date, gfx, as_of, in.since, in.gfx_filter);
  }
};

// The input after the scope rules, filtered in place (no copy of the
// history when the caller moves it in).
ReportInput scope_input(ReportInput in, const std::string& as_of)
{
  const Scope s{in, as_of};
  std::set<std::string> dropped;
  for (const auto& r : in.runs) {
    if (!s.ok(r.run_date, r.gfx)) {
      dropped.insert(r.run_id);
    }
  }
  std::erase_if(in.runs, [&](const RunInfo& r) { return dropped.count(r.run_id) > 0; });
  std::erase_if(in.attempts, [&](const AttemptInfo& a) { return !s.ok(a.run_date, a.gfx); });
  std::erase_if(in.heads, [&](const HeadVerdict& h) { return !s.ok(h.run_date, h.gfx); });
  std::erase_if(in.rankings, [&](const RoundRanking& r) { return dropped.count(r.run_id) > 0; });
  // Imported knowledge newer than the default as_of is shown with its own
  // date; only an explicit --as-of leaves it out.
  std::erase_if(in.imported, [&](const ImportedFinding& f) {
    const bool after = !as_of.empty() && !f.last_seen.empty() && f.last_seen > as_of;
    const bool dated_ok = after ? !in.as_of_given : s.date_ok(f.last_seen);
    return !(dated_ok && (!in.gfx_filter || s.gfx_ok(f.gfx)));
  });
  // kb records as imported knowledge (their date: report/kb_lines.hpp).
  std::erase_if(in.kb_records, [&](const KbRecordInfo& r) {
    const bool after = !as_of.empty() && !r.date.empty() && r.date > as_of;
    const bool dated_ok = after ? !in.as_of_given : s.date_ok(r.date);
    return !(dated_ok && (!in.gfx_filter || s.gfx_ok(r.gfx)));
  });
  in.as_of = as_of;
  return in;
}

// The newest run in scope by (date, id), "" without runs.
std::string newest_scoped_run(const ReportInput& s)
{
  std::pair<std::string, std::string> best;
  for (const auto& r : s.runs) {
    best = std::max(best, std::make_pair(r.run_date, r.run_id));
  }
  return best.second;
}

// Fold the heads of `s` into `digest` one run at a time (in their order
// within a run).
void fold_heads(const ReportInput& s, HeadDigest& digest)
{
  std::vector<const HeadVerdict*> order;
  order.reserve(s.heads.size());
  for (const auto& h : s.heads) {
    order.push_back(&h);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const HeadVerdict* x, const HeadVerdict* y) { return x->run_id < y->run_id; });
  for (std::size_t i = 0; i < order.size();) {
    std::vector<HeadVerdict> run;
    const std::string& id = order[i]->run_id;
    for (; i < order.size() && order[i]->run_id == id; ++i) {
      run.push_back(*order[i]);
    }
    digest.add_run(run);
  }
}

void judge(RoutingDisagreement& d)
{
  std::optional<double> x;
  std::optional<double> y;
  if (d.by_pct.best_e2e_pct && d.by_gain.best_e2e_pct) {
    d.basis = "e2e";
    x = d.by_pct.best_e2e_pct;
    y = d.by_gain.best_e2e_pct;
  } else if (d.by_pct.best_isolated && d.by_gain.best_isolated) {
    d.basis = "isolated";
    x = d.by_pct.best_isolated;
    y = d.by_gain.best_isolated;
  }
  if (!x || !y) {
    d.winner = "undecided";
  } else {
    d.winner = *x > *y ? "pct" : *y > *x ? "gain" : "tie";
  }
}

RoutingSummary routing_quality(const ReportInput& s, const AttemptDigest& digest)
{
  RoutingSummary out;
  out.rounds = s.agreed_rounds;
  for (const auto& r : s.rankings) {
    if (r.top_by_pct.empty() || r.top_by_gain.empty()) {
      continue;
    }
    ++out.rounds;
    if (r.top_by_pct == r.top_by_gain) {
      continue;
    }
    RoutingDisagreement d{r,
                          "",
                          digest.realized(r.run_id, r.top_by_pct, r.run_index),
                          digest.realized(r.run_id, r.top_by_gain, r.run_index),
                          "",
                          ""};
    judge(d);
    out.disagreements.push_back(std::move(d));
  }
  // The run dates of the disagreeing rounds ("" for a run not in scope).
  std::unordered_map<std::string_view, std::vector<RoutingDisagreement*>> by_run;
  for (auto& d : out.disagreements) {
    by_run[d.ranking.run_id].push_back(&d);
  }
  for (const auto& r : s.runs) {
    if (const auto it = by_run.find(r.run_id); it != by_run.end()) {
      for (auto* d : it->second) {
        d->run_date = r.run_date;
      }
    }
  }
  std::sort(out.disagreements.begin(), out.disagreements.end(),
            [](const RoutingDisagreement& a, const RoutingDisagreement& b) {
              return std::forward_as_tuple(b.run_date, a.ranking.run_id, a.ranking.round) <
                     std::forward_as_tuple(a.run_date, b.ranking.run_id, b.ranking.round);
            });
  return out;
}

} // namespace

bool in_scope(const std::string& date, const std::string& gfx, const std::string& as_of,
              const std::optional<std::string>& since, const std::optional<std::string>& gfx_filter)
{
  const bool date_ok = date.empty() ? !since : (as_of.empty() || date <= as_of) && (!since || date >= *since);
  return date_ok && (!gfx_filter || domain::gfx_key(gfx) == domain::gfx_key(*gfx_filter));
}

Analysis analyze(ReportInput input)
{
  Analysis a;
  std::shared_ptr<AttemptDigest> digest = std::move(input.attempt_digest);
  std::shared_ptr<HeadDigest> heads = std::move(input.head_digest);
  if (!digest) {
    digest = std::make_shared<AttemptDigest>();
  }
  a.as_of = resolve_as_of(input, digest->newest);
  a.scoped = scope_input(std::move(input), a.as_of);
  for (const auto& at : a.scoped.attempts) {
    digest->add(at);
  }
  digest->seal();
  a.attempts = digest->attempts;
  a.findings = detail::findings_from_lines(std::move(digest->lines), a.scoped, a.as_of);
  a.evicted = apply_line_cap(a.findings, k_line_cap);
  a.cautions = detail::finish_cautions(std::move(digest->cautions), a.scoped);
  a.methods = build_method_notes(a.scoped);
  a.run_cautions = digest->keep_all_cautions
                       ? static_cast<std::size_t>(
                             std::count_if(a.cautions.begin(), a.cautions.end(),
                                           [](const Caution& c) { return !is_imported_caution(c.kind); }))
                       : digest->distinct_run_cautions;
  if (!heads) {
    heads = std::make_shared<HeadDigest>();
    heads->watch(newest_scoped_run(a.scoped));
  }
  fold_heads(a.scoped, *heads);
  a.heads = heads->heads;
  a.saturated = heads->saturated_groups();
  a.saturated_heads = heads->saturated_heads;
  a.disputed = heads->disputed_groups();
  a.disputed_heads = heads->disputed_heads;
  a.routing = routing_quality(a.scoped, *digest);
  std::tie(a.newest_run_id, a.newest_heads) = heads->newest(!a.scoped.runs.empty());
  a.digest = std::move(digest);
  return a;
}

} // namespace rfdb::report
