// Markdown rendering of the backend playbook (sections in report/playbook.hpp).
#include "report/playbook.hpp"

#include "domain/knowledge_kind.hpp"
#include "domain/noise.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "report/analysis.hpp"
#include "report/calibration.hpp"
#include "report/playbook_detail.hpp"
#include "report/works.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace rfdb::report {

namespace detail {

std::string plural(std::size_t n, std::string_view one, std::string_view many)
{
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string table(const std::vector<std::string>& header, const std::vector<std::string>& align,
                  const std::vector<std::vector<std::string>>& rows)
{
  std::string out = "| " + util::join(header, " | ") + " |\n|" + util::join(align, "|") + "|";
  for (const auto& r : rows) {
    out += "\n| " + util::join(r, " | ") + " |";
  }
  return out;
}

} // namespace detail

namespace {

using namespace detail;

// Imported findings that count as evidence (independent, active, in scope):
// our own cards ingested back are not among them, so they cannot change a
// single byte of the report.
// Imported findings the playbook shows somewhere: on a What works line (our
// own cards that only restate a line are not), in Methods and seams, or as a
// Caution.
std::size_t imported_used(const Analysis& a)
{
  std::set<std::string_view> used;
  for (const auto* list : {&a.findings, &a.evicted}) {
    for (const auto& f : *list) {
      used.insert(f.imported_identities.begin(), f.imported_identities.end());
    }
  }
  for (const auto& n : a.methods) {
    used.insert(n.identities.begin(), n.identities.end());
  }
  for (const auto& c : a.cautions) {
    if (c.kind == CautionKind::imported_negative) {
      used.insert(c.short_name); // an imported caution's short_name is the finding's identity
    }
  }
  return used.size();
}

// The newest date of imported knowledge shown that is after as_of, or "".
std::string newest_imported_after(const Analysis& a)
{
  std::string newest;
  for (const auto* list : {&a.findings, &a.evicted}) {
    for (const auto& f : *list) {
      if (!f.imported_last_seen.empty() && f.imported_last_seen > a.as_of && f.imported_last_seen > newest) {
        newest = f.imported_last_seen;
      }
    }
  }
  return a.as_of.empty() ? std::string() : newest;
}

bool is_empty(const Analysis& a)
{
  return a.scoped.runs.empty() && a.attempts == 0 && a.heads == 0 && imported_used(a) == 0;
}

// At most k_list_shown names, then "and N more" (a history of thousands of
// runs names hundreds of models).
constexpr std::size_t k_list_shown = 8;
std::string capped_list(const std::set<std::string>& names)
{
  std::vector<std::string> shown;
  for (const auto& n : names) {
    if (shown.size() == k_list_shown) {
      break;
    }
    shown.push_back(n);
  }
  std::string out = md_text(util::join(shown, ", "));
  if (names.size() > shown.size()) {
    out += fmt::format(" and {} more (`rfdb runs`)", names.size() - shown.size());
  }
  return out;
}

// Runs named by the provenance's noise sentence (the rest: `rfdb show RUN`).
constexpr std::size_t k_noise_runs_shown = 4;

// The provenance's noise paragraph (docs/playbook.md, "Noise measured per
// run"): which band judged the runs' e2e deltas, with the runs whose own
// measured spread was wider than the fixed band (widest first, then newest).
// "" without runs.
std::string noise_text(const std::vector<RunInfo>& runs)
{
  if (runs.empty()) {
    return {};
  }
  std::vector<const RunInfo*> wider;
  std::size_t measured = 0;
  std::optional<double> lo;
  std::optional<double> hi;
  for (const auto& r : runs) {
    if (!r.measured_spread_pct) {
      continue;
    }
    ++measured;
    lo = lo ? std::min(*lo, *r.measured_spread_pct) : *r.measured_spread_pct;
    hi = hi ? std::max(*hi, *r.measured_spread_pct) : *r.measured_spread_pct;
    if (domain::run_e2e_band(r.measured_spread_pct).source == domain::BandSource::measured) {
      wider.push_back(&r);
    }
  }
  std::string out =
      fmt::format("Noise: e2e deltas are judged against the fixed \u00b1{:g} % band, or a run's own "
                  "measured throughput spread when wider; ",
                  domain::k_e2e_noise_pct);
  if (measured == 0) {
    return out + "no run recorded a spread.";
  }
  out += fmt::format("{} measured a spread ({}", plural(measured, "run", "runs"), fixed(*lo, 2));
  out += *lo == *hi ? " %)" : fmt::format("\u2013{} %)", fixed(*hi, 2));
  if (wider.empty()) {
    return out + ", none wider than the fixed band.";
  }
  std::stable_sort(wider.begin(), wider.end(), [](const RunInfo* x, const RunInfo* y) {
    return std::tie(*y->measured_spread_pct, y->run_date, y->run_id) <
           std::tie(*x->measured_spread_pct, x->run_date, x->run_id);
  });
  std::vector<std::string> named;
  for (std::size_t i = 0; i < wider.size() && i < k_noise_runs_shown; ++i) {
    named.push_back(
        fmt::format("{} {} %", md_code(wider[i]->run_id), fixed(*wider[i]->measured_spread_pct, 2)));
  }
  out += fmt::format(", {} wider: {}", wider.size(), util::join(named, ", "));
  if (wider.size() > named.size()) {
    out += fmt::format(" and {} more", wider.size() - named.size());
  }
  return out + " (`rfdb show RUN` prints the samples and the run's stated limitations).";
}

std::string provenance(const Analysis& a)
{
  const auto& s = a.scoped;
  const std::string as_of = a.as_of.empty() ? std::string() : fmt::format("; as of {}", a.as_of);
  // Thousands of runs name a few GPUs: each distinct spelling is keyed
  // once; of the dates only the first and last are kept.
  std::set<std::string> models;
  std::set<std::string_view> gfx_spellings;
  std::optional<std::string_view> first;
  std::optional<std::string_view> last;
  for (const auto& r : s.runs) {
    if (!r.model.empty()) {
      models.insert(r.model);
    }
    gfx_spellings.insert(r.gfx);
    if (!r.run_date.empty()) {
      first = first ? std::min(*first, std::string_view(r.run_date)) : r.run_date;
      last = last ? std::max(*last, std::string_view(r.run_date)) : r.run_date;
    }
  }
  std::set<std::string> gpus;
  for (const std::string_view g : gfx_spellings) {
    gpus.insert(domain::gfx_key(g));
  }
  const std::size_t imported = imported_used(a);
  std::string line;
  if (s.runs.empty() && imported == 0) {
    line = fmt::format("Evidence: none yet (no runs, no imported findings){}.", as_of);
  } else {
    const std::string range = !first            ? std::string("undated")
                              : *first == *last ? std::string(*first)
                                                : fmt::format("{} to {}", *first, *last);
    line = s.runs.empty()
               ? "Evidence: no runs"
               : fmt::format("Evidence: {} of {}{} on {} ({}), {}", plural(s.runs.size(), "run", "runs"),
                             plural(models.size(), "model", "models"),
                             models.empty() ? std::string() : " (" + capped_list(models) + ")",
                             plural(gpus.size(), "GPU", "GPUs"), capped_list(gpus), range);
    line += fmt::format("; {}{}.", plural(imported, "imported finding", "imported findings"), as_of);
    if (const std::string newer = newest_imported_after(a); !newer.empty()) {
      line += fmt::format(" Imported knowledge dated after it (up to {}) is shown with its own date.", newer);
    }
  }
  if (s.gfx_filter || s.since) {
    std::vector<std::string> scope;
    if (s.gfx_filter) {
      scope.push_back(fmt::format("{} only", md_text(domain::gfx_key(*s.gfx_filter))));
    }
    if (s.since) {
      scope.push_back(fmt::format("evidence since {}", md_text(*s.since)));
    }
    line += fmt::format(" Scope: {}.", util::join(scope, ", "));
  }
  if (const std::string noise = noise_text(s.runs); !noise.empty()) {
    line += "\n\n" + noise;
  }
  return line;
}

// One row per key: class rows always, gfx rows of the --gfx scope only.
std::string priors_table(const calibrate::PriorsResult& p, const std::optional<std::string>& gfx_filter)
{
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : p.priors) {
    if (r.gfx && gfx_filter && domain::gfx_key(*r.gfx) != domain::gfx_key(*gfx_filter)) {
      continue;
    }
    const std::string interval =
        r.interval ? fmt::format("[{}, {}]", fixed(r.interval->lo, 4), fixed(r.interval->hi, 4))
                   : (r.n == 0 || r.interval_reason.empty() ? "-" : md_text(r.interval_reason));
    rows.push_back({md_text(calibrate::row_key(r)), fixed(r.seed, 4), fixed(r.target_eff, 4),
                    std::to_string(r.n), std::to_string(r.runs), std::to_string(r.measured),
                    std::to_string(r.analytic), interval, std::to_string(r.contradictions),
                    r.last_seen.value_or("-"), calibrate::to_string(r.source)});
  }
  return table({"key", "seed", "target_eff", "n", "runs", "measured", "analytic", "interval",
                "contradictions", "last_seen", "source"},
               {"---", "---:", "---:", "---:", "---:", "---:", "---:", "---", "---:", "---", "---"}, rows);
}

// The priors' attempts dated in their window (--since … as-of): an
// --as-of before the newest run leaves the later attempts out, undated runs
// are never in it, and the sentence counts what the priors were computed
// from.
int attempts_in_window(const calibrate::PriorsResult& p)
{
  int n = p.attempts;
  for (const auto& e : p.excluded) {
    if (e.reason == calibrate::ExclusionReason::bad_run_date ||
        e.reason == calibrate::ExclusionReason::after_as_of ||
        e.reason == calibrate::ExclusionReason::before_since) {
      n -= e.count;
    }
  }
  return n;
}

// " N observations on measured rooflines from rocprof-compute < 3.5 on gfx950
// left out (HBM under-count) …" when the priors left any out; "" otherwise.
std::string biased_profiler_sentence(const calibrate::PriorsResult& p)
{
  int n = 0;
  for (const auto& e : p.excluded) {
    if (e.reason == calibrate::ExclusionReason::biased_profiler) {
      n += e.count;
    }
  }
  if (n == 0) {
    return {};
  }
  return fmt::format(" {} on measured rooflines from rocprof-compute < {} on {} left out (HBM under-count, "
                     "`profiler_hbm_undercount`; `rfdb priors --include-biased-profiler` counts {}).",
                     plural(static_cast<std::size_t>(n), "observation", "observations"),
                     domain::k_hbm_fixed_profiler_version, domain::k_hbm_undercount_gfx,
                     n == 1 ? "it" : "them");
}

Blocks priors_section(const Analysis& a)
{
  const auto& p = a.scoped.priors;
  if (p.priors.empty()) {
    std::vector<std::string> seeds;
    for (const auto op : domain::k_seeded_op_classes) {
      seeds.push_back(fmt::format("{} {}", op, fixed(domain::seed_target_eff(op).value_or(0.0), 3)));
    }
    return {fmt::format("No calibrated priors yet; the seeds apply: {}.", util::join(seeds, ", "))};
  }
  const std::string as_of = p.as_of ? fmt::format("as of {}; ", *p.as_of) : std::string();
  return {
      fmt::format(
          "Seed vs calibrated target_eff (fraction of roofline) per op class, and per gfx{}, "
          "with the numbers `rfdb priors --by class,gfx` prints ({}{}, {}). A key without "
          "observations shows its parent's value (source parent); the interval is the 90 % "
          "bootstrap interval over runs (\"one run\": a single run's observations give "
          "none); measured / analytic count the observations made on measured and on "
          "analytic predictions.",
          a.scoped.gfx_filter ? " of this scope" : " where data allow", as_of,
          plural(static_cast<std::size_t>(attempts_in_window(p)), "attempt", "attempts"),
          plural(static_cast<std::size_t>(p.observations), "observation", "observations") +
              (p.censored > 0
                   ? ", " + plural(static_cast<std::size_t>(p.censored), "censored head", "censored heads") +
                         (p.censored == 1 ? " (never tried: at least its roofline_pct)"
                                          : " (never tried: at least their roofline_pct)")
                   : std::string())) +
          biased_profiler_sentence(p),
      priors_table(p, a.scoped.gfx_filter)};
}

// The detected shifts the priors above respected (calibrate/shifts.hpp), newest first.
Blocks shifts_section(const Analysis& a)
{
  const auto& p = a.scoped.priors;
  const std::string series = "`rfdb query efficiency_series -p op_class=CLASS [-p gfx=GFX]`";
  if (p.params.shifts.empty()) {
    return {fmt::format(
        "No shift: no class or class \u00d7 gfx has a step in its runs' achieved efficiency "
        "e, and no class \u00d7 regime in its e2e transfer ratio (each window \u2265 {} runs); {} "
        "prints a series.",
        domain::k_shift_min_runs, series)};
  }
  std::vector<const calibrate::Shift*> newest;
  for (const auto& s : p.params.shifts) {
    newest.push_back(&s);
  }
  std::stable_sort(newest.begin(), newest.end(), [](const auto* x, const auto* y) {
    return std::tie(x->after_date, x->after_run) > std::tie(y->after_date, y->after_run);
  });
  std::vector<std::vector<std::string>> rows;
  for (const auto* s : newest) {
    if (rows.size() == k_shift_rows) {
      break;
    }
    rows.push_back({md_code(calibrate::shift_key(*s)),
                    s->measure == calibrate::ShiftMeasure::e2e_transfer ? "e2e transfer ratio" : "e",
                    fmt::format("{} \u2192 {}", fixed(s->before_median, 3), fixed(s->after_median, 3)),
                    fmt::format("{:+.3f}", calibrate::shift_step(*s)),
                    fmt::format("{} / {}", s->before_runs, s->after_runs),
                    fmt::format("{} ({}) \u2192 {} ({})", md_code(s->before_run), s->before_date,
                                md_code(s->after_run), s->after_date),
                    s->attribution.empty() ? "no stack change known" : md_text(s->attribution)});
  }
  Blocks out{fmt::format(
                 "Steps over the runs in date order (docs/estimator.md, Shifts) in a class's or class \u00d7 "
                 "gfx's achieved efficiency e, and in a class \u00d7 regime's e2e transfer ratio: a "
                 "permutation-tested change point with both windows' medians outside each other's 90 % "
                 "interval. Evidence from before a key's newest shift in e weighs \u00d7 {:g} in the priors "
                 "above; `rfdb priors --since-shift` leaves it out. A shift in the e2e transfer ratio is "
                 "reported only.",
                 p.params.before_shift_weight),
             table({"key", "measure", "median before \u2192 after", "step", "runs before / after",
                    "between runs", "stack change"},
                   {"---", "---", "---:", "---:", "---:", "---", "---"}, rows)};
  if (newest.size() > rows.size()) {
    out.push_back(
        fmt::format("The {} newest shifts are shown; {} more: `rfdb priors --format json` (`shifts`).",
                    rows.size(), newest.size() - rows.size()));
  }
  out.push_back(fmt::format("A key's series: {}.", series));
  return out;
}

std::string times(const std::optional<double>& v)
{
  return v ? fixed(*v, 3) + "\u00d7" : "-";
}

std::string realized_text(const RealizedPick& p, const std::string& basis)
{
  if (basis == "e2e" || (basis.empty() && p.best_e2e_pct)) {
    return p.best_e2e_pct ? e2e_range_text(p.best_e2e_pct, p.best_e2e_pct) + " e2e" : "-";
  }
  if (p.best_isolated) {
    return times(p.best_isolated) + " isolated";
  }
  return "not attempted";
}

// "`kernel` (26.45 % GPU, expected +0.59 %)", parts present only when known.
std::string pick_cell(const std::string& kernel, const std::optional<double>& pct,
                      const std::optional<double>& gain)
{
  std::vector<std::string> parts;
  if (pct) {
    parts.push_back(fixed(*pct, 2) + " % GPU");
  }
  if (gain) {
    parts.push_back("expected " + e2e_range_text(gain, gain));
  }
  return parts.empty() ? md_code(kernel) : fmt::format("{} ({})", md_code(kernel), util::join(parts, ", "));
}

Blocks routing_section(const Analysis& a)
{
  const auto& r = a.routing;
  if (r.rounds == 0) {
    return {"No ranked rounds yet."};
  }
  if (r.disagreements.empty()) {
    return {fmt::format("Ranking by pct_gpu_time and by expected gain agreed on the top kernel in all {}.",
                        plural(static_cast<std::size_t>(r.rounds), "round", "rounds"))};
  }
  std::map<std::string, std::size_t> wins;
  std::vector<std::vector<std::string>> rows;
  static const std::map<std::string, std::string> k_winner = {{"pct", "pct_gpu_time pick"},
                                                              {"gain", "expected-gain pick"},
                                                              {"tie", "tie"},
                                                              {"undecided", "undecided"}};
  for (const auto& d : r.disagreements) {
    ++wins[d.winner];
    if (rows.size() == k_routing_rows) {
      continue; // counted above, not shown
    }
    rows.push_back({md_code(d.ranking.run_id),
                    d.ranking.round_label.empty() ? std::to_string(d.ranking.round) : d.ranking.round_label,
                    pick_cell(d.by_pct.short_name, d.ranking.top_by_pct_pct_gpu_time,
                              d.ranking.top_by_pct_expected_gain_pct),
                    pick_cell(d.by_gain.short_name, d.ranking.top_by_gain_pct_gpu_time,
                              d.ranking.top_by_gain_expected_gain_pct),
                    realized_text(d.by_pct, d.basis), realized_text(d.by_gain, d.basis),
                    k_winner.at(d.winner)});
  }
  const std::string summary =
      fmt::format("Ranking by pct_gpu_time and by expected gain disagreed on the top kernel in {} of {}; the "
                  "pct_gpu_time pick "
                  "realized more in {}, the expected-gain pick in {}, {} tied and {} undecided (e2e where "
                  "both picks have it, "
                  "else isolated).",
                  r.disagreements.size(), plural(static_cast<std::size_t>(r.rounds), "round", "rounds"),
                  wins["pct"], wins["gain"], wins["tie"], wins["undecided"]);
  Blocks out{summary, table({"run", "round", "top by pct_gpu_time", "top by expected gain",
                             "realized by pct pick", "realized by gain pick", "realized more"},
                            {"---", "---:", "---", "---", "---:", "---:", "---"}, rows)};
  if (r.disagreements.size() > rows.size()) {
    out.push_back(
        fmt::format("The {} newest disagreements are shown; {} more: `rfdb query playbook_disagreements`.",
                    rows.size(), r.disagreements.size() - rows.size()));
  }
  return out;
}

std::string signed_pct(const std::optional<double>& v)
{
  return v ? fmt::format("{:+.2f}", *v) : "-";
}

std::string rank_text(const std::optional<int>& v)
{
  return v ? std::to_string(*v) : "-";
}

// "## Would calibration have changed routing?" (docs/playbook.md): the routing replay of the
// newest day with a measured kernel win (calibrate::playbook_replay), under a and c.
Blocks replay_section(const Analysis& a)
{
  const auto& replay = a.scoped.routing_replay;
  if (!replay) {
    return {"No run in scope has a measured kernel win yet (an e2e gain beyond the noise band whose "
            "parity held and that engaged): nothing to replay. `rfdb rescore` rescores every verdict."};
  }
  const auto& r = *replay;
  constexpr auto a_set = static_cast<std::size_t>(calibrate::PriorSet::stored);
  constexpr auto c_set = static_cast<std::size_t>(calibrate::PriorSet::before);
  const std::string before = r.verdicts.empty() ? std::string() : r.verdicts.front().before_as_of;
  Blocks out{fmt::format(
      "Replayed: {} of {}, the newest day with a measured kernel win. Each run's winner (its best "
      "realized e2e win) is ranked by expected gain among its round's heads under the `target_eff` the "
      "run used (a) and under the priors by class \u00d7 gfx as of {} (c: what rfdb would have told "
      "the run; docs/rescore.md).",
      plural(static_cast<std::size_t>(r.runs), "run", "runs"), r.replay_day,
      before.empty() ? "the day before" : before)};
  if (r.replay.empty()) {
    out.push_back("No winner is a banded head of its round, so no rank is compared.");
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& run : r.replay) {
      rows.push_back(
          {md_code(run.run_id), run.round, md_code(run.short_name),
           fmt::format("{:+.2f}", run.realized_e2e_pct),
           fmt::format("{} \u2192 {}", rank_text(run.rank[a_set]), rank_text(run.rank[c_set])),
           fmt::format("{} / {}", signed_pct(run.error_pct[a_set]), signed_pct(run.error_pct[c_set]))});
    }
    out.push_back(table(
        {"run", "round", "winner", "realized e2e %", "rank a \u2192 c", "expected \u2212 realized % a / c"},
        {"---", "---", "---", "---:", "---:", "---:"}, rows));
    const auto& s = r.replay_summary;
    const auto mean = [&](std::size_t set) {
      return s.mean_abs_error_pct[set] ? fmt::format("{:.2f} %", *s.mean_abs_error_pct[set])
                                       : std::string("-");
    };
    out.push_back(fmt::format("Under c the winner ranks higher in {}, lower in {} and the same in {} of {}; "
                              "mean |expected \u2212 realized| a {}, c {}.",
                              s.up, s.down, s.same, plural(static_cast<std::size_t>(s.runs), "run", "runs"),
                              mean(a_set), mean(c_set)));
  }
  out.push_back(fmt::format(
      "Among these runs' verdicts, c changes {} (of them {} into or out of saturated), "
      "{} and {}. Every run and every changed decision: `rfdb rescore --by class,gfx`.",
      plural(static_cast<std::size_t>(r.before.band), "band", "bands"), r.before.saturated,
      plural(static_cast<std::size_t>(r.before.rank), "head rank", "head ranks"),
      plural(static_cast<std::size_t>(r.before.skip), "skip-gate decision", "skip-gate decisions")));
  return out;
}

std::string ratio_text(const HeadVerdict& h)
{
  return fmt::format("{} / {}", h.roofline_pct ? fixed(*h.roofline_pct, 3) : "-",
                     h.target_eff ? fixed(*h.target_eff, 3) : "-");
}

// rfdb's figure beside the engine's for a disputed head:
// "0.614 / 0.500 = 1.228" and "1.629×, actionable, compute".
std::string rfdb_ratio_text(const HeadVerdict& h)
{
  const std::string ratio = h.roofline_pct && h.target_eff && *h.target_eff > 0.0
                                ? " = " + fixed(*h.roofline_pct / *h.target_eff, 3)
                                : std::string();
  return ratio_text(h) + ratio;
}

std::string engine_text(const HeadVerdict& h)
{
  std::vector<std::string> parts{h.headroom_ratio ? fixed(*h.headroom_ratio, 3) + "\u00d7" : "-"};
  parts.push_back(h.guidance.empty() ? "no guidance" : md_text(h.guidance));
  if (!h.observed_limit.empty()) {
    parts.push_back("limit " + md_text(h.observed_limit));
  }
  return util::join(parts, ", ");
}

Blocks saturated_section(const Analysis& a)
{
  Blocks out{
      "Heads (pct_gpu_time \u2265 5) whose latest verdict is saturated are rerouted to byte reduction: fuse "
      "a neighbour away, stop reading unused experts, change the layout, or lower the precision. The "
      "verdict follows an attempt's prediction precedence (a measured baseline roofline outranks the "
      "analytic one); the newest saturated head per kernel class \u00d7 gfx is shown."};
  if (!a.disputed.empty()) {
    out.front() += fmt::format(
        " A measured head whose own engine disputes the band (headroom_ratio \u2265 {:g} against its "
        "empirical ceiling, or guidance actionable) is listed under disputed with both figures and "
        "is not rerouted.",
        domain::k_disputed_headroom_ratio);
  }
  if (a.saturated.empty() && a.disputed.empty()) {
    out.push_back("No saturated heads yet.");
    return out;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : a.saturated) {
    const HeadVerdict& h = g.newest;
    std::vector<std::string> levers;
    for (const auto& l : h.byte_reduction_levers) {
      levers.push_back(md_text(l));
    }
    rows.push_back({md_text(h.op_class.empty() ? "unknown" : h.op_class), md_text(domain::gfx_key(h.gfx)),
                    md_code(h.run_id), md_code(h.short_name), fixed(h.pct_gpu_time, 2) + " %", ratio_text(h),
                    md_text(h.source_kind), levers.empty() ? "none listed" : util::join(levers, "; "),
                    h.followed_by_byte_reduction ? "yes" : "no", std::to_string(g.runs)});
  }
  if (rows.empty()) {
    out.emplace_back("No undisputed saturated heads: none is rerouted.");
  } else {
    out.push_back(
        table({"class", "gfx", "newest run", "kernel", "pct_gpu_time", "roofline_pct / target_eff", "verdict",
               "byte-reduction levers listed", "byte-reduction attempt followed", "runs saturated"},
              {"---", "---", "---", "---", "---:", "---:", "---", "---", "---", "---:"}, rows));
  }
  if (!a.disputed.empty()) {
    out.emplace_back("Disputed (rfdb's band says saturated, the measuring engine says headroom is left; not "
                     "rerouted: re-measure or tune against the engine's ceiling first):");
    rows.clear();
    for (const auto& g : a.disputed) {
      const HeadVerdict& h = g.newest;
      rows.push_back({md_text(h.op_class.empty() ? "unknown" : h.op_class), md_text(domain::gfx_key(h.gfx)),
                      md_code(h.run_id), md_code(h.short_name), fixed(h.pct_gpu_time, 2) + " %",
                      rfdb_ratio_text(h), engine_text(h), std::to_string(g.runs)});
    }
    out.push_back(
        table({"class", "gfx", "newest run", "kernel", "pct_gpu_time", "rfdb: roofline_pct / target_eff",
               "engine: headroom_ratio, guidance, limit", "runs disputed"},
              {"---", "---", "---", "---", "---:", "---:", "---", "---:"}, rows));
  }
  const std::size_t shown = a.saturated.size() + a.disputed.size();
  if (a.saturated_heads + a.disputed_heads > shown) {
    std::string line =
        fmt::format("{} saturated head verdicts in all; every one: `rfdb query playbook_saturated_heads`.",
                    a.saturated_heads + a.disputed_heads);
    if (a.disputed_heads > 0) {
      line += fmt::format(" Its `disputed` column marks the {} disputed.", a.disputed_heads);
    }
    out.push_back(std::move(line));
  }
  return out;
}

Blocks glance_section(const Analysis& a)
{
  if (a.newest_heads.empty()) {
    return {"No head verdicts yet."};
  }
  const HeadVerdict& first = a.newest_heads.front();
  Blocks out{fmt::format(
      "Run {} ({}, {}). Each axis is split at its routing threshold: x = roofline_pct / target_eff, "
      "with the saturated band edge {:g} at the middle and 1.0 at the right edge; y = pct_gpu_time, with "
      "the head threshold {:g} % at the middle and 50 % or more at the top. Top right: saturated heads, "
      "reduce bytes; top left: heads with headroom, tune; bottom: low priority. A head without a verdict is "
      "not plotted.",
      md_code(a.newest_run_id), first.run_date.empty() ? "undated" : first.run_date,
      md_text(domain::gfx_key(first.gfx)), domain::k_saturated_edge, domain::k_head_min_pct)};
  if (std::any_of(a.newest_heads.begin(), a.newest_heads.end(),
                  [](const HeadVerdict& h) { return head_route(h) == k_disputed_route; })) {
    out.front() += " A disputed head (a measured saturated band its own engine disputes) is plotted as "
                   "\"KERNEL disputed\" and not rerouted.";
  }
  if (std::string chart = render_quadrant_chart(a); !chart.empty()) {
    chart.pop_back();
    out.push_back(std::move(chart));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : a.newest_heads) {
    rows.push_back({md_code(h.short_name), fixed(h.pct_gpu_time, 2) + " %", ratio_text(h),
                    md_text(h.headroom_class.empty() ? "unknown" : h.headroom_class), md_text(h.source_kind),
                    head_route(h)});
  }
  out.push_back(
      table({"kernel", "pct_gpu_time", "roofline_pct / target_eff", "headroom_class", "verdict", "route"},
            {"---", "---:", "---:", "---", "---", "---"}, rows));
  return out;
}

} // namespace

std::string render_playbook(const ReportInput& input)
{
  return render_playbook(analyze(input));
}

std::string render_playbook(const Analysis& a)
{
  Blocks doc{std::string(k_playbook_headings[0]), provenance(a)};
  if (is_empty(a)) {
    doc.push_back(
        "No evidence yet: ingest a run with `rfdb ingest EVAL_DIR` (or legacy cards and playbook lines) "
        "and regenerate this playbook.");
  }
  const std::vector<Blocks> sections{priors_section(a),   shifts_section(a),  calibration_section(a),
                                     routing_section(a),  replay_section(a),  what_works_section(a),
                                     cautions_section(a), methods_section(a), saturated_section(a),
                                     glance_section(a)};
  for (std::size_t i = 0; i < sections.size(); ++i) {
    doc.push_back(std::string(k_playbook_headings[i + 1]));
    doc.insert(doc.end(), sections[i].begin(), sections[i].end());
  }
  return util::join(doc, "\n\n") + "\n";
}

} // namespace rfdb::report