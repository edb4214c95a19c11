// Markdown rendering of the backend playbook (sections in report/playbook.hpp).
#include "report/playbook.hpp"

#include "calibrate/priors_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rfdb::report {

namespace {

// A document is a list of blocks (paragraphs, lists, tables, fences) joined
// by one blank line, which is all markdownlint's spacing rules ask for.
using Blocks = std::vector<std::string>;

// Legacy lever text can run to kilobytes; the playbook line shows its start
// (the card keeps all of it).
constexpr std::size_t k_lever_chars = 160;

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

bool is_empty(const Analysis& a)
{
  return a.scoped.runs.empty() && a.scoped.attempts.empty() && a.scoped.heads.empty() &&
         imported_used(a) == 0;
}

std::string provenance(const Analysis& a)
{
  const auto& s = a.scoped;
  const std::string as_of = a.as_of.empty() ? "-" : a.as_of;
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
    line = fmt::format("Evidence: none yet (no runs, no imported findings); as of {}.", as_of);
  } else {
    std::vector<std::string> gpu_list(gpus.begin(), gpus.end());
    const std::string range = dates.empty() ? "undated"
                              : *dates.begin() == *dates.rbegin()
                                  ? *dates.begin()
                                  : fmt::format("{} to {}", *dates.begin(), *dates.rbegin());
    line = s.runs.empty()
               ? "Evidence: no runs"
               : fmt::format("Evidence: {} of {} on {} ({}), {}", plural(s.runs.size(), "run", "runs"),
                             plural(models.size(), "model", "models"), plural(gpus.size(), "GPU", "GPUs"),
                             md_text(join(gpu_list, ", ")), range);
    line += fmt::format("; {}; as of {}.", plural(imported, "imported finding", "imported findings"), as_of);
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
  std::string md = calibrate::render_priors_md(p);
  while (!md.empty() && md.back() == '\n') {
    md.pop_back();
  }
  return {
      fmt::format("Seed vs calibrated target_eff (fraction of roofline) per op class, and per gfx where data "
                  "allow, as `rfdb priors --format md` prints it (as of {}; {}, {}).",
                  p.as_of.value_or("-"), plural(static_cast<std::size_t>(p.attempts), "attempt", "attempts"),
                  plural(static_cast<std::size_t>(p.observations), "observation", "observations")),
      md};
}

std::optional<double> median(std::vector<double> v)
{
  if (v.empty()) {
    return std::nullopt;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::string times(const std::optional<double>& v)
{
  return v ? fixed(*v, 3) + "\u00d7" : "-";
}

std::string class_table(const std::vector<AttemptInfo>& attempts)
{
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_class;
  std::map<std::string, int> counts;
  for (const auto& at : attempts) {
    const std::string op = at.op_class.empty() ? "unknown" : at.op_class;
    ++counts[op];
    auto& [pred, meas] = by_class[op];
    if (at.pred_attainable_speedup) {
      pred.push_back(*at.pred_attainable_speedup);
    }
    if (at.isolated_speedup) {
      meas.push_back(*at.isolated_speedup);
    }
  }
  std::vector<std::string> order(calibrate::k_op_classes.begin(), calibrate::k_op_classes.end());
  for (const auto& [op, n] : counts) {
    if (std::find(order.begin(), order.end(), op) == order.end()) {
      order.push_back(op);
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& op : order) {
    if (counts.count(op) == 0) {
      continue;
    }
    const auto& [pred, meas] = by_class[op];
    const auto mp = median(pred);
    const auto mm = median(meas);
    rows.push_back({md_text(op), std::to_string(counts[op]), fmt::format("{} (n {})", times(mp), pred.size()),
                    fmt::format("{} (n {})", times(mm), meas.size()),
                    mp && mm && *mp > 0.0 ? fixed(*mm / *mp, 3) : "-"});
  }
  return table({"op class", "attempts", "median predicted attainable_speedup",
                "median measured isolated speedup", "measured / predicted"},
               {"---", "---:", "---:", "---:", "---:"}, rows);
}

std::string transfer_table(const calibrate::PriorsResult& p)
{
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : p.e2e_transfer) {
    const std::string interval =
        t.interval ? fmt::format("[{}, {}]", fixed(t.interval->lo, 4), fixed(t.interval->hi, 4)) : "-";
    rows.push_back({md_text(t.op_class), md_text(t.regime), std::to_string(t.n), fixed(t.median_ratio, 4),
                    interval, std::to_string(t.sign_flips)});
  }
  return table({"op class", "regime", "n", "median_ratio", "interval", "sign_flips"},
               {"---", "---", "---:", "---:", "---", "---:"}, rows);
}

std::string miss_line(const AttemptInfo& at, double ratio)
{
  return fmt::format("- {} ({} \u00b7 {} \u00b7 {}) in run {}: measured {} vs predicted {} (ratio {}){}",
                     md_code(at.short_name), md_text(at.op_class.empty() ? "unknown" : at.op_class),
                     md_text(normalize_gfx(at.gfx)), md_text(normalize_regime(at.regime)), md_code(at.run_id),
                     times(at.isolated_speedup), times(at.pred_attainable_speedup), fixed(ratio, 3),
                     at.pred_suspect.value_or(false) ? ", prediction flagged suspect" : "");
}

Blocks misses(const std::vector<AttemptInfo>& attempts)
{
  std::vector<std::pair<double, const AttemptInfo*>> under;
  std::vector<std::pair<double, const AttemptInfo*>> over;
  for (const auto& at : attempts) {
    if (at.isolated_speedup && at.pred_attainable_speedup && *at.pred_attainable_speedup > 0.0) {
      const double r = *at.isolated_speedup / *at.pred_attainable_speedup;
      (r > 1.0 ? under : over).emplace_back(r, &at);
    }
  }
  const auto order = [](auto& v, bool descending) {
    std::sort(v.begin(), v.end(), [descending](const auto& x, const auto& y) {
      if (x.first != y.first) {
        return descending ? x.first > y.first : x.first < y.first;
      }
      return std::tie(x.second->run_id, x.second->short_name, x.second->lever) <
             std::tie(y.second->run_id, y.second->short_name, y.second->lever);
    });
    v.resize(std::min<std::size_t>(v.size(), 3));
  };
  order(under, true);
  std::erase_if(over, [](const auto& x) { return x.first >= 1.0; });
  order(over, false);
  Blocks out;
  const auto block = [&](const auto& v, std::string_view title, std::string_view none) {
    out.push_back(std::string(v.empty() ? none : title));
    if (!v.empty()) {
      std::vector<std::string> lines;
      for (const auto& [r, at] : v) {
        lines.push_back(miss_line(*at, r));
      }
      out.push_back(join(lines, "\n"));
    }
  };
  block(under,
        "Largest misses where the model under-predicted (measured isolated / predicted attainable > 1):",
        "No attempt beat its predicted attainable_speedup.");
  block(over, "Largest misses where the model over-predicted (measured isolated / predicted attainable < 1):",
        "No attempt fell short of its predicted attainable_speedup.");
  return out;
}

Blocks calibration_section(const Analysis& a)
{
  const auto& at = a.scoped.attempts;
  if (at.empty()) {
    return {"No attempts yet: nothing to compare predictions with."};
  }
  Blocks out{
      "Per op class: attempts, median predicted attainable_speedup and median measured isolated speedup "
      "(n counts the attempts that have the value).",
      class_table(at)};
  if (a.scoped.priors.e2e_transfer.empty()) {
    out.push_back("No e2e transfer yet: no attempt with a measured e2e delta.");
  } else {
    out.push_back(
        "e2e transfer from `rfdb priors`: the share of the Amdahl ceiling pct_gpu_time \u00d7 (1 \u2212 "
        "1/isolated) that reached end-to-end throughput.");
    out.push_back(transfer_table(a.scoped.priors));
  }
  for (auto& b : misses(at)) {
    out.push_back(std::move(b));
  }
  return out;
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
  return {summary, table({"run", "round", "top by pct_gpu_time", "top by expected gain",
                          "realized by pct pick", "realized by gain pick", "realized more"},
                         {"---", "---:", "---", "---", "---:", "---:", "---"}, rows)};
}

std::string finding_line(const Finding& f)
{
  std::vector<std::string> parts{f.tier_reason, "isolated " + iso_range_text(f.iso_min, f.iso_max),
                                 "e2e " + e2e_range_text(f.e2e_min_pct, f.e2e_max_pct),
                                 fmt::format("confirms {}", f.confirms),
                                 "last_seen " + (f.last_seen.empty() ? std::string("-") : f.last_seen)};
  std::vector<std::string> kernels;
  for (const auto& k : f.kernels) {
    kernels.push_back(md_code(k));
  }
  if (!kernels.empty()) {
    parts.push_back("kernels " + join(kernels, ", "));
  }
  std::vector<std::string> sources;
  for (const auto& r : f.run_ids) {
    sources.push_back(md_code(r));
  }
  if (!sources.empty()) {
    parts.push_back("runs " + join(sources, ", "));
  }
  std::vector<std::string> imported;
  for (const auto& i : f.imported_identities) {
    imported.push_back(md_code(truncate_utf8(i, 60)));
  }
  if (!imported.empty()) {
    parts.push_back("imported " + join(imported, ", "));
  }
  return fmt::format("- {} {} \u2014 {}", stars_text(f.stars), md_text(truncate_utf8(f.lever, k_lever_chars)),
                     join(parts, "; "));
}

Blocks what_works_section(const Analysis& a)
{
  Blocks out{
      "Tiers: \u2605 a single run with an overlapping or unverified e2e result; \u2605\u2605 one clean run "
      "(isolated > 1.034\u00d7 and e2e > +0.5 % with the A/B gate accepted) or \u2265 2 runs that agree; "
      "\u2605\u2605\u2605 \u2265 2 independent clean runs or a verified end-to-end win. Positive findings "
      "only, at most 40 lines: the lowest stars \u00d7 (0.25 + 0.75 \u00d7 freshness) is evicted first "
      "(freshness falls from 1 to 0 over 365 days), \u2605\u2605\u2605 stays."};
  if (a.findings.empty()) {
    out.push_back("No positive findings yet.");
  }
  for (std::size_t i = 0; i < a.findings.size();) {
    const ReuseKey& key = a.findings[i].key;
    std::vector<std::string> lines;
    for (; i < a.findings.size() && a.findings[i].key == key; ++i) {
      lines.push_back(finding_line(a.findings[i]));
    }
    out.push_back("### " + md_text(key.text()));
    out.push_back(join(lines, "\n"));
  }
  std::string evicted =
      fmt::format("{} evicted (cap {}).", plural(a.evicted.size(), "finding", "findings"), k_line_cap);
  if (a.findings.size() > k_line_cap) {
    evicted += fmt::format(" {} lines remain because \u2605\u2605\u2605 findings stay.", a.findings.size());
  }
  out.push_back(evicted);
  return out;
}

Blocks cautions_section(const Analysis& a)
{
  Blocks out{
      "Conditioned notes from surprising negatives: each adds a check under the condition it names (op "
      "class, gfx, regime, workload, run); none removes a candidate."};
  if (a.cautions.empty()) {
    out.push_back("No surprising negatives yet.");
    return out;
  }
  std::vector<std::string> lines;
  for (const auto& c : a.cautions) {
    lines.push_back("- " + c.text);
  }
  out.push_back(join(lines, "\n"));
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
      "a neighbour away, stop reading unused experts, change the layout, or lower the precision."};
  if (a.saturated_heads.empty()) {
    out.push_back("No saturated heads yet.");
    return out;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : a.saturated_heads) {
    std::vector<std::string> levers;
    for (const auto& l : h.byte_reduction_levers) {
      levers.push_back(md_text(l));
    }
    rows.push_back({md_code(h.run_id), md_code(h.short_name), md_text(normalize_gfx(h.gfx)),
                    fixed(h.pct_gpu_time, 2) + " %", ratio_text(h),
                    levers.empty() ? "none listed" : join(levers, "; "),
                    h.followed_by_byte_reduction ? "yes" : "no"});
  }
  out.push_back(table({"run", "kernel", "gfx", "pct_gpu_time", "roofline_pct / target_eff",
                       "byte-reduction levers listed", "byte-reduction attempt followed"},
                      {"---", "---", "---", "---:", "---:", "---", "---"}, rows));
  return out;
}

Blocks glance_section(const Analysis& a)
{
  if (a.newest_heads.empty()) {
    return {"No head verdicts yet."};
  }
  const HeadVerdict& first = a.newest_heads.front();
  Blocks out{fmt::format(
      "Run {} ({}, {}): x = roofline_pct / target_eff clamped to 0\u20131, y = share of GPU time "
      "(fraction). The chart splits both axes at 0.5; the route column uses the verdict bands "
      "(saturated at roofline_pct \u2265 0.9 \u00d7 target_eff, a head at pct_gpu_time \u2265 5).",
      md_code(a.newest_run_id), first.run_date.empty() ? "undated" : first.run_date,
      md_text(normalize_gfx(first.gfx)))};
  if (std::string chart = render_quadrant_chart(a); !chart.empty()) {
    chart.pop_back();
    out.push_back(std::move(chart));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : a.newest_heads) {
    rows.push_back({md_code(h.short_name), fixed(h.pct_gpu_time, 2) + " %", ratio_text(h),
                    md_text(h.headroom_class.empty() ? "unknown" : h.headroom_class), head_route(h)});
  }
  out.push_back(table({"kernel", "pct_gpu_time", "roofline_pct / target_eff", "headroom_class", "route"},
                      {"---", "---:", "---:", "---", "---"}, rows));
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