// Findings per reuse key, tiers and the line cap (rules in report/findings.hpp).
#include "report/findings.hpp"

#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace rfdb::report {

namespace {

constexpr double k_iso_win = 1.0 + k_iso_noise;

bool is_iso_win(const AttemptInfo& a)
{
  return a.isolated_speedup && *a.isolated_speedup > k_iso_win;
}
bool is_e2e_win(const AttemptInfo& a)
{
  return a.e2e_delta_pct && *a.e2e_delta_pct > k_e2e_noise_pct;
}
bool is_e2e_loss(const AttemptInfo& a)
{
  return a.e2e_delta_pct && *a.e2e_delta_pct <= -k_e2e_noise_pct;
}

bool is_positive(const AttemptInfo& a)
{
  if (a.verdict == "dead_end" || a.verdict == "flagged" || is_e2e_loss(a)) {
    return false;
  }
  return is_iso_win(a) || (!a.isolated_speedup && is_e2e_win(a));
}

bool is_clean(const AttemptInfo& a)
{
  return is_iso_win(a) && is_e2e_win(a) && a.gate == "accepted";
}
bool is_verified(const AttemptInfo& a)
{
  return a.run_validation_class == "win" && a.gate == "accepted";
}

std::string op_class_or_unknown(std::string_view op_class)
{
  const std::string op = lever_match_key(op_class);
  return op.empty() ? std::string("unknown") : op;
}

// Accumulates one line while attempts and imported findings are merged.
struct Line {
  ReuseKey key;
  std::string lever_key;
  std::set<std::string> lever_variants;
  std::set<std::string> runs;
  std::set<std::string> clean_runs;
  std::set<std::string> e2e_runs; // runs whose attempt measured e2e
  std::set<std::string> backends;
  std::set<std::string> backend_keys;
  std::set<std::string> kernels;
  std::set<std::string> kinds;
  std::set<std::string> imported_ids;
  std::vector<std::string> sources;
  std::set<std::string> source_set;
  std::vector<std::string> cautions;
  bool verified = false;
  int imported_agree = 0;
  int imported_clean = 0;
  int imported_stars = 0;
  int imported_confirms = 0;
  std::optional<double> iso_min, iso_max, e2e_min, e2e_max;
  std::string last_seen;
};

void widen(std::optional<double>& lo, std::optional<double>& hi, const std::optional<double>& v)
{
  if (!v) {
    return;
  }
  lo = lo ? std::min(*lo, *v) : *v;
  hi = hi ? std::max(*hi, *v) : *v;
}

void bump_last_seen(std::string& last_seen, std::string_view date)
{
  if (util::parse_iso_date(date) && std::string(date) > last_seen) {
    last_seen = std::string(date);
  }
}

Line* find_line(std::vector<Line>& lines, const ReuseKey& key, const std::string& lever_key)
{
  for (Line& l : lines) {
    if (l.key == key && l.lever_key == lever_key) {
      return &l;
    }
  }
  for (Line& l : lines) {
    if (l.key == key && l.backend_keys.count(lever_key) > 0) {
      return &l;
    }
  }
  return nullptr;
}

void add_attempt(std::vector<Line>& lines, const AttemptInfo& a)
{
  const ReuseKey key = attempt_reuse_key(a);
  std::string display = one_line(a.lever);
  if (display.empty()) {
    display = one_line(a.backend);
  }
  if (display.empty()) {
    display = "unnamed lever";
  }
  const std::string lever_key = lever_match_key(display);
  auto it = std::find_if(lines.begin(), lines.end(),
                         [&](const Line& l) { return l.key == key && l.lever_key == lever_key; });
  if (it == lines.end()) {
    lines.push_back(Line{});
    it = std::prev(lines.end());
    it->key = key;
    it->lever_key = lever_key;
  }
  Line& l = *it;
  l.lever_variants.insert(display);
  l.runs.insert(a.run_id);
  if (is_clean(a)) {
    l.clean_runs.insert(a.run_id);
  }
  l.verified = l.verified || is_verified(a);
  if (const std::string b = one_line(a.backend); !b.empty()) {
    l.backends.insert(b);
    l.backend_keys.insert(lever_match_key(b));
  }
  if (!a.short_name.empty() && !is_config_trial(a)) {
    l.kernels.insert(a.short_name);
  }
  if (a.e2e_delta_pct) {
    l.e2e_runs.insert(a.run_id);
  }
  if (!a.lever_kind.empty()) {
    l.kinds.insert(a.lever_kind);
  }
  widen(l.iso_min, l.iso_max, a.isolated_speedup);
  widen(l.e2e_min, l.e2e_max, a.e2e_delta_pct);
  bump_last_seen(l.last_seen, a.run_date);
}

// True when `source` is already on the line: one of its run ids (optionally
// "run <id>…") or a source an earlier imported finding brought.
bool covers(const Line& l, std::string_view source)
{
  const std::string s = source_key(source);
  if (l.source_set.count(s) > 0 || l.runs.count(s) > 0) {
    return true;
  }
  std::string_view v = s;
  if (v.size() > 4 && lever_match_key(v.substr(0, 4)) == "run") {
    v.remove_prefix(4);
  }
  const std::string token(v.substr(0, v.find_first_of(" ,;()")));
  return l.runs.count(token) > 0;
}

std::vector<std::string> cited_sources(const ImportedFinding& f)
{
  std::vector<std::string> cited;
  for (const auto& s : f.sources_cited) {
    if (std::string t = one_line(s); !t.empty()) {
      cited.push_back(std::move(t));
    }
  }
  if (cited.empty()) {
    cited.push_back(fmt::format("{} {}", f.origin, f.identity));
  }
  return cited;
}

void merge_imported(Line& l, const ImportedFinding& f, const std::vector<std::string>& cited)
{
  const int stars = std::clamp(f.stars.value_or(1), 1, 3);
  l.imported_ids.insert(f.identity);
  l.imported_agree += 1;
  l.imported_clean += stars >= 2 ? 1 : 0;
  l.imported_stars = std::max(l.imported_stars, stars);
  l.imported_confirms += std::max(1, f.confirms.value_or(1));
  for (const auto& s : cited) {
    if (!covers(l, s)) {
      l.sources.push_back(s);
      l.source_set.insert(source_key(s));
    }
  }
  widen(l.iso_min, l.iso_max, f.iso_min);
  widen(l.iso_min, l.iso_max, f.iso_max);
  widen(l.e2e_min, l.e2e_max, f.e2e_min_pct);
  widen(l.e2e_min, l.e2e_max, f.e2e_max_pct);
  bump_last_seen(l.last_seen, f.last_seen);
  for (const auto& c : f.cautions) {
    if (std::string t = one_line(c);
        !t.empty() && std::find(l.cautions.begin(), l.cautions.end(), t) == l.cautions.end()) {
      l.cautions.push_back(std::move(t));
    }
  }
}

// Imported findings in merge order: other producers first, our own cards
// last (so they are recognized as already covered), then by identity.
std::vector<const ImportedFinding*> merge_order(const std::vector<ImportedFinding>& imported)
{
  std::vector<const ImportedFinding*> order;
  for (const auto& f : imported) {
    if (f.lifecycle != "archived") {
      order.push_back(&f);
    }
  }
  std::sort(order.begin(), order.end(), [](const ImportedFinding* a, const ImportedFinding* b) {
    return std::forward_as_tuple(a->generator == "rfdb", a->identity, a->origin, a->lever, a->name,
                                 a->last_seen) < std::forward_as_tuple(b->generator == "rfdb", b->identity,
                                                                       b->origin, b->lever, b->name,
                                                                       b->last_seen);
  });
  return order;
}

void add_imported(std::vector<Line>& lines, const ImportedFinding& f)
{
  const ReuseKey key{op_class_or_unknown(f.op_class), normalize_gfx(f.gfx), normalize_regime(f.regime)};
  std::string display = one_line(f.lever);
  for (std::string_view fallback : {std::string_view(f.name), std::string_view(f.identity)}) {
    if (display.empty()) {
      display = one_line(fallback);
    }
  }
  const std::string lever_key = lever_match_key(display);
  const auto cited = cited_sources(f);
  Line* line = find_line(lines, key, lever_key);
  if (line != nullptr &&
      std::all_of(cited.begin(), cited.end(), [&](const std::string& s) { return covers(*line, s); })) {
    return; // not independent: it only restates evidence already on the line
  }
  if (line == nullptr) {
    lines.push_back(Line{});
    line = &lines.back();
    line->key = key;
    line->lever_key = lever_key;
    line->lever_variants.insert(display);
  }
  merge_imported(*line, f, cited);
}

template <typename Set> std::vector<std::string> to_vector(const Set& s)
{
  return {s.begin(), s.end()};
}

Finding finish_line(const Line& l, std::string_view as_of)
{
  Finding f;
  f.key = l.key;
  f.lever = *l.lever_variants.begin(); // variants differ only in case/spacing
  f.lever_key = l.lever_key;
  f.lever_kind = l.kinds.empty() ? std::string() : *l.kinds.begin();
  f.backends = to_vector(l.backends);
  f.kernels = to_vector(l.kernels);
  const Tier tier =
      assign_tier({static_cast<int>(l.runs.size()) + l.imported_agree,
                   static_cast<int>(l.clean_runs.size()) + l.imported_clean, l.verified, l.imported_stars});
  f.stars = tier.stars;
  f.tier_reason = tier.reason;
  f.iso_min = l.iso_min;
  f.iso_max = l.iso_max;
  f.e2e_min_pct = l.e2e_min;
  f.e2e_max_pct = l.e2e_max;
  f.confirms = static_cast<int>(l.runs.size()) + l.imported_confirms;
  f.run_ids = to_vector(l.runs);
  f.e2e_run_count = static_cast<int>(l.e2e_runs.size());
  f.clean_run_ids = to_vector(l.clean_runs);
  f.verified_e2e = l.verified;
  f.imported_identities = to_vector(l.imported_ids);
  f.imported_sources = l.sources;
  f.cautions = l.cautions;
  f.last_seen = l.last_seen;
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

} // namespace

bool is_config_trial(const AttemptInfo& a)
{
  return a.lever_kind == "config" && op_class_or_unknown(a.op_class) == "unknown";
}

ReuseKey attempt_reuse_key(const AttemptInfo& a)
{
  if (is_config_trial(a)) {
    const std::string regime = normalize_regime(a.regime);
    return {"config", normalize_gfx(a.gfx), regime == "unknown" ? std::string("both") : regime};
  }
  return {op_class_or_unknown(a.op_class), normalize_gfx(a.gfx), normalize_regime(a.regime)};
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

std::string normalize_gfx(std::string_view gfx)
{
  const std::string g = lever_match_key(gfx);
  return g.empty() ? std::string("unknown") : g;
}

std::string normalize_regime(std::string_view regime)
{
  const std::string r = lever_match_key(regime);
  for (std::string_view both : {"both", "mixed", "any", "prefill+decode", "decode+prefill"}) {
    if (r == both) {
      return "both";
    }
  }
  const bool decode = r.find("decode") != std::string::npos;
  const bool prefill = r.find("prefill") != std::string::npos;
  if (decode && prefill) {
    return "both";
  }
  return decode ? "decode" : prefill ? "prefill" : "unknown";
}

std::string lever_match_key(std::string_view lever)
{
  std::string out;
  for (const char c : source_key(lever)) {
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
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

Tier assign_tier(const TierEvidence& e)
{
  const bool imported = e.imported_stars > 0;
  const char* unit = imported ? "sources" : "runs";
  Tier t;
  if (e.verified_e2e) {
    t = {3, "verified end-to-end win"};
  } else if (e.clean_sources >= 2) {
    t = {3, fmt::format("{} independent clean {}", e.clean_sources, unit)};
  } else if (e.clean_sources == 1) {
    t = {2, imported ? "one clean source" : "one clean run"};
  } else if (e.agreeing_sources >= 2) {
    t = {2, fmt::format("{} agreeing {}", e.agreeing_sources, unit)};
  } else {
    t = {1, !imported ? "single run, e2e overlapping or unverified"
                      : "single source, e2e overlapping or unverified"};
  }
  if (e.imported_stars > t.stars) {
    t = {e.imported_stars, fmt::format("imported {}", stars_text(e.imported_stars))};
  }
  return t;
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
  for (const AttemptInfo& a : scoped.attempts) {
    if (is_positive(a)) {
      add_attempt(lines, a);
    }
  }
  for (const ImportedFinding* f : merge_order(scoped.imported)) {
    add_imported(lines, *f);
  }
  std::vector<Finding> findings;
  findings.reserve(lines.size());
  for (const Line& l : lines) {
    findings.push_back(finish_line(l, as_of));
  }
  std::sort(findings.begin(), findings.end(), report_less);
  return findings;
}

} // namespace rfdb::report
