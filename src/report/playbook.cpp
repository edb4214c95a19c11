// Markdown rendering of the backend playbook (sections in report/playbook.hpp).
#include "report/playbook.hpp"

#include "report/playbook_detail.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rfdb::report {

namespace detail {

std::string join(const std::vector<std::string>& items, std::string_view sep)
{
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : std::string(sep)) + items[i];
  }
  return out;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many)
{
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string table(const std::vector<std::string>& header, const std::vector<std::string>& align,
                  const std::vector<std::vector<std::string>>& rows)
{
  std::string out = "| " + join(header, " | ") + " |\n|" + join(align, "|") + "|";
  for (const auto& r : rows) {
    out += "\n| " + join(r, " | ") + " |";
  }
  return out;
}

} // namespace detail

namespace {

using namespace detail;

// Legacy lever text can run to kilobytes; the playbook line shows its start
// (the card keeps all of it).
constexpr std::size_t k_lever_chars = 160;

// Imported findings that count as evidence (independent, active, in scope):
// our own cards ingested back are not among them, so they cannot change a
// single byte of the report.
std::size_t imported_used(const Analysis& a)
{
  std::size_t n = 0;
  for (const auto* list : {&a.findings, &a.evicted}) {
    for (const auto& f : *list) {
      n += f.imported_identities.size();
    }
  }
  return n;
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
  return a.scoped.runs.empty() && a.scoped.attempts.empty() && a.scoped.heads.empty() &&
         imported_used(a) == 0;
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
  std::string out = md_text(join(shown, ", "));
  if (names.size() > shown.size()) {
    out += fmt::format(" and {} more (`rfdb runs`)", names.size() - shown.size());
  }
  return out;
}

std::string provenance(const Analysis& a)
{
  const auto& s = a.scoped;
  const std::string as_of = a.as_of.empty() ? std::string() : fmt::format("; as of {}", a.as_of);
  std::set<std::string> models;
  std::set<std::string> gpus;
  std::set<std::string> dates;
  for (const auto& r : s.runs) {
    if (!r.model.empty()) {
      models.insert(r.model);
    }
    gpus.insert(normalize_gfx(r.gfx));
    if (!r.run_date.empty()) {
      dates.insert(r.run_date);
    }
  }
  const std::size_t imported = imported_used(a);
  std::string line;
  if (s.runs.empty() && imported == 0) {
    line = fmt::format("Evidence: none yet (no runs, no imported findings){}.", as_of);
  } else {
    const std::string range = dates.empty() ? "undated"
                              : *dates.begin() == *dates.rbegin()
                                  ? *dates.begin()
                                  : fmt::format("{} to {}", *dates.begin(), *dates.rbegin());
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
      scope.push_back(fmt::format("{} only", md_text(normalize_gfx(*s.gfx_filter))));
    }
    if (s.since) {
      scope.push_back(fmt::format("evidence since {}", md_text(*s.since)));
    }
    line += fmt::format(" Scope: {}.", join(scope, ", "));
  }
  return line;
}

// One row per key: class rows always, gfx rows of the --gfx scope only.
std::string priors_table(const calibrate::PriorsResult& p, const std::optional<std::string>& gfx_filter)
{
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : p.priors) {
    if (r.gfx && gfx_filter && normalize_gfx(*r.gfx) != normalize_gfx(*gfx_filter)) {
      continue;
    }
    const std::string interval =
        r.interval ? fmt::format("[{}, {}]", fixed(r.interval->lo, 4), fixed(r.interval->hi, 4)) : "-";
    rows.push_back({md_text(calibrate::row_key(r)), fixed(r.seed, 4), fixed(r.target_eff, 4),
                    std::to_string(r.n), interval, std::to_string(r.contradictions),
                    r.last_seen.value_or("-"), calibrate::to_string(r.source)});
  }
  return table({"key", "seed", "target_eff", "n", "interval", "contradictions", "last_seen", "source"},
               {"---", "---:", "---:", "---:", "---", "---:", "---", "---"}, rows);
}

Blocks priors_section(const Analysis& a)
{
  const auto& p = a.scoped.priors;
  if (p.priors.empty()) {
    std::vector<std::string> seeds;
    for (const auto op : calibrate::k_op_classes) {
      seeds.push_back(fmt::format("{} {}", op, fixed(calibrate::seed_target_eff(op).value_or(0.0), 3)));
    }
    return {fmt::format("No calibrated priors yet; the seeds apply: {}.", join(seeds, ", "))};
  }
  const std::string as_of = p.as_of ? fmt::format("as of {}; ", *p.as_of) : std::string();
  return {fmt::format("Seed vs calibrated target_eff (fraction of roofline) per op class, and per gfx{}, "
                      "with the numbers `rfdb priors --by class,gfx` prints ({}{}, {}). A key without "
                      "observations shows its parent's value (source parent); the interval is the 90 % "
                      "bootstrap interval and collapses to a point with a single observation.",
                      a.scoped.gfx_filter ? " of this scope" : " where data allow", as_of,
                      plural(static_cast<std::size_t>(p.attempts), "attempt", "attempts"),
                      plural(static_cast<std::size_t>(p.observations), "observation", "observations")),
          priors_table(p, a.scoped.gfx_filter)};
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
  return parts.empty() ? md_code(kernel) : fmt::format("{} ({})", md_code(kernel), join(parts, ", "));
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

// "a, b, c and N more", each item already rendered.
std::string capped(const std::vector<std::string>& items, std::size_t shown, std::string_view more)
{
  std::vector<std::string> head(items.begin(),
                                items.begin() + static_cast<std::ptrdiff_t>(std::min(shown, items.size())));
  std::string out = join(head, ", ");
  if (items.size() > head.size()) {
    out += fmt::format(" and {} more{}", items.size() - head.size(), more);
  }
  return out;
}

std::string gate_text(const Finding& f)
{
  if (f.gates.empty()) {
    return "";
  }
  if (f.gates == std::vector<std::string>{"kept"}) {
    return "config trial kept";
  }
  return fmt::format("{} {}", f.gates.size() == 1 ? "gate" : "gates", join(f.gates, ", "));
}

std::string beyond_ceiling_text(const BeyondCeiling& b)
{
  return fmt::format(
      "beyond the Amdahl ceiling: second-order effect or mis-measured share (e2e {} vs ceiling "
      "{}, {}\u00d7, {})",
      e2e_range_text(b.e2e_pct, b.e2e_pct), e2e_range_text(b.ceiling_pct, b.ceiling_pct),
      fixed(b.e2e_pct / b.ceiling_pct, 2), md_code(b.ref.text()));
}

std::string imported_text(const Finding& f)
{
  std::vector<std::string> ids;
  for (const auto& i : f.imported_identities) {
    ids.push_back(md_code(truncate_utf8(short_identity(i), 60)));
  }
  return fmt::format("imported {} (self-rated {}{})", capped(ids, k_imported_shown, ""),
                     stars_text(f.imported_stars),
                     f.imported_last_seen.empty() ? std::string() : ", " + f.imported_last_seen);
}

// The lines What works shows, in report order: all of them, or beyond
// k_shown_cap the freshest (highest rank, then newest).
std::vector<const Finding*> shown_findings(const std::vector<Finding>& findings)
{
  std::vector<const Finding*> shown;
  for (const auto& f : findings) {
    shown.push_back(&f);
  }
  if (shown.size() > k_shown_cap) {
    std::stable_sort(shown.begin(), shown.end(), [](const Finding* x, const Finding* y) {
      return std::tie(y->rank, y->last_seen) < std::tie(x->rank, x->last_seen);
    });
    shown.resize(k_shown_cap);
    std::sort(shown.begin(), shown.end()); // back to report order (findings are in it)
  }
  return shown;
}

std::string finding_line(const Finding& f)
{
  std::string tier = f.tier_reason;
  if (f.verified_e2e && f.verified_speedup) {
    tier += fmt::format(" (Director {}\u00d7)", fixed(*f.verified_speedup, 4));
  }
  std::string e2e = "e2e " + e2e_range_text(f.e2e_min_pct, f.e2e_max_pct);
  if (f.e2e_min_pct && f.imported_identities.empty() && f.run_ids.size() > 1 &&
      static_cast<std::size_t>(f.e2e_run_count) < f.run_ids.size()) {
    e2e += fmt::format(" (measured in {} of {} runs)", f.e2e_run_count, f.run_ids.size());
  }
  std::vector<std::string> parts{tier, "isolated " + iso_range_text(f.iso_min, f.iso_max), e2e};
  if (const std::string g = gate_text(f); !g.empty()) {
    parts.push_back(g);
  }
  if (!f.reason.empty()) {
    parts.push_back("reason: " + md_text(f.reason));
  }
  if (f.beyond_ceiling) {
    parts.push_back(beyond_ceiling_text(*f.beyond_ceiling));
  }
  parts.push_back(fmt::format("confirms {}", f.confirms));
  parts.push_back("last_seen " + (f.last_seen.empty() ? std::string("-") : f.last_seen));
  std::vector<std::string> kernels;
  for (const auto& k : f.kernels) {
    kernels.push_back(md_code(k));
  }
  if (!kernels.empty()) {
    parts.push_back("kernels " + capped(kernels, k_kernels_shown, ""));
  }
  std::vector<std::string> refs;
  for (const auto& r : f.refs) {
    refs.push_back(md_code(r.text()));
  }
  if (!refs.empty()) {
    parts.push_back(fmt::format("{} {}", refs.size() == 1 ? "attempt" : "attempts",
                                capped(refs, k_refs_shown, " (`rfdb export`)")));
  }
  if (!f.imported_identities.empty()) {
    parts.push_back(imported_text(f));
  }
  return fmt::format("- {} {} \u2014 {}", stars_text(f.stars), md_text(truncate_utf8(f.lever, k_lever_chars)),
                     join(parts, "; "));
}

Blocks what_works_section(const Analysis& a)
{
  Blocks out{
      "Positive measured findings only: a kernel lever shows an isolated win beyond the 3.4 % band and an "
      "e2e "
      "result beyond +0.5 % with its A/B gate accepted (or stacked, when the run's Director validation won "
      "and includes it), output parity not failed and engagement not refused; a serving-config lever shows "
      "its trial kept with e2e beyond +0.5 %. Tiers: \u2605 a single run not verified end to end; "
      "\u2605\u2605 one clean run (its own A/B gate accepted an isolated and an e2e win) or \u2265 2 "
      "agreeing "
      "sources; \u2605\u2605\u2605 \u2265 2 independent clean sources or a verified end-to-end win (the "
      "run's Director validation won with throughput_speedup > 1 and includes the lever). Imported "
      "knowledge counts as one source, is labelled imported and stays at most \u2605\u2605 until a run "
      "confirms it; a lost Director validation caps a lever at \u2605\u2605. Each attempt reference "
      "RUN#ATTEMPT prints in full with `rfdb show RUN --attempt ATTEMPT`. At most 40 lines: the lowest "
      "stars \u00d7 (0.25 + 0.75 \u00d7 freshness) is evicted first (freshness falls from 1 to 0 over 365 "
      "days), \u2605\u2605\u2605 stays."};
  if (a.findings.empty()) {
    out.push_back("No positive findings yet.");
  }
  const std::vector<const Finding*> shown = shown_findings(a.findings);
  for (std::size_t i = 0; i < shown.size();) {
    const ReuseKey& key = shown[i]->key;
    std::vector<std::string> lines;
    for (; i < shown.size() && shown[i]->key == key; ++i) {
      lines.push_back(finding_line(*shown[i]));
    }
    out.push_back("### " + md_text(key.text()));
    out.push_back(join(lines, "\n"));
  }
  std::string evicted =
      fmt::format("{} evicted (cap {}).", plural(a.evicted.size(), "finding", "findings"), k_line_cap);
  if (!a.evicted.empty()) {
    evicted += " Every attempt behind them: `rfdb export --format json`.";
  }
  if (a.findings.size() > k_line_cap) {
    evicted += fmt::format(" {} lines remain because \u2605\u2605\u2605 findings stay", a.findings.size());
    evicted +=
        a.findings.size() > shown.size()
            ? fmt::format("; the {} freshest are shown, every one has a card (`rfdb report --cards DIR`).",
                          shown.size())
            : ".";
  }
  out.push_back(evicted);
  return out;
}

Blocks cautions_section(const Analysis& a)
{
  Blocks out{
      "Conditioned notes from surprising negatives: each adds a check under the condition it names (op "
      "class, gfx, regime, workload, run or imported source); none removes a candidate."};
  if (a.cautions.empty()) {
    out.push_back("No surprising negatives yet.");
    return out;
  }
  std::vector<std::string> lines;
  std::size_t run_total = 0;
  std::size_t imported_total = 0;
  std::size_t imported_shown = 0;
  for (const auto& c : a.cautions) {
    const bool imported = c.kind == CautionKind::imported_negative;
    std::size_t& total = imported ? imported_total : run_total;
    ++total;
    if (imported ? imported_shown < k_imported_cautions : total <= k_run_cautions) {
      lines.push_back("- " + c.text);
      imported_shown += imported ? 1 : 0;
    }
  }
  out.push_back(join(lines, "\n"));
  if (run_total > k_run_cautions || imported_total > imported_shown) {
    out.push_back(
        fmt::format("The {} newest run cautions and {} newest imported ones are shown; {} more: "
                    "`rfdb query playbook_cautions` (runs) and `rfdb query knowledge_negatives` "
                    "(imported).",
                    std::min(run_total, k_run_cautions), imported_shown,
                    run_total - std::min(run_total, k_run_cautions) + imported_total - imported_shown));
  }
  return out;
}

std::string ratio_text(const HeadVerdict& h)
{
  return fmt::format("{} / {}", h.roofline_pct ? fixed(*h.roofline_pct, 3) : "-",
                     h.target_eff ? fixed(*h.target_eff, 3) : "-");
}

Blocks saturated_section(const Analysis& a)
{
  Blocks out{
      "Heads (pct_gpu_time \u2265 5) whose latest verdict is saturated are rerouted to byte reduction: fuse "
      "a neighbour away, stop reading unused experts, change the layout, or lower the precision. The "
      "verdict follows an attempt's prediction precedence (a measured baseline roofline outranks the "
      "analytic one); the newest saturated head per kernel class \u00d7 gfx is shown."};
  if (a.saturated.empty()) {
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
    rows.push_back({md_text(h.op_class.empty() ? "unknown" : h.op_class), md_text(normalize_gfx(h.gfx)),
                    md_code(h.run_id), md_code(h.short_name), fixed(h.pct_gpu_time, 2) + " %", ratio_text(h),
                    md_text(h.source_kind), levers.empty() ? "none listed" : join(levers, "; "),
                    h.followed_by_byte_reduction ? "yes" : "no", std::to_string(g.runs)});
  }
  out.push_back(
      table({"class", "gfx", "newest run", "kernel", "pct_gpu_time", "roofline_pct / target_eff", "verdict",
             "byte-reduction levers listed", "byte-reduction attempt followed", "runs saturated"},
            {"---", "---", "---", "---", "---:", "---:", "---", "---", "---", "---:"}, rows));
  if (a.saturated_heads > a.saturated.size()) {
    out.push_back(
        fmt::format("{} saturated head verdicts in all; every one: `rfdb query playbook_saturated_heads`.",
                    a.saturated_heads));
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
      "with the saturated band edge 0.9 at the middle and 1.0 at the right edge; y = pct_gpu_time, with "
      "the head threshold 5 % at the middle and 50 % or more at the top. Top right: saturated heads, "
      "reduce bytes; top left: heads with headroom, tune; bottom: low priority. A head without a verdict is "
      "not plotted.",
      md_code(a.newest_run_id), first.run_date.empty() ? "undated" : first.run_date,
      md_text(normalize_gfx(first.gfx)))};
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
  const std::vector<Blocks> sections{priors_section(a),     calibration_section(a), routing_section(a),
                                     what_works_section(a), cautions_section(a),    saturated_section(a),
                                     glance_section(a)};
  for (std::size_t i = 0; i < sections.size(); ++i) {
    doc.push_back(std::string(k_playbook_headings[i + 1]));
    doc.insert(doc.end(), sections[i].begin(), sections[i].end());
  }
  return join(doc, "\n\n") + "\n";
}

} // namespace rfdb::report