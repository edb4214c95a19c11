// Conditioned "also verify" notes from surprising negatives (rules in
// report/findings.hpp): an isolated win that lost end to end, a measurement
// that beat the roofline model's predicted attainable speedup, a What works
// lever whose run's Director validation was lost, and imported negatives
// (anti-pattern cards, stated losses, dead-end bullets).
#include "report/cautions.hpp"

#include "domain/knowledge_kind.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/findings.hpp"
#include "report/lines.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <tuple>

namespace rfdb::report {

namespace {

constexpr std::size_t k_caution_text = 200; // code points of quoted imported text
constexpr std::size_t k_reason_text = 240;  // code points of a quoted integrate reason

// The condition a caution names: reuse key, workload and model.
std::string condition_text(const AttemptInfo& a, const ReuseKey& key)
{
  std::string cond = key.text();
  if (const std::string w = workload_text(a.isl, a.osl, a.conc); !w.empty()) {
    cond += "; " + w;
  }
  if (!a.model.empty()) {
    cond += "; model " + md_text(a.model);
  }
  return cond;
}

// "`fused_moe_kernel`", or "the serving config" for a config trial.
std::string target_text(const AttemptInfo& a)
{
  return is_config_trial(a) ? std::string("the serving config") : md_code(a.short_name);
}

std::string validation_figure(const AttemptInfo& a)
{
  return fmt::format("{} ({})",
                     a.validation_speedup ? fixed(*a.validation_speedup, 4) + "\u00d7" : "no figure",
                     a.run_validation_class);
}

// A run's free text on one line, at most `max_chars` code points: cut at the
// last space before the limit (inside a word only when there is none) with
// "…", without a final period or colon (the caution adds its own).
std::string quoted_text(std::string_view text, std::size_t max_chars)
{
  std::string t = one_line(text);
  if (util::utf8_prefix(t, max_chars).size() < t.size()) {
    t = util::utf8_prefix(t, max_chars - 1);
    if (const auto space = t.rfind(' '); space != std::string::npos && space > 0) {
      t.resize(space);
    }
    while (!t.empty() && (t.back() == ' ' || t.back() == ',' || t.back() == ';')) {
      t.pop_back();
    }
    return t + "\u2026";
  }
  while (!t.empty() && (t.back() == '.' || t.back() == ':')) {
    t.pop_back();
  }
  return t;
}

// " (reject reason parity_regression)", "" without a reject reason (the
// report reads no parity_kind: report_attempts.sql).
std::string parity_details(const AttemptInfo& a)
{
  return a.reject_reason.empty() ? std::string() : " (reject reason " + md_text(a.reject_reason) + ")";
}

// "isolated 2.347×, e2e +38.05 %, gate rejected": what the run measured on
// the attempt, each part only when recorded.
std::string measured_text(const AttemptInfo& a)
{
  std::vector<std::string> parts;
  if (a.isolated_speedup) {
    parts.push_back("isolated " + fixed(*a.isolated_speedup, 3) + "\u00d7");
  }
  if (a.e2e_delta_pct) {
    parts.push_back("e2e " + e2e_range_text(a.e2e_delta_pct, a.e2e_delta_pct));
  }
  if (!a.gate.empty()) {
    parts.push_back("gate " + md_text(a.gate));
  }
  return util::join(parts, ", ");
}

} // namespace

void detail::attempt_cautions(const AttemptInfo& a, std::vector<Caution>& out, LineIndex* lever_keys,
                              const std::function<bool(const Caution&)>& wanted)
{
  // Most attempts raise none: decide before building any text.
  const bool iso_win = a.isolated_speedup && domain::is_isolated_win(*a.isolated_speedup);
  const bool e2e_loss = iso_win && a.e2e_delta_pct && domain::is_e2e_loss(*a.e2e_delta_pct);
  // A placeholder attainable of a no-verdict row (suspect, dispatch-bound,
  // unmodelled) is not a prediction, so it cannot be contradicted.
  const bool contradiction = a.isolated_speedup && has_usable_prediction(a) && speed_is_evidence(a) &&
                             domain::beats_prediction(*a.isolated_speedup, *a.prediction.attainable_speedup);
  const bool lost = validation_lost(a) && in_what_works(a);
  const bool parity = domain::parity_failed(util::lower_ascii(a.output_parity), a.reject_reason);
  // An isolated win whose e2e stayed inside the band (−0.5 % < d ≤ +0.5 %,
  // the upper edge the run's measured spread when wider: domain::run_e2e_band),
  // on output that was right and a kernel that ran: it did not transfer.
  const bool no_transfer = iso_win && a.measured && a.e2e_delta_pct &&
                           !domain::is_e2e_gain(*a.e2e_delta_pct, a.e2e_band) &&
                           !domain::is_e2e_loss(*a.e2e_delta_pct) && speed_is_evidence(a);
  if (!e2e_loss && !contradiction && !lost && !parity && !no_transfer) {
    return;
  }
  ReuseKey own_key;
  const ReuseKey& key =
      lever_keys != nullptr ? lever_keys->reuse_key(a).first : (own_key = attempt_reuse_key(a));
  std::string own_lever_text;
  const std::string& lever_text =
      lever_keys != nullptr ? lever_keys->lever_text(a) : (own_lever_text = attempt_lever_text(a));
  // The caution's fields, in the index's scratch when there is one (its
  // strings keep their buffers from attempt to attempt).
  Caution own_base;
  Caution& base = lever_keys != nullptr ? lever_keys->caution_scratch : own_base;
  base.kind = CautionKind::e2e_loss;
  base.key = key;
  base.run_id = a.run_id;
  base.run_date = a.run_date;
  base.short_name = a.short_name;
  if (lever_keys != nullptr) {
    base.lever_key = lever_keys->lever_key(lever_text, key.op_class);
  } else {
    base.lever_key = domain::lever_key(lever_text, key.op_class);
  }
  base.text.clear();
  // The text is built only for a caution the caller keeps.
  std::optional<std::string> cond, lever, where;
  const auto texts = [&] {
    if (!cond) {
      cond = condition_text(a, key);
      lever = md_text(lever_text);
      where = fmt::format("in run {} ({}, attempt {})", md_code(a.run_id),
                          a.run_date.empty() ? "undated" : a.run_date, md_code(a.attempt_key));
    }
  };
  const auto keep = [&](CautionKind kind) {
    base.kind = kind;
    if (wanted && !wanted(base)) {
      return false;
    }
    texts();
    return true;
  };
  if (e2e_loss && keep(CautionKind::e2e_loss)) {
    Caution c = base;
    c.text = fmt::format("Also verify the end-to-end delta before reusing {} on {} ({}): isolated {}\u00d7 "
                         "but e2e {} {}.",
                         *lever, target_text(a), *cond, fixed(*a.isolated_speedup, 3),
                         e2e_range_text(a.e2e_delta_pct, a.e2e_delta_pct), *where);
    out.push_back(std::move(c));
  }
  // A multi-case measured prediction: a win some case's attainable allows
  // came from that case (the iso bench's mix is not the workload's), not
  // from wrong byte/FLOP counts.
  const domain::CaseShare* from_case =
      contradiction ? domain::case_mix_source(a.prediction.case_mix, *a.isolated_speedup) : nullptr;
  if (from_case != nullptr && keep(CautionKind::model_contradiction)) {
    Caution c = base;
    c.text = fmt::format(
        "Also verify the roofline model for {} ({}): {} measured isolated {}\u00d7, beyond the predicted "
        "attainable {}\u00d7 (the time-weighted mix of its measured cases) but within case {}'s {}\u00d7 "
        "(roofline_pct {}, {} % of the kernel's time) {}; case mix (the win came from {}): compare it with "
        "that case's attainable, not the mix's.",
        target_text(a), *cond, *lever, fixed(*a.isolated_speedup, 3),
        fixed(*a.prediction.attainable_speedup, 3), md_code(from_case->case_id),
        fixed(from_case->attainable_speedup, 3), fixed(from_case->roofline_pct, 3),
        fixed(100.0 * from_case->time_share, 0), *where, md_code(from_case->case_id));
    out.push_back(std::move(c));
  } else if (contradiction && keep(CautionKind::model_contradiction)) {
    Caution c = base;
    c.text =
        fmt::format("Also verify the roofline model for {} ({}): {} measured isolated {}\u00d7, beyond the "
                    "predicted attainable {}\u00d7 (roofline_pct {}, target_eff {}) {}; re-check the "
                    "byte/FLOP counts and target_eff before routing on the prediction.",
                    target_text(a), *cond, *lever, fixed(*a.isolated_speedup, 3),
                    fixed(*a.prediction.attainable_speedup, 3),
                    a.prediction.roofline_pct ? fixed(*a.prediction.roofline_pct, 3) : "-",
                    a.prediction.target_eff ? fixed(*a.prediction.target_eff, 3) : "-", *where);
    out.push_back(std::move(c));
  }
  if (lost && keep(CautionKind::lost_validation)) {
    Caution c = base;
    c.text = fmt::format("Also verify the end-to-end win of {} on {} ({}) in the combined stack: its own A/B "
                         "measured e2e {} but the run's Director validation, which included it, came back {} "
                         "{}.",
                         *lever, target_text(a), *cond, e2e_range_text(a.e2e_delta_pct, a.e2e_delta_pct),
                         validation_figure(a), *where);
    out.push_back(std::move(c));
  }
  if (parity && keep(CautionKind::parity_failure)) {
    Caution c = base;
    const std::string measured = measured_text(a);
    c.text = fmt::format(
        "Also verify output parity before reusing {} on {} ({}): its output failed parity{} {}{}; "
        "what broke: {}.",
        *lever, target_text(a), *cond, parity_details(a), *where,
        measured.empty() ? "" : ", with " + measured,
        a.reason.empty() ? std::string("no reason recorded") : md_text(quoted_text(a.reason, k_reason_text)));
    out.push_back(std::move(c));
  }
  if (no_transfer && keep(CautionKind::no_transfer)) {
    Caution c = base;
    const auto ceiling = amdahl_ceiling_pct(a);
    c.text = fmt::format(
        "Also verify the end-to-end transfer before reusing {} on {} ({}): isolated {}\u00d7 did "
        "not transfer, e2e {} stayed inside {}{} {}.",
        *lever, target_text(a), *cond, fixed(*a.isolated_speedup, 3),
        e2e_range_text(a.e2e_delta_pct, a.e2e_delta_pct),
        a.e2e_band.source == domain::BandSource::measured && *a.e2e_delta_pct > domain::k_e2e_noise_pct
            ? fmt::format("the run's measured spread {} %", fixed(a.e2e_band.pct, 2))
            : fmt::format("the \u00b1{} % noise band", fixed(domain::k_e2e_noise_pct, 1)),
        ceiling ? " (Amdahl ceiling " + e2e_range_text(ceiling, ceiling) + ")" : std::string(), *where);
    out.push_back(std::move(c));
  }
}

namespace {

// One sentence of imported text without its final period (the caution adds
// its own punctuation).
std::string sentence(std::string_view text)
{
  std::string s = first_sentence(text, k_caution_text);
  while (!s.empty() && (s.back() == '.' || s.back() == ':')) {
    s.pop_back();
  }
  return s;
}

std::string imported_where(const ImportedFinding& f)
{
  return fmt::format("imported {} {}, {}", f.origin,
                     md_code(util::truncate_utf8(short_identity(f.identity), 60)),
                     f.last_seen.empty() ? "undated" : f.last_seen);
}

Caution imported_base(const ImportedFinding& f)
{
  Caution c;
  c.kind = CautionKind::imported_negative;
  c.key = detail::imported_reuse_key(f);
  c.run_date = f.last_seen;
  c.short_name = f.identity;
  c.lever_key = detail::imported_lever_key(f);
  return c;
}

void imported_cautions(const ImportedFinding& f, std::vector<Caution>& out)
{
  if (f.kind == domain::KnowledgeKind::archived || domain::is(f.lifecycle, domain::Lifecycle::archived)) {
    return;
  }
  if (f.kind == domain::KnowledgeKind::negative) {
    Caution c = imported_base(f);
    const std::string effect = sentence(f.effect.empty() ? f.kind_reason : f.effect);
    c.text = fmt::format("Also verify the outcome before reusing {} ({}): imported negative evidence ({}{}) "
                         "records {}.",
                         md_text(sentence(detail::imported_display(f))), c.key.text(), imported_where(f),
                         f.type.empty() ? "" : ", type " + md_text(f.type),
                         effect.empty() ? "no gain" : md_text(effect));
    out.push_back(std::move(c));
  } else if (f.kind == domain::KnowledgeKind::in_noise) {
    Caution c = imported_base(f);
    c.text = fmt::format("Also verify the end-to-end transfer before reusing {} ({}): imported evidence ({}) "
                         "stayed inside the noise band: {}.",
                         md_text(sentence(detail::imported_display(f))), c.key.text(), imported_where(f),
                         md_text(sentence(f.kind_reason)));
    out.push_back(std::move(c));
  }
  if (f.kind == domain::KnowledgeKind::positive_measured) {
    // A measured positive whose own effect line leads with a loss (a later
    // confirmation that closed the lane): the loss is a caution of its own.
    const auto figures = domain::stated_figures(f.effect);
    const auto loss = std::find_if(figures.begin(), figures.end(), [](const domain::StatedFigure& g) {
      return g.metric == domain::StatedFigure::Metric::e2e_pct;
    });
    if (loss != figures.end() && loss->hi < -domain::k_e2e_noise_pct) {
      Caution c = imported_base(f);
      c.lever_key += "#effect-loss";
      c.text = fmt::format("Also verify the outcome before reusing {} ({}): its own effect line ({}) also "
                           "records a loss: {}.",
                           md_text(sentence(detail::imported_display(f))), c.key.text(), imported_where(f),
                           md_text(sentence(f.effect)));
      out.push_back(std::move(c));
    }
  }
  for (const auto& d : f.dead_ends) {
    Caution c = imported_base(f);
    c.lever_key += "#dead-end:" + domain::fold_lever_text(d);
    c.text = fmt::format("Also verify the dead end recorded with {} ({}; {}) before trying it: {}.",
                         md_text(sentence(detail::imported_display(f))), c.key.text(), imported_where(f),
                         md_text(sentence(d)));
    out.push_back(std::move(c));
  }
}

} // namespace

bool has_usable_prediction(const AttemptInfo& a)
{
  return !a.prediction.suspect.value_or(false) && a.prediction.attainable_speedup &&
         *a.prediction.attainable_speedup > 0.0 &&
         domain::is_banded(a.prediction.headroom_class.value_or(""));
}

std::vector<Caution> build_cautions(const ReportInput& scoped)
{
  std::vector<Caution> runs;
  for (const AttemptInfo& a : scoped.attempts) {
    detail::attempt_cautions(a, runs);
  }
  return detail::finish_cautions(std::move(runs), scoped);
}

bool detail::same_caution(const Caution& x, const Caution& y)
{
  return x.kind == y.kind && x.run_id == y.run_id && x.short_name == y.short_name &&
         x.lever_key == y.lever_key;
}

bool detail::run_caution_less(const Caution& x, const Caution& y, bool with_text)
{
  if (!with_text) {
    return std::forward_as_tuple(y.run_date, x.run_id, x.kind, x.short_name, x.lever_key) <
           std::forward_as_tuple(x.run_date, y.run_id, y.kind, y.short_name, y.lever_key);
  }
  return std::forward_as_tuple(y.run_date, x.run_id, x.kind, x.short_name, x.lever_key, x.text) <
         std::forward_as_tuple(x.run_date, y.run_id, y.kind, y.short_name, y.lever_key, y.text);
}

std::vector<Caution> detail::finish_cautions(std::vector<Caution> runs, const ReportInput& scoped)
{
  std::sort(runs.begin(), runs.end(),
            [](const Caution& x, const Caution& y) { return run_caution_less(x, y); });
  runs.erase(std::unique(runs.begin(), runs.end(), same_caution), runs.end());
  std::vector<Caution> imported;
  for (const ImportedFinding& f : scoped.imported) {
    imported_cautions(f, imported);
  }
  // A finding's own negative or in-noise result before the dead ends its
  // bullets record; each newest first.
  const auto dead_end = [](const Caution& c) { return c.lever_key.find("#dead-end:") != std::string::npos; };
  std::sort(imported.begin(), imported.end(), [&](const Caution& x, const Caution& y) {
    return std::make_tuple(dead_end(x), std::cref(y.run_date), std::cref(x.short_name),
                           std::cref(x.lever_key), std::cref(x.text)) <
           std::make_tuple(dead_end(y), std::cref(x.run_date), std::cref(y.short_name),
                           std::cref(y.lever_key), std::cref(y.text));
  });
  imported.erase(std::unique(imported.begin(), imported.end(), detail::same_caution), imported.end());
  runs.insert(runs.end(), imported.begin(), imported.end());
  std::vector<Caution> kb = detail::kb_cautions(scoped);
  runs.insert(runs.end(), std::make_move_iterator(kb.begin()), std::make_move_iterator(kb.end()));
  return runs;
}

} // namespace rfdb::report
