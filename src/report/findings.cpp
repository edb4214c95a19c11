// What qualifies for What works, the lines built from run attempts (their
// tier: tiers.cpp) and the line cap (rules in report/findings.hpp; imported
// knowledge is merged in merge.cpp).
#include "report/findings.hpp"

#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/lines.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>

namespace rfdb::report {

using detail::Line;
using detail::StrengthKey;

namespace {

bool is_iso_win(const AttemptInfo& a)
{
  return a.isolated_speedup && domain::is_isolated_win(*a.isolated_speedup);
}
bool is_e2e_win(const AttemptInfo& a)
{
  return a.e2e_delta_pct && domain::is_e2e_gain(*a.e2e_delta_pct, a.e2e_band);
}

// Keep in `band` the wider of it and `b` (a measured band over a fixed one
// of the same width): independent of the order attempts and folds arrive in.
void widen_band(std::optional<domain::E2eBand>& band, const domain::E2eBand& b)
{
  if (!band || b.pct > band->pct || (b.pct == band->pct && b.source == domain::BandSource::measured)) {
    band = b;
  }
}

// A clean run: its own A/B gate accepted an isolated and an e2e win.
bool is_clean(const AttemptInfo& a)
{
  return !is_config_trial(a) && is_iso_win(a) && is_e2e_win(a) && domain::is(a.gate, domain::Gate::accepted);
}
bool is_verified(const AttemptInfo& a)
{
  return validation_won(a) && validation_includes(a);
}

// A StrengthKey over the attempt's own strings: compared without a copy,
// copied only when kept.
struct StrengthView {
  bool unverified = true;
  bool unclean = true;
  std::string_view run_date, run_id, attempt_key;
  [[nodiscard]] StrengthKey key() const
  {
    return {unverified, unclean, std::string(run_date), std::string(run_id), std::string(attempt_key)};
  }
};

// detail::stronger_key of the view against a kept key.
bool stronger(const StrengthView& x, const StrengthKey& y)
{
  const std::string_view y_date = y.run_date, y_run = y.run_id, y_key = y.attempt_key;
  return std::tie(x.unverified, x.unclean, y_date, x.run_id, x.attempt_key) <
         std::tie(y.unverified, y.unclean, x.run_date, y_run, y_key);
}

// Keep `key` in `best` when it is stronger than what `best` holds; true when
// it was kept.
bool keep_stronger(std::optional<StrengthKey>& best, const StrengthView& key)
{
  if (best && !stronger(key, *best)) {
    return false;
  }
  best = key.key();
  return true;
}

// Fold one qualifying attempt into its line's run evidence (what
// finish_runs shows, independent of the order attempts arrive in).
// `new_shape`: the first attempt of its shape (LineIndex::shapes) on the
// line; the sets keyed by shape fields only (backends, kinds, gates) already
// hold what a repeat would add.
void add_run_evidence(detail::LineRuns& r, detail::LineIndex& index, const AttemptInfo& a, std::uint32_t run,
                      bool new_shape)
{
  const bool clean = is_clean(a);
  const StrengthView key{!is_verified(a), !clean, a.run_date, a.run_id, a.attempt_key};
  if (clean) {
    r.clean.insert(run, index.run_ids);
  }
  if (a.e2e_delta_pct) {
    r.e2e_runs.insert(run, index.run_ids);
  }
  if (!key.unverified && keep_stronger(r.verified, key)) {
    r.verified_speedup = a.validation_speedup;
  }
  if (validation_lost(a) && keep_stronger(r.lost, key)) {
    r.lost_class = a.run_validation_class;
    r.lost_speedup = a.validation_speedup;
  }
  const auto c = amdahl_ceiling_pct(a);
  if (c && a.e2e_delta_pct && *c > 0.0 && *a.e2e_delta_pct > domain::k_beyond_ceiling_factor * *c &&
      keep_stronger(r.beyond, key)) {
    r.beyond_e2e = *a.e2e_delta_pct;
    r.beyond_ceiling = *c;
  }
  if (!a.short_name.empty() && !is_config_trial(a)) {
    r.kernels.insert(a.short_name);
  }
  if (new_shape) {
    if (const std::string& b = index.one_line_of(a.backend); !b.empty()) {
      r.backends.insert(b);
    }
    if (!a.lever_kind.empty()) {
      r.kinds.insert(a.lever_kind);
    }
    // The gate shown: a config trial is kept; no gate reads "none".
    if (is_config_trial(a)) {
      r.gates.insert("kept");
    } else {
      r.gates.insert(a.gate.empty() ? std::string("none") : a.gate);
    }
  }
  detail::widen(r.iso_min, r.iso_max, a.isolated_speedup);
  detail::widen(r.e2e_min, r.e2e_max, a.e2e_delta_pct);
  if (a.e2e_delta_pct) {
    widen_band(r.e2e_band, a.e2e_band); // the widest band that passed one of the line's e2e figures
  }
  detail::bump_date(r.last_seen, a.run_date);
  if (keep_stronger(r.front, key)) {
    r.front_lever = a.lever.empty() ? index.lever_text(a) : a.lever;
    r.front_reason = a.reason;
  }
  // Only the references shown are kept, and how many there were.
  ++r.ref_count;
  if (r.refs.size() == k_refs_shown && !stronger(key, r.refs.back())) {
    return;
  }
  const auto at = std::upper_bound(r.refs.begin(), r.refs.end(), key, stronger);
  r.refs.insert(at, key.key());
  if (r.refs.size() > k_refs_shown) {
    r.refs.pop_back();
  }
}

} // namespace

const std::string& detail::LineIndex::one_line_of(const std::string& text)
{
  auto it = one_lines.find(text);
  if (it == one_lines.end()) {
    it = one_lines.emplace(text, one_line(text)).first;
  }
  return it->second;
}

const std::string& detail::LineIndex::lever_text(const AttemptInfo& a)
{
  static const std::string k_unnamed = "unnamed lever";
  if (const std::string& l = one_line_of(a.lever); !l.empty()) {
    return l;
  }
  if (const std::string& b = one_line_of(a.backend); !b.empty()) {
    return b;
  }
  return k_unnamed;
}

const std::string& detail::LineIndex::lever_key(const std::string& text, const std::string& op_class)
{
  scratch.assign(op_class);
  scratch += '\n';
  scratch += text;
  auto it = lever_keys.find(scratch);
  if (it == lever_keys.end()) {
    it = lever_keys.emplace(scratch, domain::lever_key(text, op_class)).first;
  }
  return it->second;
}

const std::pair<ReuseKey, std::string>& detail::LineIndex::reuse_key(const AttemptInfo& a)
{
  std::string& memo = scratch;
  memo.clear();
  memo += is_config_trial(a) ? 'c' : 'k';
  memo += a.op_class;
  memo += '\n';
  memo += a.gfx;
  memo += '\n';
  memo += a.regime;
  auto it = reuse_keys.find(memo);
  if (it == reuse_keys.end()) {
    it = reuse_keys.emplace(memo, std::pair<ReuseKey, std::string>()).first;
    it->second.first = attempt_reuse_key(a);
    it->second.second = it->second.first.text();
  }
  return it->second;
}

void detail::add_line_attempt(std::vector<Line>& lines, LineIndex& index, const AttemptInfo& a)
{
  // The line, its lever text and backend key follow from the attempt's
  // shape: found once per distinct shape.
  std::string& shape = index.shape_scratch;
  shape.clear();
  for (const std::string* field :
       {&a.kind, &a.lever_kind, &a.op_class, &a.gfx, &a.regime, &a.lever, &a.backend, &a.gate}) {
    const auto size =
        static_cast<std::uint32_t>(field->size()); // length-prefixed: free text may hold anything
    shape.append(reinterpret_cast<const char*>(&size), sizeof size);
    shape += *field;
  }
  const auto [at, new_shape] = index.shapes.try_emplace(shape, 0);
  if (new_shape) {
    const auto& [key, key_text] = index.reuse_key(a);
    const std::string& text = index.lever_text(a);
    const std::string& lever_key = index.lever_key(text, key.op_class);
    std::string& line_key = index.line_scratch;
    line_key.assign(key_text);
    line_key += '\n';
    line_key += lever_key;
    auto it = index.lines.find(line_key);
    if (it == index.lines.end()) {
      it = index.lines.emplace(line_key, lines.size()).first;
      lines.push_back(Line{});
      lines.back().key = key;
      lines.back().lever_key = lever_key;
    }
    at->second = it->second;
    Line& l = lines[it->second];
    l.spellings.insert(text);
    if (const std::string& b = index.one_line_of(a.backend); !b.empty()) {
      l.backend_keys.insert(index.lever_key(b, ""));
    }
  }
  Line& l = lines[at->second];
  const std::uint32_t run = index.run_ids->id_of(a.run_id, a.run_index);
  add_run_evidence(l.run_evidence, index, a, run, new_shape);
  l.runs.insert(run, index.run_ids);
  if (!a.content_signature.empty()) {
    l.signature_runs[a.content_signature].insert(a.run_id);
  }
}

namespace {

// Take `other` into `best` when it is stronger than what `best` holds; true
// when it was taken.
bool take_stronger(std::optional<StrengthKey>& best, std::optional<StrengthKey>& other)
{
  if (!other || (best && !detail::stronger_key(*other, *best))) {
    return false;
  }
  best = std::move(other);
  return true;
}

// Fold another digest's run evidence of one line into `r`: what
// add_run_evidence would hold had the other's attempts come here.
void merge_run_evidence(detail::LineRuns& r, detail::LineRuns&& o, const std::shared_ptr<detail::RunIds>& ids)
{
  for (auto& k : o.refs) { // strongest first: once one misses, the rest do
    if (r.refs.size() == k_refs_shown && !detail::stronger_key(k, r.refs.back())) {
      break;
    }
    const auto at = std::upper_bound(r.refs.begin(), r.refs.end(), k, detail::stronger_key);
    r.refs.insert(at, std::move(k));
    if (r.refs.size() > k_refs_shown) {
      r.refs.pop_back();
    }
  }
  r.ref_count += o.ref_count;
  if (take_stronger(r.front, o.front)) {
    r.front_lever = std::move(o.front_lever);
    r.front_reason = std::move(o.front_reason);
  }
  if (take_stronger(r.verified, o.verified)) {
    r.verified_speedup = o.verified_speedup;
  }
  if (take_stronger(r.lost, o.lost)) {
    r.lost_class = std::move(o.lost_class);
    r.lost_speedup = o.lost_speedup;
  }
  if (take_stronger(r.beyond, o.beyond)) {
    r.beyond_e2e = o.beyond_e2e;
    r.beyond_ceiling = o.beyond_ceiling;
  }
  r.kernels.merge(o.kernels);
  r.backends.merge(o.backends);
  r.kinds.merge(o.kinds);
  r.gates.merge(o.gates);
  r.clean.merge(o.clean, ids);
  r.e2e_runs.merge(o.e2e_runs, ids);
  detail::widen(r.iso_min, r.iso_max, o.iso_min);
  detail::widen(r.iso_min, r.iso_max, o.iso_max);
  detail::widen(r.e2e_min, r.e2e_max, o.e2e_min);
  detail::widen(r.e2e_min, r.e2e_max, o.e2e_max);
  if (o.e2e_band) {
    widen_band(r.e2e_band, *o.e2e_band);
  }
  detail::bump_date(r.last_seen, o.last_seen);
}

} // namespace

void detail::merge_lines(std::vector<Line>& lines, LineIndex& index, std::vector<Line>&& from)
{
  for (Line& l : from) {
    std::string key = l.key.text();
    key += '\n';
    key += l.lever_key;
    const auto [it, added] = index.lines.try_emplace(std::move(key), lines.size());
    if (added) {
      lines.push_back(Line{});
      lines.back().key = l.key;
      lines.back().lever_key = l.lever_key;
    }
    Line& to = lines[it->second];
    to.spellings.merge(l.spellings);
    to.backend_keys.merge(l.backend_keys);
    to.runs.merge(l.runs, index.run_ids);
    for (auto& [signature, runs] : l.signature_runs) {
      to.signature_runs[signature].merge(runs);
    }
    merge_run_evidence(to.run_evidence, std::move(l.run_evidence), index.run_ids);
  }
}

namespace {

template <typename Set> std::vector<std::string> to_vector(const Set& s)
{
  return {s.begin(), s.end()};
}

// Everything a line's run attempts say, in their strength order.
void finish_runs(Finding& f, const detail::LineRuns& r, TierEvidence& e)
{
  f.refs.reserve(r.refs.size());
  for (const StrengthKey& k : r.refs) { // kept strongest first
    f.refs.push_back({k.run_id, k.attempt_key, k.run_date});
  }
  f.ref_count = r.ref_count;
  if (r.verified) {
    f.verified_e2e = true;
    f.verified_speedup = r.verified_speedup;
  }
  if (r.lost) {
    f.lost_validation =
        LostValidation{{r.lost->run_id, r.lost->attempt_key, r.lost->run_date}, r.lost_class, r.lost_speedup};
  }
  if (r.beyond) {
    f.beyond_ceiling = BeyondCeiling{
        {r.beyond->run_id, r.beyond->attempt_key, r.beyond->run_date}, r.beyond_e2e, r.beyond_ceiling};
  }
  f.iso_min = r.iso_min;
  f.iso_max = r.iso_max;
  f.e2e_min_pct = r.e2e_min;
  f.e2e_max_pct = r.e2e_max;
  f.e2e_band = r.e2e_band;
  f.last_seen = r.last_seen;
  f.lever = one_line(r.front_lever);
  f.reason = first_sentence(r.front_reason, 160);
  f.kernels = to_vector(r.kernels);
  f.backends = to_vector(r.backends);
  f.lever_kind = r.kinds.empty() ? std::string() : *r.kinds.begin();
  f.gates = to_vector(r.gates);
  f.clean_run_ids = r.clean.sorted();
  f.e2e_run_count = static_cast<int>(r.e2e_runs.size());
  e.clean_sources += static_cast<int>(r.clean.size());
  e.clean_runs = static_cast<int>(r.clean.size());
  e.verified_e2e = f.verified_e2e;
  e.validation_lost = f.lost_validation.has_value();
  e.lost_speedup = f.lost_validation ? f.lost_validation->speedup : std::nullopt;
  e.run_evidence = true;
}

// What the kb records on a line add to its evidence (rules in kb_lines.hpp): the records that
// count are one source, clean when one of them was validated; the runs that reproduce them; the
// first retired one caps the line. A kb-only line takes the records' figures and date.
void kb_tier_evidence(const Line& l, Finding& f, TierEvidence& e)
{
  std::set<std::string> reproducing;
  for (const KbSource& k : l.kb_sources) {
    if (k.retired) {
      if (e.kb_retired.empty()) {
        e.kb_retired = k.record_key;
      }
      continue;
    }
    e.kb_source = true;
    e.kb_validated = e.kb_validated || k.validations > 0;
    e.kb_geak_reproductions = std::max(e.kb_geak_reproductions, k.geak_reproductions);
    reproducing.insert(k.reproduced_by.begin(), k.reproduced_by.end());
  }
  e.kb_run_reproductions = static_cast<int>(reproducing.size());
  if (e.kb_source) {
    e.agreeing_sources += 1;
    e.clean_sources += e.kb_validated ? 1 : 0;
  }
  if (l.kb_only) {
    f.lever = l.display;
    f.iso_min = l.kb_iso_min;
    f.iso_max = l.kb_iso_max;
    f.e2e_min_pct = l.kb_e2e_min;
    f.e2e_max_pct = l.kb_e2e_max;
    f.kernels = to_vector(l.run_evidence.kernels);
    f.backends = to_vector(l.run_evidence.backends);
    f.last_seen = l.kb_last_seen;
  }
}

Finding finish_line(const Line& l, std::string_view as_of)
{
  Finding f;
  f.key = l.key;
  f.lever_key = l.lever_key;
  f.spellings = to_vector(l.spellings);
  f.run_ids = l.runs.sorted();
  TierEvidence e;
  // Imported knowledge is one source — unless every imported finding on the
  // line restates one of its runs (then it is that run's evidence).
  const bool imported_source = l.independent_import;
  e.agreeing_sources = static_cast<int>(l.runs.size()) + (imported_source ? 1 : 0);
  if (l.run_evidence.ref_count != 0) {
    finish_runs(f, l.run_evidence, e);
  } else {
    f.lever = l.display;
  }
  f.imported_identities = to_vector(l.imported_ids);
  f.imported_sources = l.sources;
  f.cautions = l.cautions;
  f.imported_stars = l.imported_stars;
  f.imported_last_seen = l.imported_last_seen;
  f.restated_runs = to_vector(l.restated_runs);
  if (imported_source) {
    e.imported_stars = l.imported_stars;
    e.clean_sources += l.imported_stars >= 2 ? 1 : 0;
    detail::widen(f.iso_min, f.iso_max, l.imported_iso_min);
    detail::widen(f.iso_min, f.iso_max, l.imported_iso_max);
    detail::widen(f.e2e_min_pct, f.e2e_max_pct, l.imported_e2e_min);
    detail::widen(f.e2e_min_pct, f.e2e_max_pct, l.imported_e2e_max);
    detail::bump_date(f.last_seen, l.imported_last_seen);
  }
  f.kb_sources = l.kb_sources;
  f.kb_only = l.kb_only;
  kb_tier_evidence(l, f, e);
  const Tier tier = assign_tier(e);
  f.stars = tier.stars;
  f.tier_reason = tier.reason;
  f.confirms = static_cast<int>(l.runs.size()) + (imported_source ? std::max(1, l.imported_confirms) : 0) +
               (e.kb_source ? 1 : 0);
  f.freshness = freshness(as_of, f.last_seen);
  f.rank = eviction_rank(f.stars, f.freshness);
  return f;
}

bool report_less(const Finding& a, const Finding& b)
{
  if (!(a.key == b.key)) {
    return key_less(a.key, b.key);
  }
  return std::forward_as_tuple(b.stars, b.rank, b.last_seen, a.lever_key) <
         std::forward_as_tuple(a.stars, a.rank, a.last_seen, b.lever_key);
}

bool eviction_less(const Finding& a, const Finding& b)
{
  if (a.rank != b.rank) {
    return a.rank < b.rank;
  }
  if (a.last_seen != b.last_seen) {
    return a.last_seen < b.last_seen;
  }
  if (!(a.key == b.key)) {
    return key_less(a.key, b.key);
  }
  return a.lever_key < b.lever_key;
}

int op_class_order(std::string_view op_class)
{
  static constexpr std::string_view k_order[] = {"gemm",   "moe",    "attn",   "elementwise",
                                                 "config", "method", "unknown"};
  for (int i = 0; i < 7; ++i) {
    if (k_order[i] == op_class) {
      return i;
    }
  }
  return 7;
}

bool loose(std::string_view v, std::initializer_list<std::string_view> wildcards)
{
  return std::find(wildcards.begin(), wildcards.end(), v) != wildcards.end();
}

} // namespace

bool is_config_trial(const AttemptInfo& a)
{
  return domain::is(a.kind, domain::AttemptKind::config) ||
         (domain::is(a.lever_kind, domain::LeverKind::config) &&
          domain::is(domain::op_class_key(a.op_class), domain::OpClass::unknown));
}

ReuseKey attempt_reuse_key(const AttemptInfo& a)
{
  if (is_config_trial(a)) {
    const domain::Regime regime = domain::regime_of(a.regime);
    return {
        std::string(domain::to_string(domain::ReuseClass::config)), domain::gfx_key(a.gfx),
        std::string(domain::to_string(regime == domain::Regime::unknown ? domain::Regime::both : regime))};
  }
  return {domain::op_class_key(a.op_class), domain::gfx_key(a.gfx), domain::normalize_regime(a.regime)};
}

std::string attempt_lever_text(const AttemptInfo& a)
{
  for (std::string_view t : {std::string_view(a.lever), std::string_view(a.backend)}) {
    if (std::string l = one_line(t); !l.empty()) {
      return l;
    }
  }
  return "unnamed lever";
}

bool validation_includes(const AttemptInfo& a)
{
  return is_config_trial(a) ? domain::is(a.verdict, domain::Verdict::confirmed) : a.deployed;
}

bool validation_won(const AttemptInfo& a)
{
  return domain::is(a.run_validation_class, domain::ValidationClass::win) && a.validation_speedup &&
         *a.validation_speedup > 1.0;
}

bool validation_lost(const AttemptInfo& a)
{
  return validation_includes(a) && (domain::is(a.run_validation_class, domain::ValidationClass::no_win) ||
                                    (a.validation_speedup && *a.validation_speedup <= 1.0));
}

std::optional<double> amdahl_ceiling_pct(const AttemptInfo& a)
{
  if (!a.prediction.pct_gpu_time || !a.isolated_speedup || *a.isolated_speedup <= 1.0) {
    return std::nullopt;
  }
  return domain::amdahl_gain_pct(*a.prediction.pct_gpu_time, *a.isolated_speedup);
}

bool speed_is_evidence(const AttemptInfo& a)
{
  return !domain::parity_failed(util::lower_ascii(a.output_parity), a.reject_reason) &&
         !domain::is(a.reject_reason, domain::RejectReason::no_engagement);
}

namespace {

// what_works_exclusion's reason for an attempt whose gate is neither
// accepted nor stack: it is spelled with the gate's name.
constexpr std::string_view k_other_gate = "gate";

// what_works_exclusion as a fixed text (k_other_gate for "gate <gate>").
std::string_view exclusion(const AttemptInfo& a)
{
  if (!a.measured) {
    return "not measured";
  }
  if (domain::is(util::lower_ascii(a.output_parity), domain::OutputParity::fail)) {
    return "output parity failed";
  }
  if (domain::is(a.reject_reason, domain::RejectReason::no_engagement)) {
    return "engagement refused";
  }
  if (!is_e2e_win(a)) {
    if (!a.e2e_delta_pct) {
      return "e2e not measured";
    }
    return a.e2e_band.source == domain::BandSource::measured && *a.e2e_delta_pct > domain::k_e2e_noise_pct
               ? "e2e inside the run's measured spread"
               : "e2e inside the noise band or a loss";
  }
  if (is_config_trial(a) || !a.isolated_speedup) {
    // A serving-config lever: no isolated measurement, its trial kept.
    const bool kept = is_config_trial(a) ? domain::is(a.verdict, domain::Verdict::confirmed)
                                         : domain::is(a.gate, domain::Gate::accepted);
    return kept ? "" : "trial not kept";
  }
  if (!is_iso_win(a)) {
    return "isolated speedup inside the noise band";
  }
  if (domain::is(a.gate, domain::Gate::accepted)) {
    return "";
  }
  if (domain::is(a.gate, domain::Gate::stack)) {
    return validation_won(a) && validation_includes(a) ? "" : "stacked without a Director win";
  }
  return a.gate.empty() ? "no A/B gate" : k_other_gate;
}

} // namespace

std::string what_works_exclusion(const AttemptInfo& a)
{
  const std::string_view why = exclusion(a);
  return why == k_other_gate ? fmt::format("gate {}", a.gate) : std::string(why);
}

bool in_what_works(const AttemptInfo& a)
{
  return exclusion(a).empty();
}

std::string ReuseKey::text() const
{
  return fmt::format("{} \u00b7 {} \u00b7 {}", op_class, gfx, regime);
}

bool key_less(const ReuseKey& a, const ReuseKey& b)
{
  return std::make_tuple(op_class_order(a.op_class), a.op_class, a.gfx, a.regime) <
         std::make_tuple(op_class_order(b.op_class), b.op_class, b.gfx, b.regime);
}

bool key_compatible(const ReuseKey& a, const ReuseKey& b)
{
  const auto same = [](const std::string& x, const std::string& y,
                       std::initializer_list<std::string_view> wildcards) {
    return x == y || loose(x, wildcards) || loose(y, wildcards);
  };
  return same(a.gfx, b.gfx, {"unknown"}) && same(a.op_class, b.op_class, {"unknown", "method", "config"}) &&
         same(a.regime, b.regime, {"unknown", "both"});
}

std::string source_key(std::string_view text)
{
  std::string kept;
  for (const char c : text) {
    if (c != '\\' && c != '<' && c != '>') {
      kept += c;
    }
  }
  return one_line(kept);
}

namespace {

// True when the word that ends at `dot` (a '.') is an abbreviation whose
// period ends no sentence ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.").
bool abbreviation_before(std::string_view t, std::size_t dot)
{
  std::size_t start = dot;
  while (start > 0 && (std::isalpha(static_cast<unsigned char>(t[start - 1])) != 0 || t[start - 1] == '.')) {
    --start;
  }
  const std::string word = util::lower_ascii(t.substr(start, dot - start));
  return word == "e.g" || word == "i.e" || word == "vs" || word == "etc" || word == "cf" ||
         word == "approx" || word == "fig" || word == "no" || word == "eq";
}

// Offsets of `t` outside parentheses, brackets and code spans: where a
// sentence may end or a title may be shortened.
std::vector<bool> at_top_level(std::string_view t)
{
  std::vector<bool> top(t.size() + 1, true);
  int depth = 0;
  bool code = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '`') {
      code = !code;
    } else if (!code && (c == '(' || c == '[')) {
      ++depth;
    } else if (!code && (c == ')' || c == ']') && depth > 0) {
      --depth;
    }
    top[i + 1] = depth == 0 && !code;
  }
  return top;
}

} // namespace

std::string first_sentence(std::string_view text, std::size_t max_chars)
{
  std::string t = one_line(text);
  const std::vector<bool> top = at_top_level(t);
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (!top[i + 1] || t[i + 1] != ' ' || (t[i] != '.' && t[i] != ';')) {
      continue;
    }
    if (t[i] == '.' && abbreviation_before(t, i)) {
      continue;
    }
    t.resize(i + (t[i] == '.' ? 1 : 0));
    break;
  }
  if (util::utf8_length(t) <= max_chars || max_chars == 0) {
    return t;
  }
  // Shorten at the last word boundary outside parentheses and code that
  // leaves room for "…"; a text without one is cut at the code point.
  const std::size_t limit = util::utf8_floor(t, util::utf8_prefix(t, max_chars - 1).size());
  const std::vector<bool> top_cut = at_top_level(t);
  for (std::size_t i = limit; i > 0; --i) {
    if (t[i - 1] == ' ' && top_cut[i - 1]) {
      std::string out = t.substr(0, i - 1);
      while (!out.empty() &&
             (out.back() == ',' || out.back() == ' ' || out.back() == ':' || out.back() == '-')) {
        out.pop_back();
      }
      return out + "\u2026";
    }
  }
  return util::truncate_utf8(t, max_chars);
}

double freshness(std::string_view as_of, std::string_view last_seen)
{
  const auto to = util::parse_iso_date(as_of);
  const auto from = util::parse_iso_date(last_seen);
  if (!to || !from) {
    return 0.0;
  }
  const double days = static_cast<double>(util::days_between(*from, *to));
  return std::clamp(1.0 - days / k_freshness_days, 0.0, 1.0);
}

double eviction_rank(int stars, double fresh)
{
  return stars * (0.25 + 0.75 * fresh);
}

std::vector<Finding> apply_line_cap(std::vector<Finding>& findings, std::size_t cap)
{
  if (findings.size() <= cap) {
    return {};
  }
  std::vector<Finding> candidates;
  for (const Finding& f : findings) {
    if (f.stars < 3) {
      candidates.push_back(f);
    }
  }
  std::sort(candidates.begin(), candidates.end(), eviction_less);
  candidates.resize(std::min(candidates.size(), findings.size() - cap));
  std::erase_if(findings, [&](const Finding& f) {
    return std::any_of(candidates.begin(), candidates.end(),
                       [&](const Finding& e) { return e.key == f.key && e.lever_key == f.lever_key; });
  });
  return candidates;
}

std::vector<Finding> build_findings(const ReportInput& scoped, std::string_view as_of)
{
  std::vector<Line> lines;
  detail::LineIndex index;
  for (const AttemptInfo& a : scoped.attempts) {
    if (in_what_works(a)) {
      detail::add_line_attempt(lines, index, a);
    }
  }
  return detail::findings_from_lines(std::move(lines), scoped, as_of);
}

std::vector<Finding> detail::findings_from_lines(std::vector<Line> lines, const ReportInput& scoped,
                                                 std::string_view as_of)
{
  // Run lines in report order before the imported findings look for a match,
  // so the result does not depend on the order attempts arrived in.
  std::sort(lines.begin(), lines.end(), [](const Line& x, const Line& y) {
    return x.key == y.key ? x.lever_key < y.lever_key : key_less(x.key, y.key);
  });
  detail::merge_imported(lines, scoped);
  detail::merge_kb(lines, scoped);
  std::vector<Finding> findings;
  findings.reserve(lines.size());
  for (Line& l : lines) {
    findings.push_back(finish_line(l, as_of));
    l = Line{}; // released as it is converted: the lines and findings are never both held whole
  }
  std::sort(findings.begin(), findings.end(), report_less);
  return findings;
}

namespace detail {

const std::vector<std::uint32_t>& RunIds::ranks() const
{
  if (m_ranks.size() != m_names.size()) {
    std::vector<std::uint32_t> by_name(m_names.size());
    for (std::uint32_t i = 0; i < by_name.size(); ++i) {
      by_name[i] = i;
    }
    std::sort(by_name.begin(), by_name.end(),
              [&](std::uint32_t x, std::uint32_t y) { return *m_names[x] < *m_names[y]; });
    m_ranks.resize(by_name.size());
    for (std::uint32_t r = 0; r < by_name.size(); ++r) {
      m_ranks[by_name[r]] = r;
    }
  }
  return m_ranks;
}

std::vector<std::string> RunSet::sorted() const
{
  std::vector<std::uint32_t> ids;
  ids.reserve(m_size);
  if (m_bits.empty()) {
    ids = m_small;
  } else {
    for (std::uint32_t i = 0; i < m_bits.size(); ++i) {
      if (m_bits[i]) {
        ids.push_back(i);
      }
    }
  }
  std::vector<std::string> out;
  if (ids.empty()) {
    return out;
  }
  const auto& ranks = m_ids->ranks();
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t x, std::uint32_t y) { return ranks[x] < ranks[y]; });
  out.reserve(ids.size());
  for (const std::uint32_t i : ids) {
    out.push_back(m_ids->name(i));
  }
  return out;
}

bool stronger_key(const StrengthKey& x, const StrengthKey& y)
{
  return std::tie(x.unverified, x.unclean, y.run_date, x.run_id, x.attempt_key) <
         std::tie(y.unverified, y.unclean, x.run_date, y.run_id, y.attempt_key);
}

void widen(std::optional<double>& lo, std::optional<double>& hi, const std::optional<double>& v)
{
  if (!v) {
    return;
  }
  lo = lo ? std::min(*lo, *v) : *v;
  hi = hi ? std::max(*hi, *v) : *v;
}

void bump_date(std::string& date, std::string_view candidate)
{
  if (candidate > std::string_view(date) && util::parse_iso_date(candidate)) {
    date = std::string(candidate);
  }
}

} // namespace detail

} // namespace rfdb::report
