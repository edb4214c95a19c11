// The playbook's "## What works" and "## Cautions" sections (rules in
// report/findings.hpp): one line per finding with its tier, numbers, gate,
// reason, attempt references and imported label; the cautions, capped.
#include "report/works.hpp"

#include "domain/knowledge_kind.hpp"
#include "domain/roofline.hpp"
#include "report/analysis.hpp"
#include "report/kb_lines.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace rfdb::report::detail {

namespace {

// Legacy lever text can run to kilobytes; the playbook line shows its start
// (the card keeps all of it).
constexpr std::size_t k_lever_chars = 160;

// "a, b, c and N more", each item already rendered.
std::string capped(const std::vector<std::string>& items, std::size_t shown, std::string_view more)
{
  std::vector<std::string> head(items.begin(),
                                items.begin() + static_cast<std::ptrdiff_t>(std::min(shown, items.size())));
  std::string out = util::join(head, ", ");
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
  return fmt::format("{} {}", f.gates.size() == 1 ? "gate" : "gates", util::join(f.gates, ", "));
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
    ids.push_back(md_code(util::truncate_utf8(short_identity(i), 60)));
  }
  return fmt::format("imported {} (self-rated {}{})", capped(ids, k_imported_shown, ""),
                     stars_text(f.imported_stars),
                     f.imported_last_seen.empty() ? std::string() : ", " + f.imported_last_seen);
}

// The kb records on a line (report/kb_lines.hpp): each with its ledger, the runs of ours that
// reproduce it, and — on a kb-only line — its identity and GEAK's own reproductions; a retired one
// names its reason and points at Cautions.
std::string kb_text(const Finding& f)
{
  std::vector<std::string> items;
  for (const KbSource& k : f.kb_sources) {
    std::vector<std::string> notes;
    if (f.kb_only && !k.identity.empty()) {
      notes.push_back(md_text(k.identity));
    }
    notes.push_back(kb_ledger_text(k.validations, k.failures, k.not_reproduced, k.inapplicable));
    if (!k.reproduced_by.empty()) {
      std::vector<std::string> runs;
      for (const auto& r : k.reproduced_by) {
        runs.push_back(md_code(r));
      }
      notes.push_back(fmt::format("reproduced by {} {}", k.reproduced_by.size() == 1 ? "run" : "runs",
                                  capped(runs, k_refs_shown, "")));
    }
    if (k.geak_reproductions > 0) {
      notes.push_back(fmt::format("GEAK reproductions {}", k.geak_reproductions));
    }
    if (k.retired) {
      notes.push_back(
          fmt::format("retired: {}; last tested outcomes {}; see Cautions",
                      md_text(k.retired_why.empty() ? std::string("retired") : k.retired_why),
                      k.last_outcomes.empty() ? std::string("none") : util::join(k.last_outcomes, ", ")));
    }
    items.push_back(fmt::format("{} ({})", md_code(k.record_key), util::join(notes, "; ")));
  }
  return fmt::format("kb {} {}", f.kb_sources.size() == 1 ? "record" : "records",
                     capped(items, k_imported_shown, ""));
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
  if (f.e2e_band) {
    e2e += f.e2e_band->source == domain::BandSource::measured
               ? fmt::format(" (beyond the run's measured spread {} %)", fixed(f.e2e_band->pct, 2))
               : fmt::format(" (beyond the fixed {:g} % band)", f.e2e_band->pct);
  }
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
  if (f.ref_count != 0) {
    // f.refs holds the k_refs_shown strongest of ref_count references.
    std::string shown = util::join(refs, ", ");
    if (f.ref_count > refs.size()) {
      shown += fmt::format(" and {} more (`rfdb export`)", f.ref_count - refs.size());
    }
    parts.push_back(fmt::format("{} {}", f.ref_count == 1 ? "attempt" : "attempts", shown));
  }
  if (!f.imported_identities.empty()) {
    parts.push_back(imported_text(f));
  }
  if (!f.kb_sources.empty()) {
    parts.push_back(kb_text(f));
  }
  if (!f.restated_runs.empty()) {
    std::vector<std::string> runs;
    for (const auto& r : f.restated_runs) {
      runs.push_back(md_code(r));
    }
    parts.push_back(fmt::format("card restates run {}", util::join(runs, ", ")));
  }
  return fmt::format("- {} {} \u2014 {}", stars_text(f.stars),
                     md_text(util::truncate_utf8(f.lever, k_lever_chars)), util::join(parts, "; "));
}

} // namespace

Blocks what_works_section(const Analysis& a)
{
  Blocks out{fmt::format(
      "Positive measured findings only: a kernel lever shows an isolated win beyond the {iso:g} % band and "
      "an "
      "e2e "
      "result beyond +{e2e:g} % with its A/B gate accepted (or stacked, when the run's Director validation "
      "won "
      "and includes it), output parity not failed and engagement not refused; a serving-config lever shows "
      "its trial kept with e2e beyond +{e2e:g} %. Tiers: \u2605 a single run not verified end to end; "
      "\u2605\u2605 one clean run (its own A/B gate accepted an isolated and an e2e win) or \u2265 2 "
      "agreeing "
      "sources; \u2605\u2605\u2605 \u2265 2 independent clean sources or a verified end-to-end win (the "
      "run's Director validation won with throughput_speedup > 1 and includes the lever). Imported "
      "knowledge counts as one source, is labelled imported and stays at most \u2605\u2605 until a run "
      "confirms it; a lost Director validation caps a lever at \u2605\u2605. Each attempt reference "
      "RUN#ATTEMPT prints in full with `rfdb show RUN --attempt ATTEMPT`. At most 40 lines: the lowest "
      "stars \u00d7 (0.25 + 0.75 \u00d7 freshness) is evicted first (freshness falls from 1 to 0 over 365 "
      "days), \u2605\u2605\u2605 stays.",
      fmt::arg("iso", 100.0 * domain::k_iso_noise), fmt::arg("e2e", domain::k_e2e_noise_pct))};
  if (!a.scoped.kb_records.empty()) {
    out.front() +=
        " GEAK kb records: a record whose content signature a run's attempt carries joins that line as one "
        "source with its ledger, each such run a reproduction; a validated record is a clean source, and "
        "\u2265 2 independent runs reproducing a record make \u2605\u2605\u2605; a measured positive "
        "record no run reproduces has a line of its own, at most \u2605\u2605; a retired record supports "
        "no line, caps a line it matches at \u2605\u2605 and is a caution (`rfdb show --finding ID`).";
  }
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
    out.push_back(util::join(lines, "\n"));
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
  const std::size_t run_total = a.run_cautions;
  std::size_t run_shown = 0;
  std::size_t imported_total = 0;
  std::size_t imported_shown = 0;
  for (const auto& c : a.cautions) {
    const bool imported = is_imported_caution(c.kind);
    std::size_t& total = imported ? imported_total : run_shown;
    ++total;
    if (imported ? imported_shown < k_imported_cautions : total <= k_run_cautions) {
      lines.push_back("- " + c.text);
      imported_shown += imported ? 1 : 0;
    }
  }
  out.push_back(util::join(lines, "\n"));
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

} // namespace rfdb::report::detail

namespace rfdb::report::detail {

Blocks methods_section(const Analysis& a)
{
  Blocks out{"Imported methods, seam facts and routing notes: how to measure, where the live path is and "
             "where to spend effort. Useful before a run; none is a measured win, so none is in What works."};
  if (a.methods.empty()) {
    out.push_back("None imported.");
    return out;
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < a.methods.size() && i < k_method_notes; ++i) {
    const MethodNote& n = a.methods[i];
    std::vector<std::string> ids;
    for (const auto& id : n.identities) {
      ids.push_back(md_code(util::truncate_utf8(short_identity(id), 60)));
    }
    std::string kind(domain::to_string(n.kind));
    std::replace(kind.begin(), kind.end(), '_', ' ');
    lines.push_back(fmt::format("- {} \u2014 {} ({}): {} (self-rated {}{})", kind, md_text(n.title),
                                n.key.text(), capped(ids, k_imported_shown, ""), stars_text(n.stars),
                                n.last_seen.empty() ? std::string() : ", " + n.last_seen));
  }
  out.push_back(util::join(lines, "\n"));
  if (a.methods.size() > k_method_notes) {
    out.push_back(fmt::format("{} more: `rfdb query knowledge_notes`.", a.methods.size() - k_method_notes));
  }
  return out;
}

} // namespace rfdb::report::detail
