// `rfdb lookup`'s rules (see lookup.hpp and docs/lookup.md).
#include "report/lookup.hpp"

#include "report/tiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace rfdb::report {

namespace {

std::string lower(std::string_view s)
{
  std::string out(s);
  for (auto& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool is_separator(char c)
{
  return c == '_' || c == '-' || c == '.' || std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::set<std::string> tokens(std::string_view name)
{
  std::set<std::string> out;
  std::string cur;
  for (const char c : name) {
    if (is_separator(c)) {
      if (!cur.empty()) {
        out.insert(lower(cur));
      }
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) {
    out.insert(lower(cur));
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<double> median(std::vector<double> v)
{
  if (v.empty()) {
    return std::nullopt;
  }
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool filters_pass(const LookupQuery& q, const LookupCandidate& c)
{
  if (q.backend && !c.backend.empty() && lower(*q.backend) != lower(c.backend)) {
    return false;
  }
  if (q.dtype && !precision_matches(*q.dtype, c.dtype)) {
    return false;
  }
  if (q.model && lower(c.model).find(lower(*q.model)) == std::string::npos) {
    return false;
  }
  if ((q.isl && c.isl != q.isl) || (q.osl && c.osl != q.osl) || (q.conc && c.conc != q.conc)) {
    return false;
  }
  if (q.shape && !c.shapes.empty() &&
      std::find(c.shapes.begin(), c.shapes.end(), *q.shape) == c.shapes.end()) {
    return false;
  }
  if (q.case_name && !c.cases.empty() &&
      std::find(c.cases.begin(), c.cases.end(), *q.case_name) == c.cases.end()) {
    return false;
  }
  return true;
}

// Newest first: date descending, then run id, then attempt key.
bool newer(const LookupCandidate* a, const LookupCandidate* b)
{
  return std::tie(b->date, a->run_id, a->attempt_key) < std::tie(a->date, b->run_id, b->attempt_key);
}

LookupLever make_lever(const std::vector<const LookupCandidate*>& all,
                       const std::vector<const LookupCandidate*>& key_wins)
{
  std::vector<const LookupCandidate*> wins;
  for (const auto* c : all) {
    if (c->win) {
      wins.push_back(c);
    }
  }
  std::sort(wins.begin(), wins.end(), newer);
  const LookupCandidate& head = *wins.front();
  LookupLever l;
  l.lever = head.lever;
  l.lever_key = head.lever_key;
  l.lever_kind = head.lever_kind;
  l.apply_kind = head.apply_kind;
  l.apply = head.apply;
  l.files = head.files;
  if (!head.files.empty() && head.source == "run") {
    l.export_command = fmt::format("rfdb export --raw {} --out DIR", head.run_id);
  }
  std::vector<double> iso, e2e;
  std::set<std::string> signatures;
  TierEvidence ev;
  ev.run_evidence = true;
  std::set<std::string> runs, clean_runs;
  for (const auto* c : wins) {
    if (c->isolated_speedup) {
      iso.push_back(*c->isolated_speedup);
    }
    if (c->e2e_delta_pct) {
      e2e.push_back(*c->e2e_delta_pct);
    }
    if (!c->content_signature.empty()) {
      signatures.insert(c->content_signature);
    }
    l.refs.push_back(c->run_id + "#" + c->attempt_key);
    if (runs.insert(c->run_id).second) {
      l.runs.push_back(c->run_id);
    }
    if (c->clean) {
      clean_runs.insert(c->run_id);
    }
    ev.verified_e2e = ev.verified_e2e || c->verified_e2e;
  }
  for (const auto* c : all) {
    if (c->validation_lost && !ev.validation_lost) {
      ev.validation_lost = true;
      ev.lost_speedup = c->validation_speedup;
    }
  }
  // Reproductions: independent runs that measured a win of the same lever key, or of the
  // same implementation (a signature one of its wins carries) under another lever text.
  std::set<std::string> reproducing = runs;
  for (const auto* c : key_wins) {
    if (!c->content_signature.empty() && signatures.count(c->content_signature) != 0) {
      reproducing.insert(c->run_id);
    }
  }
  l.reproductions = static_cast<int>(reproducing.size());
  l.signatures.assign(signatures.begin(), signatures.end());
  l.iso_median = median(iso);
  l.e2e_median_pct = median(e2e);
  if (!iso.empty()) {
    l.iso_min = *std::min_element(iso.begin(), iso.end());
    l.iso_max = *std::max_element(iso.begin(), iso.end());
  }
  if (!e2e.empty()) {
    l.e2e_min_pct = *std::min_element(e2e.begin(), e2e.end());
    l.e2e_max_pct = *std::max_element(e2e.begin(), e2e.end());
  }
  ev.agreeing_sources = static_cast<int>(reproducing.size());
  ev.clean_sources = static_cast<int>(clean_runs.size());
  ev.clean_runs = ev.clean_sources;
  const Tier tier = assign_tier(ev);
  l.stars = tier.stars;
  l.tier_reason = tier.reason;
  l.freshness = head.date;
  l.stack = head.stack;
  l.attempts = static_cast<int>(all.size());
  return l;
}

bool lever_before(const LookupLever& a, const LookupLever& b)
{
  const double ea = a.e2e_median_pct.value_or(-1e300);
  const double eb = b.e2e_median_pct.value_or(-1e300);
  const double ia = a.iso_median.value_or(-1e300);
  const double ib = b.iso_median.value_or(-1e300);
  return std::tie(b.stars, eb, ib, b.reproductions, a.lever_key) <
         std::tie(a.stars, ea, ia, a.reproductions, b.lever_key);
}

} // namespace

std::string fold_kernel_name(std::string_view name)
{
  std::string out;
  for (const char c : name) {
    if (!is_separator(c)) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

std::string normalize_precision(std::string_view dtype)
{
  std::string s;
  bool run = false;
  for (const char c : dtype) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && std::isalnum(u) != 0) {
      s.push_back(static_cast<char>(std::tolower(u)));
      run = false;
    } else if (!run) {
      s.push_back('_');
      run = true;
    }
  }
  // Python's strip("_") is not applied by GEAK; leading/trailing separators stay folded to "_".
  const auto cut = s.find('_');
  const std::string head = s.substr(0, cut);
  const std::string rest = cut == std::string::npos ? "" : s.substr(cut);
  static const std::map<std::string, std::string, std::less<>> aliases{
      {"float8", "fp8"},    {"f8", "fp8"},  {"float16", "fp16"}, {"f16", "fp16"}, {"half", "fp16"},
      {"bfloat16", "bf16"}, {"bf", "bf16"}, {"float32", "fp32"}, {"f32", "fp32"}, {"float", "fp32"}};
  const auto it = aliases.find(head);
  return (it == aliases.end() ? head : it->second) + rest;
}

bool precision_matches(std::string_view wanted, std::string_view stated)
{
  const std::string a = normalize_precision(wanted);
  const std::string b = normalize_precision(stated);
  if (a.empty() || b.empty() || a == b) {
    return true;
  }
  const auto refines = [](const std::string& base, const std::string& refined) {
    return refined.size() > base.size() && refined.starts_with(base) && refined[base.size()] == '_';
  };
  return refines(a, b) || refines(b, a);
}

LookupAnswer lookup(const LookupQuery& query, const std::vector<LookupCandidate>& candidates)
{
  LookupAnswer answer;
  std::set<std::string> names;
  for (const auto& c : candidates) {
    names.insert(c.kernel);
  }
  std::set<std::string> resolved;
  if (names.count(query.kernel) != 0) {
    resolved.insert(query.kernel);
    answer.match = KeyMatch::exact;
  } else {
    const std::string folded = fold_kernel_name(query.kernel);
    for (const auto& n : names) {
      if (!folded.empty() && fold_kernel_name(n) == folded) {
        resolved.insert(n);
      }
    }
    answer.match = resolved.empty() ? KeyMatch::miss : KeyMatch::normalized;
  }
  if (answer.match == KeyMatch::miss) {
    const std::string folded = fold_kernel_name(query.kernel);
    const auto want = tokens(query.kernel);
    std::vector<std::tuple<std::size_t, int, std::string>> ranked;
    for (const auto& n : names) {
      int shared = 0;
      for (const auto& t : tokens(n)) {
        shared += static_cast<int>(want.count(t));
      }
      ranked.emplace_back(edit_distance(folded, fold_kernel_name(n)), -shared, n);
    }
    std::sort(ranked.begin(), ranked.end());
    for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) {
      answer.nearest.push_back(std::get<2>(ranked[i]));
    }
    return answer;
  }
  answer.kernels.assign(resolved.begin(), resolved.end());
  const std::string gfx = lower(query.gfx);
  std::vector<const LookupCandidate*> in_key;
  std::set<std::string> other_gfx;
  for (const auto& c : candidates) {
    if (resolved.count(c.kernel) == 0) {
      continue;
    }
    if (lower(c.gfx) != gfx) {
      other_gfx.insert(lower(c.gfx));
      continue;
    }
    if (filters_pass(query, c)) {
      in_key.push_back(&c);
    }
  }
  answer.attempts = static_cast<int>(in_key.size());
  if (in_key.empty() && !other_gfx.empty()) {
    bool any_on_gfx = false;
    for (const auto& c : candidates) {
      any_on_gfx = any_on_gfx || (resolved.count(c.kernel) != 0 && lower(c.gfx) == gfx);
    }
    if (!any_on_gfx) {
      answer.other_gfx.assign(other_gfx.begin(), other_gfx.end());
    }
  }
  std::map<std::string, std::vector<const LookupCandidate*>> by_lever;
  std::vector<const LookupCandidate*> key_wins;
  for (const auto* c : in_key) {
    by_lever[c->lever_key].push_back(c);
    if (c->win) {
      key_wins.push_back(c);
    }
  }
  for (const auto& [key, group] : by_lever) {
    if (std::any_of(group.begin(), group.end(), [](const LookupCandidate* c) { return c->win; })) {
      answer.levers.push_back(make_lever(group, key_wins));
    }
  }
  std::sort(answer.levers.begin(), answer.levers.end(), lever_before);
  return answer;
}

} // namespace rfdb::report
